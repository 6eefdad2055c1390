# Cancelling an id that is unknown or already answered does nothing (no reply).
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":999}}
> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{}}
> {"jsonrpc":"2.0","method":"$/cancelRequest"}
> {"jsonrpc":"2.0","id":2,"method":"wafer/stats"}
< {"id":2,"result":{}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
