"""A minimal GGUF writer, the counterpart of gguf_reader.py (same layout, version 3).

Metadata entries are given as (key, raw) pairs, raw being the u32 value type followed by the
value exactly as stored (gguf_reader.GgufFile.kv_raw gives them for copying; u32, f32,
bool and string build the scalar ones). Tensors are (name, ne, ggml type, data bytes) in
file order; each one's data starts at a multiple of the alignment (32, no general.alignment
entry), the gaps filled with zero bytes.
"""

from __future__ import annotations

import struct
from pathlib import Path

ALIGNMENT = 32
_U32, _F32, _BOOL, _STRING = 4, 6, 7, 8


def _string(s: str) -> bytes:
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def u32(v: int) -> bytes:
    return struct.pack("<II", _U32, v)


def f32(v: float) -> bytes:
    return struct.pack("<If", _F32, v)


def boolean(v: bool) -> bytes:
    return struct.pack("<I?", _BOOL, v)


def string(v: str) -> bytes:
    return struct.pack("<I", _STRING) + _string(v)


def _pad(n: int) -> int:
    return (ALIGNMENT - n % ALIGNMENT) % ALIGNMENT


def write(path: str | Path, kvs: list[tuple[str, bytes]], tensors: list[tuple[str, tuple[int, ...], int, bytes]]):
    head = bytearray(b"GGUF")
    head += struct.pack("<IQQ", 3, len(tensors), len(kvs))
    for key, raw in kvs:
        head += _string(key) + raw
    offset = 0
    for name, ne, ggml_type, data in tensors:
        head += _string(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne)
        head += struct.pack("<IQ", ggml_type, offset)
        offset += len(data) + _pad(len(data))
    head += bytes(_pad(len(head)))
    with open(path, "wb") as out:
        out.write(head)
        for _, _, _, data in tensors:
            out.write(data)
            out.write(bytes(_pad(len(data))))
