# Unknown requests get -32601; unknown notifications (and $/ ones) are ignored.
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
> {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{}}
< {"id":2,"error":{"code":-32601,"message":"method not found: textDocument/hover"}}
> {"jsonrpc":"2.0","method":"custom/notification","params":{}}
> {"jsonrpc":"2.0","method":"$/someExtension","params":{}}
> {"jsonrpc":"2.0","id":"s3","method":"$/someRequest"}
< {"id":"s3","error":{"code":-32601}}
> {"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"verbose"}}
> {"jsonrpc":"2.0","id":4,"method":"wafer/stats"}
< {"id":4,"result":{"counts":{}}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
