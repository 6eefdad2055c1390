#!/usr/bin/env python3
"""The first suggestion in a file, with and without the daemon's warm-up, with a draft model:
starts `wafer lsp` (the given model and draft, debounce 0), opens FILE, optionally sends
`wafer/warm` at LINE:COL and waits for it to finish, then asks for one inline completion
there and prints, from `wafer/stats`, the engine's time for it, the draft model's part of it
(`draft_ms`), the warm-up's draft time (`warm_draft_ms`) and the prompt tokens prefilled or
reused.

  first_request.py warm|cold --model M --draft-model D --file FILE --at LINE:COL
                   [--wafer build/server/wafer] [--threads 2] [--max-tokens 16]
"""
import argparse
import json
import subprocess
import sys
import threading
import time


class Daemon:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.answers, self.loaded, self.next_id = {}, False, 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        f = self.p.stdout
        while True:
            line, n = f.readline(), 0
            if not line:
                return
            while line.strip():
                if line.lower().startswith(b"content-length"):
                    n = int(line.split(b":")[1])
                line = f.readline()
            m = json.loads(f.read(n))
            if "id" in m and ("result" in m or "error" in m):
                self.answers[m["id"]] = m
            if m.get("method") == "window/logMessage" and "model loaded" in m["params"]["message"]:
                self.loaded = True

    def send(self, method, params, request=True):
        m = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            m["id"] = self.next_id
        body = json.dumps(m).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()
        return self.next_id if request else None

    def call(self, method, params, timeout=300):
        i = self.send(method, params)
        t0 = time.time()
        while i not in self.answers:
            if time.time() - t0 > timeout:
                sys.exit("no answer to " + method)
            time.sleep(0.005)
        return self.answers[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["warm", "cold"])
    ap.add_argument("--model", required=True)
    ap.add_argument("--draft-model", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--at", required=True, help="LINE:COL, from 1")
    ap.add_argument("--wafer", default="build/server/wafer")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--max-tokens", default="16")
    a = ap.parse_args()
    line, col = (int(x) - 1 for x in a.at.split(":"))
    d = Daemon([a.wafer, "lsp", "--model", a.model, "--draft-model", a.draft_model, "--threads", a.threads,
                "--debounce-ms", "0", "--max-tokens", a.max_tokens, "--min-confidence", "0"])
    d.call("initialize", {"capabilities": {"general": {"positionEncodings": ["utf-8"]}}})
    d.send("initialized", {}, request=False)
    while not d.loaded:
        time.sleep(0.01)
    uri = "file://" + a.file
    with open(a.file, encoding="utf-8") as f:
        text = f.read()
    d.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
           request=False)
    at = {"line": line, "character": col}
    if a.mode == "warm":
        d.send("wafer/warm", {"textDocument": {"uri": uri}, "position": at}, request=False)
        while d.call("wafer/stats", None)["result"]["counts"].get("warm_outcome_done", 0) < 1:
            time.sleep(0.05)
    d.call("textDocument/inlineCompletion", {"textDocument": {"uri": uri}, "position": at, "context": {"triggerKind": 1}})
    s = d.call("wafer/stats", None)["result"]
    lat, counts = s["latency_ms"], s["counts"]
    get = lambda k: lat.get(k, {}).get("max")
    print("%s: engine %.0f ms, of it the draft %.0f ms; warm-up's draft %s; prompt tokens prefilled %d, reused %d" % (
        a.mode, get("engine_ms") or 0, get("draft_ms") or 0,
        "%.0f ms" % get("warm_draft_ms") if get("warm_draft_ms") else "-",
        counts.get("prefilled_tokens", 0), counts.get("reused_tokens", 0)))
    d.send("shutdown", None)
    d.send("exit", None, request=False)
    d.p.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
