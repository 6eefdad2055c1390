# Requests before initialize get -32002; notifications are dropped (the document below is
# not opened); exit is always accepted.
> {"jsonrpc":"2.0","id":1,"method":"wafer/stats"}
< {"id":1,"error":{"code":-32002,"message":"~before 'initialize'"}}
> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///t.py","languageId":"python","version":1,"text":"x = 1\ny = \n"}}}
> {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}
< {"id":2,"result":{"capabilities":{}}}
> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"capabilities":{}}}
< {"id":3,"error":{"code":-32600,"message":"initialize may only be sent once"}}
> {"jsonrpc":"2.0","id":4,"method":"wafer/stats"}
< {"id":4,"result":{"documents":0}}
> {"jsonrpc":"2.0","id":5,"method":"shutdown"}
< {"id":5,"result":null}
> {"jsonrpc":"2.0","id":6,"method":"wafer/stats"}
< {"id":6,"error":{"code":-32600,"message":"~shut down"}}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
