#!/usr/bin/env python3
"""`cmake --install` into a temporary prefix, then the installed `wafer lsp` as a user first
runs it: no arguments at all. A short LSP session over pipes (initialize, didOpen,
inlineCompletion) must get a non-empty suggestion from the bundled model, which the daemon
finds in PREFIX/share/wafer/models/ by itself and names (showMessage, wafer/stats). Then the
uninstall script removes exactly the installed files.

  test_install.py CMAKE BUILD_DIR SOURCE_DIR

The build directory's install_manifest.txt (which `cmake --install` rewrites) is restored
afterwards, so an earlier real install can still be uninstalled.
"""
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

SAMPLE = (
    "def area(w, h):\n"
    "    return w * h\n"
    "\n"
    "\n"
    "def perimeter(w, h):\n"
    "    return 2 * (w + h)\n"
    "\n"
    "\n"
    "def volume(w, h, d):\n"
    "    # the product of the three sides\n"
    "    return \n"
)


class Lsp:
    """A minimal LSP client over a child's pipes, with timeouts."""

    def __init__(self, argv, env):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.buf = b""
        self.next_id = 1
        self.received = []

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def _message(self, deadline):
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if sep:
                length = None
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if length is not None and len(rest) >= length:
                    self.buf = rest[length:]
                    return json.loads(rest[:length])
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from the daemon in time")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    raise EOFError("the daemon closed its output")
                self.buf += chunk

    def wait_for(self, pred, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            m = self._message(deadline)
            self.received.append(m)
            if pred(m):
                return m

    def request(self, method, params, timeout=60):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == i and "method" not in m, timeout)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def session(wafer, env, workdir):
    lsp = Lsp([wafer, "lsp"], env)
    try:
        root = "file://" + workdir
        uri = root + "/shapes.py"
        init = lsp.request("initialize", {"processId": None, "rootUri": root, "capabilities": {}})
        check("result" in init, "initialize failed: %s" % init)
        lsp.notify("initialized", {})
        loaded = lsp.wait_for(lambda m: m.get("method") == "window/showMessage" or (
            m.get("method") == "window/logMessage" and "model loaded" in m["params"]["message"]))
        check(loaded["method"] == "window/logMessage", "the model did not load: %s" % loaded)
        # Which model serves, said once, with how to get a better one.
        shown = lsp.wait_for(lambda m: m.get("method") == "window/showMessage")
        message = shown["params"]["message"]
        check(shown["params"]["type"] == 3, "expected an info message: %s" % shown)
        check("share/wafer/models/wafer-tiny-code-q8_0.gguf" in message, "not the installed model: " + message)
        check("wafer pull qwen2.5-coder" in message, "no hint to pull a better model: " + message)

        lsp.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                             "text": SAMPLE}})
        reply = lsp.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": 10, "character": 11},
            "context": {"triggerKind": 1}})
        items = reply.get("result", {}).get("items", [])
        check(items and items[0]["insertText"], "no suggestion: %s" % reply)
        print("suggestion: %r" % items[0]["insertText"])

        stats = lsp.request("wafer/stats", None)["result"]
        check(stats["model"]["source"] == "bundled", "stats: %s" % stats["model"])
        check(stats["model"]["path"].startswith(os.path.dirname(os.path.dirname(wafer))), "stats: %s" % stats["model"])

        lsp.request("shutdown", None)
        lsp.notify("exit", None)
        check(lsp.proc.wait(30) == 0, "exit code %s" % lsp.proc.returncode)
    finally:
        if lsp.proc.poll() is None:
            lsp.proc.kill()
            lsp.proc.wait()
        err = lsp.proc.stderr.read().decode(errors="replace")
        if err:
            sys.stderr.write("--- wafer lsp stderr ---\n" + err)


def main():
    cmake, build, source = sys.argv[1:4]
    manifest = os.path.join(build, "install_manifest.txt")
    saved = open(manifest, "rb").read() if os.path.exists(manifest) else None
    tmp = tempfile.mkdtemp(prefix="wafer-install-test-")
    try:
        prefix = os.path.join(tmp, "prefix")
        subprocess.run([cmake, "--install", build, "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
        files = open(manifest).read().split()
        rel = sorted(os.path.relpath(f, prefix) for f in files)
        for want in ["bin/wafer", "share/wafer/models/wafer-tiny-code-q8_0.gguf", "share/wafer/models/README.md",
                     "share/wafer/nvim/plugin/wafer.lua", "share/wafer/nvim/lua/wafer/init.lua"]:
            check(want in rel, "not installed: %s (got %s)" % (want, rel))
        check(all(not r.startswith("..") for r in rel), "installed outside the prefix: %s" % rel)
        check(not any("/test/" in r for r in rel), "editor tests were installed: %s" % rel)

        workdir = os.path.join(tmp, "work")
        os.makedirs(workdir)
        env = dict(os.environ)
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # nothing pulled: the bundled model serves
        env["PATH"] = os.path.join(prefix, "bin") + os.pathsep + env.get("PATH", "")
        session(os.path.join(prefix, "bin", "wafer"), env, workdir)

        subprocess.run([cmake, "-DWAFER_MANIFEST=" + manifest, "-P", os.path.join(source, "cmake", "uninstall.cmake")],
                       check=True, stdout=subprocess.DEVNULL)
        for f in files:
            check(not os.path.lexists(f), "not uninstalled: " + f)
        check(not os.path.exists(os.path.join(prefix, "share", "wafer")),
              "share/wafer left behind: %s" % list(os.walk(os.path.join(prefix, "share", "wafer"))))
        left = [os.path.join(d, f) for d, _, fs in os.walk(prefix) for f in fs]
        check(not left, "files left in the prefix: %s" % left)
    finally:
        if saved is not None:
            open(manifest, "wb").write(saved)
        elif os.path.exists(manifest):
            os.remove(manifest)
        shutil.rmtree(tmp, ignore_errors=True)
    print("install test: ok")


if __name__ == "__main__":
    main()
