# The client dies in the middle of a message: the daemon logs it and exits 1 (no
# shutdown came), without crashing.
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
raw> Content-Length: 50\r\n\r\n{"jsonrpc":"2.0","id":2,"meth
close
exit 1
