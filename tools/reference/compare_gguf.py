#!/usr/bin/python3
"""Compares two GGUF files entry by entry: every metadata entry (value type and value
bytes), every tensor's name, shape, type and data bytes, and the whole files' sha256 (with
the model_sha256 of a llama.cpp JSON when one is given).

usage: compare_gguf.py A.gguf B.gguf [REFERENCE.json]

Prints one line per tensor and per differing metadata entry; exits 1 when any metadata
entry or tensor differs (a differing whole file with equal entries is reported, not failed:
padding or order alone would cause it).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from gguf_reader import GgufFile

TYPE_NAMES = {0: "F32", 1: "F16", 8: "Q8_0", 30: "BF16"}


def tensor_size(f: GgufFile, name: str) -> int:
    """A tensor's bytes: up to the next tensor's offset, or the file's end (padding included)."""
    start = f.tensors[name].offset
    later = sorted(t.offset for t in f.tensors.values() if t.offset > start)
    return (later[0] if later else len(f.data) - f.data_start) - start


def compare(a_path: Path, b_path: Path, reference: Path | None) -> int:
    a, b = GgufFile(a_path), GgufFile(b_path)
    bad = 0
    if list(a.kv_raw) != list(b.kv_raw):
        print(f"metadata keys or their order differ:\n  {list(a.kv_raw)}\n  {list(b.kv_raw)}")
        bad += 1
    for key in a.kv_raw.keys() & b.kv_raw.keys():
        if a.kv_raw[key] != b.kv_raw[key]:
            print(f"metadata {key}: differs ({a.kv[key]!r:.80} vs {b.kv[key]!r:.80})")
            bad += 1
    print(f"metadata: {len(a.kv_raw)} and {len(b.kv_raw)} entries, {bad} differ")
    if list(a.tensors) != list(b.tensors):
        print("tensor names or their order differ")
        bad += 1
    matches = 0
    for name in a.tensors:
        if name not in b.tensors:
            print(f"tensor {name}: only in {a_path}")
            bad += 1
            continue
        ta, tb = a.tensors[name], b.tensors[name]
        na, nb = tensor_size(a, name), tensor_size(b, name)
        same = ta.ne == tb.ne and ta.type == tb.type and ta.offset == tb.offset and \
            bytes(a.tensor_bytes(ta, na)) == bytes(b.tensor_bytes(tb, nb))
        matches += same
        bad += not same
        print(f"tensor {name:28} {TYPE_NAMES.get(ta.type, ta.type)!s:5} ne {list(ta.ne)!s:14} {na:>10} bytes: "
              f"{'identical' if same else 'DIFFERENT'}")
    print(f"tensors: {matches} of {len(a.tensors)} identical")
    sha_a, sha_b = (hashlib.sha256(p.read_bytes()).hexdigest() for p in (a_path, b_path))
    print(f"sha256 {a_path.name}: {sha_a}\nsha256 {b_path.name}: {sha_b}  ({'same' if sha_a == sha_b else 'different'})")
    if reference:
        want = json.loads(reference.read_text(encoding="utf-8"))["model_sha256"]
        print(f"model_sha256 of {reference.name}: {want}  ({'matches' if want == sha_a else 'does not match'} {a_path.name})")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return compare(Path(argv[0]), Path(argv[1]), Path(argv[2]) if len(argv) == 3 else None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
