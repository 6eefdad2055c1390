# Wrong parameter types: requests get -32602 naming the field; notifications are logged
# and dropped; the daemon keeps serving.
args: --fake-engine $FAKE --debounce-ms 0
fake: {"text": "2"}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":"utf-8"}}}}
< {"id":1,"error":{"code":-32602,"message":"invalid params: capabilities.general.positionEncodings: expected an array, got string"}}
> {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{},"initializationOptions":{"debounceMs":"soon"}}}
< {"id":2,"error":{"code":-32602,"message":"~initializationOptions.debounceMs"}}
> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"capabilities":{}}}
< {"id":3,"result":{"capabilities":{}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///t.py","languageId":"python","version":1,"text":"x = 1\ny = \n"}}}
> {"jsonrpc":"2.0","id":4,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///t.py"},"position":{"line":"1","character":4},"context":{"triggerKind":1}}}
< {"id":4,"error":{"code":-32602,"message":"invalid params: position.line: expected an integer, got string"}}
> {"jsonrpc":"2.0","id":5,"method":"textDocument/inlineCompletion","params":{"textDocument":"file:///t.py","position":{"line":1,"character":4}}}
< {"id":5,"error":{"code":-32602,"message":"invalid params: textDocument: expected an object, got string"}}
> {"jsonrpc":"2.0","id":6,"method":"textDocument/inlineCompletion","params":[1,2]}
< {"id":6,"error":{"code":-32602,"message":"~params: expected an object"}}
> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///t.py","version":2},"contentChanges":{"text":"x"}}}
< {"method":"window/logMessage","params":{"type":2,"message":"~contentChanges: expected an array"}}
> {"jsonrpc":"2.0","id":7,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///t.py"},"position":{"line":1,"character":4},"context":{"triggerKind":1}}}
< {"id":7,"result":{"items":[{"insertText":"2","range":{"start":{"line":1,"character":4}}}]}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
