# Valid JSON that is not a request or notification object: each gets a -32600 error with a
# null id (there is no usable id) and a warning in the log; the daemon keeps serving,
# before and after initialize.
> 42
< {"method":"window/logMessage","params":{"type":2,"message":"~rejected message: invalid request"}}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~must be a JSON object, got number"}}
> null
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~got null"}}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
> true
< {"method":"window/logMessage","params":{"type":2,"message":"~rejected message: invalid request"}}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~got boolean"}}
> "wafer/stats"
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~got string"}}
> [{"jsonrpc":"2.0","id":2,"method":"wafer/stats"}]
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~batch"}}
> {}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~\"jsonrpc\" must be \"2.0\""}}
> {"jsonrpc":"2.0"}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~missing \"method\""}}
> {"jsonrpc":"2.0","method":7}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~\"method\" must be a string"}}
> {"jsonrpc":"2.0","id":[3],"method":"wafer/stats"}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~\"id\" must be a number or a string"}}
> {"jsonrpc":"2.0","id":4.5,"method":"wafer/stats"}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600}}
> {"jsonrpc":"2.0","id":null,"method":"wafer/stats"}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"~\"id\" must not be null"}}
> {"jsonrpc":"2.0","id":5,"method":"wafer/stats"}
< {"jsonrpc":"2.0","id":5,"result":{"documents":0}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
