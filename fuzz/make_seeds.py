#!/usr/bin/env python3
"""Writes the committed seed corpora of the server fuzz targets from real traffic:
the recorded transcripts (tests/integration/transcripts/*.lsp) and a typing session.

    fuzz/make_seeds.py        # rewrites tests/server/corpus/*/seed-*

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


def workspace_folders_session():
    """initialize naming its folders in every shape, then folders added and removed."""
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"capabilities": {}, "rootUri": "file:///w", "rootPath": "/w",
                        "workspaceFolders": [{"uri": "file:///w", "name": "w"}, {"uri": 7}, "x",
                                             {"name": "no uri"}, {"uri": "untitled:u", "name": "u"}]}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "method": "workspace/didChangeWorkspaceFolders",
             "params": {"event": {"added": [{"uri": "file:///", "name": "r"}, {"uri": None}, 3],
                                  "removed": [{"uri": "file:///w", "name": "w"}]}}},
            {"jsonrpc": "2.0", "method": "workspace/didChangeWorkspaceFolders", "params": {"event": []}},
            {"jsonrpc": "2.0", "method": "workspace/didChangeWorkspaceFolders", "params": []},
            {"jsonrpc": "2.0", "id": 2, "method": "wafer/stats"},
            {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
            {"jsonrpc": "2.0", "method": "exit"}]
    return [json.dumps(m, separators=(",", ":")).encode("utf-8") for m in msgs]


def write(folder, name, data):
    d = CORPUS / folder
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def main():
    for d in ("framing", "lsp", "documents", "settings", "sse", "trace"):
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
    folders = b"\n".join(workspace_folders_session())
    write("lsp", "seed-lines-workspace_folders", b"\x01" + folders)
    write("lsp", "seed-lines-workspace_folders-allowed_roots", b"\x41" + folders)  # bit 6: --allow-root /w
    # With the harness's prelude (initialize + two open documents), utf-16 and utf-8.
    edits = [m for m in session if b"didChange" in m or b"inlineCompletion" in m]
    edits = [e.replace(b"file:///s.py", b"file:///a.py") for e in edits]
    write("lsp", "seed-prelude-utf16", b"\x03" + b"\n".join(edits))
    write("lsp", "seed-prelude-utf8-progress", b"\x0f" + b"\n".join(edits))
    # Documents: mode byte (bit 0 utf-8, bit 1 tree checks), then random op bytes.
    rng = random.Random(12)
    for i, mode in enumerate([0, 1, 2, 3, 2, 3]):
        write("documents", "seed-%d-mode%d" % (i, mode), bytes([mode]) + bytes(rng.randrange(256) for _ in range(64 + 64 * i)))

    settings_seeds()
    sse_seeds()
    trace_seeds()


def settings_seeds():
    """fuzz_settings: 0x00 + a settings object, 0x01 + a NUL-separated command line."""
    objects = {
        "typing": {"debounceMs": 0, "maxTokens": 32, "languages": ["python", "rust"]},
        "nested": {"wafer": {"prefixLines": 40, "suffixLines": 10, "alternatives": 1, "warm": False}},
        "remote": {"backend": "openai", "backendUrl": "http://127.0.0.1:8080", "backendModel": "m",
                   "backendTimeoutMs": 2000},
        "wrong_types": {"debounceMs": "fast", "maxTokens": -1, "languages": [1]},
        "ranges": {"alternativesTemperature": 2.5, "alternativesTopP": 0.5, "latencyBudgetMs": 0},
    }
    for name, obj in objects.items():
        write("settings", "seed-json-" + name, b"\x00" + json.dumps(obj).encode())
    lines = {
        "lsp": ["lsp", "--model", "m.gguf", "--debounce-ms", "50", "--threads", "2", "--kv-type", "q8_0"],
        "bench": ["bench", "src.py", "--keystrokes", "40", "--wpm", "80", "--typo-rate", "0.1", "--json"],
        "pull": ["pull", "qwen-0.5b", "--sha256", "00" * 32],
        "generate": ["generate", "--prompt", "def f(", "--n-predict", "8", "--temperature", "0.5"],
        "help": ["lsp", "--help"],
    }
    for name, argv in lines.items():
        write("settings", "seed-argv-" + name, b"\x01" + b"\x00".join(a.encode() for a in argv))


def sse_seeds():
    """fuzz_sse: a read-size byte + a response body."""
    llama = [{"content": "def", "stop": False}, {"content": " f():", "stop": False},
             {"content": "", "stop": True, "timings": {"prompt_n": 12, "predicted_n": 2, "cache_n": 30}}]
    openai = [{"choices": [{"text": "return", "finish_reason": None}]},
              {"choices": [{"text": " x", "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 40, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 32}}}]
    events = lambda chunks, end: "".join("data: %s\n\n" % json.dumps(c) for c in chunks) + end
    bodies = {
        "llama": events(llama, ""),
        "openai": events(openai, "data: [DONE]\n\n"),
        "crlf": events(openai, "data: [DONE]\r\n\r\n").replace("\n", "\r\n"),
        "error": "data: " + json.dumps(llama[0]) + "\n\nerror: {\"error\": {\"message\": \"context full\"}}\n\n",
        "multiline": ": keep-alive\n\nevent: x\ndata: {\"content\":\ndata: \"a\"}\n\ndata: {\"content\": \"b\"",
        "whole": json.dumps({"content": "x = 1", "stop": True, "tokens_cached": 5, "tokens_predicted": 3}),
    }
    for i, (name, body) in enumerate(bodies.items()):
        write("sse", "seed-" + name, bytes([i * 3]) + body.encode())


def trace_seeds():
    """fuzz_trace: 0x00 + a JSON-lines trace; 0x01 + keystrokes, start line + a source."""
    header = {"wafer_trace": 1, "path": "a.py", "text": "def f(x):\n    \n"}
    steps = [{"t": 0, "edit": {"offset": 14, "insert": "r"}},
             {"t": 120.5, "edit": {"offset": 15, "insert": "et"}, "kind": "type", "pos": 1, "clean": True, "draw": 0.3},
             {"t": 300, "edit": {"offset": 16, "delete": 1, "insert": ""}, "kind": "backspace"},
             {"t": 310, "request": True},
             {"t": 400, "edit": {"offset": 0, "insert": "# \u00e9\n"}, "request": False}]
    jsonl = lambda lines: "\n".join(json.dumps(x) for x in lines).encode() + b"\n"
    write("trace", "seed-recorded", b"\x00" + jsonl([header] + steps))
    write("trace", "seed-recorded-rust", b"\x00" + jsonl([{"wafer_trace": 1, "path": "m.rs", "language": "rust",
                                                            "text": "fn main() {\n}\n"},
                                                           {"t": 5, "edit": {"offset": 12, "insert": "    let a = 1;\n"}}]))
    write("trace", "seed-recorded-bad-offset", b"\x00" + jsonl([header, {"t": 1, "edit": {"offset": 99}}]))
    source = b"import os\n\ndef main(argv):\n    for a in argv:\n        print(a.upper())\n    return 0\n"
    write("trace", "seed-synth-middle", b"\x01\x28\x00" + source)
    write("trace", "seed-synth-line2-typos", b"\x01\x3f\xfa" + source)


if __name__ == "__main__":
    main()
