# A header whose body never comes: with Content-Length 0 the empty body is a parse error;
# a header at end of input is logged and the daemon exits (0, as shutdown came first).
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
raw> Content-Length: 0\r\n\r\n
< {"id":null,"error":{"code":-32700,"message":"~empty"}}
raw> Content-Type: application/vscode-jsonrpc\r\n\r\n
< {"id":null,"error":{"code":-32700,"message":"~missing Content-Length"}}
> {"jsonrpc":"2.0","id":2,"method":"shutdown"}
< {"id":2,"result":null}
raw> Content-Length: 40\r\n\r\n
close
exit 0
