# A body that is not JSON gets -32700 with a null id; the daemon keeps serving.
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
raw> Content-Length: 8\r\n\r\n{"jsonrp
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"~not valid JSON"}}
raw> Content-Length: 2\r\n\r\n[]
< {"id":null,"error":{"code":-32600,"message":"~batch"}}
raw> Content-Length: 61\r\n\r\n[{"jsonrpc":"2.0","id":5,"method":"wafer/stats","params":{}}]
< {"id":null,"error":{"code":-32600}}
raw> Content-Length: 3\r\n\r\n"x"
< {"id":null,"error":{"code":-32600,"message":"~must be a JSON object"}}
> {"jsonrpc":"1.0","id":6,"method":"wafer/stats"}
< {"id":6,"error":{"code":-32600,"message":"~\"jsonrpc\" must be \"2.0\""}}
> {"jsonrpc":"2.0","id":7,"method":"wafer/stats","params":"text"}
< {"id":7,"error":{"code":-32600,"message":"~params"}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
