# Notifications for documents that are not open are logged and ignored; a completion
# request for one is -32602 naming the field.
args: --fake-engine $FAKE
fake: {"text": "x"}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///never.py","version":2},"contentChanges":[{"text":"a"}]}}
< {"method":"window/logMessage","params":{"type":1,"message":"~not open: file:///never.py"}}
> {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///never.py"}}}
< {"method":"window/logMessage","params":{"type":2,"message":"~not open"}}
> {"jsonrpc":"2.0","id":2,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///never.py"},"position":{"line":0,"character":0}}}
< {"id":2,"error":{"code":-32602,"message":"invalid params: textDocument.uri: the document is not open: file:///never.py"}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
