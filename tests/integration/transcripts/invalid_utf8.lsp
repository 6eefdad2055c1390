# Invalid UTF-8 in a document's text: the bad bytes become U+FFFD (with a warning) and
# the document works; positions after them stay valid.
args: --fake-engine $FAKE --debounce-ms 0
fake: {"text": "", "echo_prefix_tail": 4}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
> {"jsonrpc":"2.0","method":"initialized","params":{}}
raw> Content-Length: 145\r\n\r\n{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///t.py","languageId":"python","version":1,"text":"a\xff\xfe"}}}
< {"method":"window/logMessage","params":{"type":2,"message":"~invalid UTF-8"}}
> {"jsonrpc":"2.0","id":2,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///t.py"},"position":{"line":0,"character":3},"context":{"triggerKind":1}}}
< {"id":2,"result":{"items":[{"insertText":"\ufffd\ufffd","range":{"start":{"line":0,"character":3}}}]}}
> {"jsonrpc":"2.0","id":90,"method":"shutdown"}
< {"id":90,"result":null}
> {"jsonrpc":"2.0","method":"exit"}
exit 0
