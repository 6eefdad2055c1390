#!/usr/bin/env python3
"""A scripted stand-in for `wafer lsp`, used by the editor tests to exercise the clients'
side of the protocol deterministically: canned inline completions streamed through
$/progress partial results, cancellation, accept notifications, wafer/stats and the
missing-model error. The same tests also run against the real daemon.

Canned behaviour: when the text before the cursor on its line (at least 3 characters) is a
prefix of a line in CANNED, the suggestion is the rest of that entry (possibly several
lines). On an explicitly invoked request a second alternative is offered. HELD_BACK streams
the same way, then its final reply is the daemon's "held back by the confidence gate".

Options: --missing-model (every request fails with one showMessage error and empty
results), --delay-ms N (time before the first partial result).
"""
import heapq
import json
import os
import select
import sys
import time

CANNED = [
    "def add(a, b):\n    return a + b",
    "print('hello world')",
    "for item in items:\n    total += item.price\n    count += 1",
]
ALTERNATIVE = "  # alternative"
# Streams like the others, then the final reply says the confidence gate held it back.
HELD_BACK = "import not_so_sure_after_all"

args = sys.argv[1:]
MISSING_MODEL = "--missing-model" in args
DELAY = int(args[args.index("--delay-ms") + 1]) / 1000.0 if "--delay-ms" in args else 0.02
STEP = 0.015

docs = {}        # uri -> list of lines
log = []         # notifications received (method, params)
timers = []      # heap of (time, seq, fn)
answered = set() # request ids already answered
cancelled = set() # request ids cancelled (their timers are skipped)
seq = 0
stats = {"requests": 0, "cancelled": 0}
inbuf = b""


def send(msg):
    msg["jsonrpc"] = "2.0"
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def later(delay, fn, rid=None):
    global seq
    seq += 1
    heapq.heappush(timers, (time.monotonic() + delay, seq, rid, fn))


def reply(rid, result):
    answered.add(rid)
    send({"id": rid, "result": result})


def apply_change(lines, change):
    if "range" not in change:
        return change["text"].split("\n")
    text = "\n".join(lines)
    def offset(pos):
        return sum(len(l) + 1 for l in lines[: pos["line"]]) + pos["character"]
    a, b = offset(change["range"]["start"]), offset(change["range"]["end"])
    return (text[:a] + change["text"] + text[b:]).split("\n")


def suggestions(line_prefix, invoked):
    out = []
    if len(line_prefix.strip()) >= 3:
        for entry in CANNED:
            if entry.startswith(line_prefix) and entry != line_prefix:
                out.append(entry[len(line_prefix):])
                break
    if out and invoked:
        out.append(out[0].split("\n")[0] + ALTERNATIVE)
    return out


def inline_completion(rid, params):
    stats["requests"] += 1
    if MISSING_MODEL:
        send({"method": "window/showMessage",
              "params": {"type": 1, "message": "model not found: /nonexistent/model.gguf"}})
        reply(rid, {"items": []})
        return
    uri = params["textDocument"]["uri"]
    pos = params["position"]
    lines = docs.get(uri, [""])
    line = lines[pos["line"]] if pos["line"] < len(lines) else ""
    typed = line[: pos["character"]]
    held_back = len(typed) >= 3 and HELD_BACK.startswith(typed) and HELD_BACK != typed
    texts = [HELD_BACK[len(typed):]] if held_back else suggestions(typed, params.get("context", {}).get("triggerKind") == 1)
    rng = {"start": pos, "end": pos}
    items = [{"insertText": t, "range": rng} for t in texts]
    token = params.get("partialResultToken")
    if token is None or not items:
        later(DELAY, lambda: reply(rid, {"items": items}), rid)
        return
    # Stream the first item growing in three steps, then the final list.
    first = items[0]["insertText"]
    cuts = [max(1, len(first) // 3), max(1, 2 * len(first) // 3)]
    for n, cut in enumerate(cuts):
        part = {"items": [{"insertText": first[:cut], "range": rng}]}
        later(DELAY + n * STEP, lambda part=part: send(
            {"method": "$/progress", "params": {"token": token, "value": part}}), rid)
    final = {"items": [], "wafer": {"outcome": "held_back"}} if held_back else {"items": items}
    later(DELAY + len(cuts) * STEP, lambda: reply(rid, final), rid)


TRACE = open(os.environ["FAKE_LSP_TRACE"], "a") if os.environ.get("FAKE_LSP_TRACE") else None


def handle(msg):
    if TRACE:
        TRACE.write(json.dumps(msg) + "\n")
        TRACE.flush()
    method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if method is None:
        return
    if rid is None:
        log.append({"method": method, "params": params})
    if method == "initialize":
        send({"id": rid, "result": {
            "capabilities": {
                "positionEncoding": "utf-16",
                "textDocumentSync": {"openClose": True, "change": 2},
                "inlineCompletionProvider": True,
                "completionProvider": {},
            },
            "serverInfo": {"name": "fake-wafer", "version": "0"}}})
    elif method == "initialized":
        if MISSING_MODEL:
            send({"method": "window/showMessage",
                  "params": {"type": 1, "message": "model not found: /nonexistent/model.gguf"}})
    elif method == "textDocument/didOpen":
        docs[params["textDocument"]["uri"]] = params["textDocument"]["text"].split("\n")
    elif method == "textDocument/didChange":
        uri = params["textDocument"]["uri"]
        for change in params["contentChanges"]:
            docs[uri] = apply_change(docs.get(uri, [""]), change)
    elif method == "textDocument/inlineCompletion":
        inline_completion(rid, params)
    elif method == "$/cancelRequest":
        cid = params.get("id")
        if cid not in answered and cid not in cancelled:
            stats["cancelled"] += 1
            cancelled.add(cid)
            answered.add(cid)
            send({"id": cid, "error": {"code": -32800, "message": "request cancelled"}})
    elif method == "wafer/stats":
        send({"id": rid, "result": stats})
    elif method == "fake/log":
        send({"id": rid, "result": log})
    elif method == "shutdown":
        send({"id": rid, "result": None})
    elif method == "exit":
        sys.exit(0)
    elif rid is not None:
        send({"id": rid, "error": {"code": -32601, "message": "method not found: " + method}})


def read_messages():
    global inbuf
    chunk = os.read(0, 65536)
    if not chunk:
        sys.exit(0)
    inbuf += chunk
    while True:
        head_end = inbuf.find(b"\r\n\r\n")
        if head_end < 0:
            return
        length = 0
        for h in inbuf[:head_end].split(b"\r\n"):
            if h.lower().startswith(b"content-length:"):
                length = int(h.split(b":")[1])
        if len(inbuf) < head_end + 4 + length:
            return
        body = inbuf[head_end + 4: head_end + 4 + length]
        inbuf = inbuf[head_end + 4 + length:]
        handle(json.loads(body))


def main():
    while True:
        timeout = max(0.0, timers[0][0] - time.monotonic()) if timers else None
        ready, _, _ = select.select([0], [], [], timeout)
        if ready:
            read_messages()
        now = time.monotonic()
        while timers and timers[0][0] <= now:
            _, _, rid, fn = heapq.heappop(timers)
            if rid is None or rid not in cancelled:
                fn()


if __name__ == "__main__":
    main()
