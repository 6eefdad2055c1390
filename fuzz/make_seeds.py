#!/usr/bin/env python3
"""Writes the committed seed corpora of the server fuzz targets from real traffic:
the recorded transcripts (tests/integration/transcripts/*.lsp) and a typing session.

    fuzz/make_seeds.py        # rewrites tests/server/corpus/{framing,lsp,documents}/seed-*

Seeds only; inputs that once crashed a target (crash-*) are added by hand and never
touched here. Input layouts are described at the top of each fuzz/fuzz_*.cpp.
"""
import json
import pathlib
import random
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSCRIPTS = ROOT / "tests" / "integration" / "transcripts"
CORPUS = ROOT / "tests" / "server" / "corpus"


def unescape(s):
    return s.encode("utf-8").decode("unicode_escape").encode("latin-1")


def frame(body):
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def transcript_stream(path):
    """The client's bytes of one transcript: framed messages and raw bytes, in order."""
    out, bodies = b"", []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("> "):
            body = line[2:].encode("utf-8")
            out += frame(body)
            bodies.append(body)
        elif line.startswith("raw> "):
            out += unescape(line[5:])
        elif line.startswith("big> "):
            out += b"Content-Length: %d\r\n\r\n" % min(int(line[5:]), 4096) + b" " * 64
    return out, bodies


def typing_session():
    """didChange + inlineCompletion per keystroke, as an editor sends them."""
    msgs, version, col = [], 1, 4
    msgs.append({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                            "initializationOptions": {"debounceMs": 0}}})
    msgs.append({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    msgs.append({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file:///s.py", "languageId": "python", "version": 1, "text": "def g(a):\n    \n"}}})
    rid = 2
    for ch in "return a + 1":
        version += 1
        msgs.append({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": "file:///s.py", "version": version},
            "contentChanges": [{"range": {"start": {"line": 1, "character": col}, "end": {"line": 1, "character": col}},
                                "text": ch}]}})
        col += 1
        msgs.append({"jsonrpc": "2.0", "id": rid, "method": "textDocument/inlineCompletion", "params": {
            "textDocument": {"uri": "file:///s.py"}, "position": {"line": 1, "character": col},
            "context": {"triggerKind": 2}, "partialResultToken": "t%d" % rid}})
        if rid % 3 == 0:
            msgs.append({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid - 1}})
        rid += 1
    msgs.append({"jsonrpc": "2.0", "id": rid, "method": "wafer/stats"})
    msgs.append({"jsonrpc": "2.0", "id": rid + 1, "method": "shutdown"})
    msgs.append({"jsonrpc": "2.0", "method": "exit"})
    return [json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode("utf-8") for m in msgs]


def write(folder, name, data):
    d = CORPUS / folder
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def main():
    for d in ("framing", "lsp", "documents"):
        for old in (CORPUS / d).glob("seed-*") if (CORPUS / d).is_dir() else []:
            old.unlink()
    for path in sorted(TRANSCRIPTS.glob("*.lsp")):
        stream, bodies = transcript_stream(path)
        name = re.sub(r"[^a-z0-9_]", "_", path.stem)
        write("framing", "seed-" + name, bytes([len(stream) // 2 % 256]) + stream)
        write("lsp", "seed-raw-" + name, b"\x00" + stream)              # raw bytes, framing too
        if bodies:
            write("lsp", "seed-lines-" + name, b"\x01" + b"\n".join(bodies))  # one body per line
    session = typing_session()
    write("lsp", "seed-typing-raw", b"\x00" + b"".join(frame(b) for b in session))
    write("lsp", "seed-typing-lines", b"\x01" + b"\n".join(session))
    # With the harness's prelude (initialize + two open documents), utf-16 and utf-8.
    edits = [m for m in session if b"didChange" in m or b"inlineCompletion" in m]
    edits = [e.replace(b"file:///s.py", b"file:///a.py") for e in edits]
    write("lsp", "seed-prelude-utf16", b"\x03" + b"\n".join(edits))
    write("lsp", "seed-prelude-utf8-progress", b"\x0f" + b"\n".join(edits))
    # Documents: mode byte (bit 0 utf-8, bit 1 tree checks), then random op bytes.
    rng = random.Random(12)
    for i, mode in enumerate([0, 1, 2, 3, 2, 3]):
        write("documents", "seed-%d-mode%d" % (i, mode), bytes([mode]) + bytes(rng.randrange(256) for _ in range(64 + 64 * i)))


if __name__ == "__main__":
    main()
