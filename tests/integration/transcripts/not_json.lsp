# Bodies that are not valid JSON: each gets a -32700 error with a null id (no id can be
# read from text that does not parse, even when one is visible in it) and a warning in the
# log; the daemon keeps serving, before and after initialize.
> {"jsonrpc":"2.0","id":1,"method":"initialize"
< {"method":"window/logMessage","params":{"type":2,"message":"~rejected message: parse error"}}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"~not valid JSON"}}
raw> Content-Length: 0\r\n\r\n
< {"method":"window/logMessage","params":{"type":2,"message":"~rejected message: parse error: empty message body"}}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"~empty message body"}}
> {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"capabilities":{}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
> {"jsonrpc":"2.0","id":3,"method":"wafer/stats"} trailing
< {"method":"window/logMessage","params":{"type":2,"message":"~rejected message: parse error"}}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
> {'jsonrpc':'2.0','id':4,'method':'wafer/stats'}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
> {"jsonrpc":"2.0","id":5,"method":"wafer/stats" /* a comment */}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
> tru
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
raw> Content-Length: 4\r\n\r\n\xff\xfe{}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
> {"jsonrpc":"2.0","id":6,"method":"wafer/stats"}
< {"jsonrpc":"2.0","id":6,"result":{"documents":0}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
