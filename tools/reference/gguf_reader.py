"""A minimal GGUF reader: header, metadata, tensor infos and the aligned data section.

Layout (ggml's docs/gguf.md), little-endian throughout: magic "GGUF", u32 version, u64 tensor
count, u64 metadata count; each metadata entry is a string key, a u32 value type and the
value (strings are a u64 length and UTF-8 bytes; arrays a u32 element type, a u64 count and
the elements); each tensor info is its name, u32 n_dims, u64 ne[n_dims] (ne[0] the row
length), u32 ggml type and u64 offset into the data section. The data section starts at the
next multiple of general.alignment (32 when absent) after the infos.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


@dataclass
class TensorInfo:
    name: str
    ne: tuple[int, ...]  # ne[0] is the row length
    type: int            # ggml type id
    offset: int          # from the start of the data section


class GgufFile:
    def __init__(self, path: str | Path):
        self.data = Path(path).read_bytes()
        self.pos = 0
        if self.data[:4] != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        self.pos = 4
        self.version = self._scalar("<I")
        if self.version not in (2, 3):
            raise ValueError(f"{path}: GGUF version {self.version}")
        n_tensors, n_kv = self._scalar("<Q"), self._scalar("<Q")
        self.kv: dict[str, object] = {}
        self.kv_raw: dict[str, bytes] = {}  # each entry's value type and value, as stored
        for _ in range(n_kv):
            key = self._string()
            start = self.pos
            self.kv[key] = self._value(self._scalar("<I"))
            self.kv_raw[key] = bytes(self.data[start:self.pos])
        self.tensors: dict[str, TensorInfo] = {}
        for _ in range(n_tensors):
            name = self._string()
            n_dims = self._scalar("<I")
            ne = tuple(self._scalar("<Q") for _ in range(n_dims))
            self.tensors[name] = TensorInfo(name, ne, self._scalar("<I"), self._scalar("<Q"))
        align = int(self.kv.get("general.alignment", 32))
        self.data_start = (self.pos + align - 1) // align * align

    def _scalar(self, fmt: str):
        (v,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v

    def _string(self) -> str:
        n = self._scalar("<Q")
        s = self.data[self.pos:self.pos + n].decode("utf-8", errors="replace")
        self.pos += n
        return s

    def _value(self, vtype: int):
        if vtype in _SCALARS:
            return self._scalar(_SCALARS[vtype])
        if vtype == _STRING:
            return self._string()
        if vtype == _ARRAY:
            etype, n = self._scalar("<I"), self._scalar("<Q")
            return [self._value(etype) for _ in range(n)]
        raise ValueError(f"unknown GGUF value type {vtype}")

    def tensor_bytes(self, info: TensorInfo, n_bytes: int) -> memoryview:
        start = self.data_start + info.offset
        return memoryview(self.data)[start:start + n_bytes]
