#!/usr/bin/env python3
"""A loopback HTTP server for the plugin's :WaferPull tests against the real `wafer pull`.

    pull_server.py FILE CONTROL_DIR

Serves FILE at /model.gguf and /draft.gguf (Range requests answered with 206) on 127.0.0.1, printing the
port on stdout. Every request is appended to CONTROL_DIR/requests ("GET /path" plus
" range=N-" when it asked for a range). While CONTROL_DIR/broken exists, every response
stops at the middle of the file and the connection is dropped (a transfer that breaks off,
again on each retry). Runs until killed."""
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FILE, CONTROL = sys.argv[1], sys.argv[2]
with open(FILE, "rb") as f:
    BODY = f.read()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        rng = self.headers.get("Range")
        m = re.fullmatch(r"bytes=(\d+)-", rng or "")
        start = int(m.group(1)) if m else 0
        with open(os.path.join(CONTROL, "requests"), "a") as log:
            log.write("GET %s%s\n" % (self.path, " range=%d-" % start if m else ""))
        if self.path not in ("/model.gguf", "/draft.gguf"):
            self.send_error(404)
            return
        if start > len(BODY):
            self.send_error(416)
            return
        self.send_response(206 if m else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(BODY) - start))
        if m:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(BODY) - 1, len(BODY)))
        self.end_headers()
        end = len(BODY)
        if os.path.exists(os.path.join(CONTROL, "broken")):
            end = max(start, len(BODY) // 2)
        self.wfile.write(BODY[start:end])
        self.wfile.flush()
        self.close_connection = True


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
