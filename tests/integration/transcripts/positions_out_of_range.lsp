# Positions past the end or inside a surrogate pair: a request gets -32602; a bad change
# leaves the document out of sync (empty completions) until the client sends it whole.
args: --fake-engine $FAKE --debounce-ms 0
fake: {"text": "42"}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///t.py","languageId":"python","version":1,"text":"s = '😀'\ny = \n"}}}
> {"jsonrpc":"2.0","id":2,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///t.py"},"position":{"line":99,"character":0},"context":{"triggerKind":1}}}
< {"id":2,"error":{"code":-32602,"message":"~past the end of the document"}}
> {"jsonrpc":"2.0","id":3,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///t.py"},"position":{"line":0,"character":6},"context":{"triggerKind":1}}}
< {"id":3,"error":{"code":-32602,"message":"~surrogate pair"}}
> {"jsonrpc":"2.0","id":4,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///t.py"},"position":{"line":1,"character":400},"context":{"triggerKind":1}}}
< {"id":4,"result":{"items":[{"insertText":"42","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":4}}}]}}
> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///t.py","version":2},"contentChanges":[{"range":{"start":{"line":7,"character":0},"end":{"line":7,"character":1}},"text":"z"}]}}
< {"method":"window/logMessage","params":{"type":1,"message":"~past the end of the document"}}
> {"jsonrpc":"2.0","id":5,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///t.py"},"position":{"line":1,"character":4},"context":{"triggerKind":1}}}
< {"id":5,"result":{"items":[]}}
> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///t.py","version":3},"contentChanges":[{"text":"y = \n"}]}}
> {"jsonrpc":"2.0","id":6,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///t.py"},"position":{"line":0,"character":4},"context":{"triggerKind":1}}}
< {"id":6,"result":{"items":[{"insertText":"42"}]}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
