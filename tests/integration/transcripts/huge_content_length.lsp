# A 100 MB Content-Length is over the 64 MiB limit: reported, its body skipped unread,
# and the next message is served.
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
big> 104857600
< {"id":null,"error":{"code":-32700,"message":"~104857600 exceeds the limit of 67108864 bytes"}}
> {"jsonrpc":"2.0","id":2,"method":"wafer/stats"}
< {"id":2,"result":{"documents":0}}
raw> Content-Length: 99999999999999999999999999\r\n\r\n
< {"id":null,"error":{"code":-32700,"message":"~out of range"}}
> {"jsonrpc":"2.0","id":3,"method":"wafer/stats"}
< {"id":3,"result":{"documents":0}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
