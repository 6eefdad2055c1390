"""Minimal GGUF v3 writer and reader (numpy only) for the bundled model.

Format (ggml's gguf.h / docs/gguf.md): little-endian; magic "GGUF", u32 version 3,
u64 tensor count, u64 key/value count; key/values (string key, u32 type, value);
tensor infos (name, u32 n_dims, u64 ne[n_dims] with ne[0] the fastest-varying dimension —
i.e. numpy's shape reversed —, u32 ggml type, u64 offset into the data section); padding to
general.alignment (32); tensor data, each tensor starting at a multiple of the alignment.

Tensor types written: F32, F16 and Q8_0 (blocks of 32 values: f16 scale d = amax/127, then
32 int8 q = round-half-away-from-zero(x/d)), as ggml's quantize_row_q8_0_ref.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

GGUF_MAGIC = b"GGUF"
GGUF_VERSION = 3
ALIGNMENT = 32

# Value types.
T_UINT8, T_INT8, T_UINT16, T_INT16, T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY, \
    T_UINT64, T_INT64, T_FLOAT64 = range(13)
_SCALAR = {T_UINT8: "<B", T_INT8: "<b", T_UINT16: "<H", T_INT16: "<h", T_UINT32: "<I",
           T_INT32: "<i", T_FLOAT32: "<f", T_BOOL: "<?", T_UINT64: "<Q", T_INT64: "<q",
           T_FLOAT64: "<d"}

# ggml tensor types.
GGML_F32, GGML_F16, GGML_Q8_0 = 0, 1, 8
QK8_0 = 32


def quantize_q8_0(x: np.ndarray) -> bytes:
    """Rows of x (last dim a multiple of 32) -> Q8_0 blocks, as ggml's reference quantizer."""
    flat = np.ascontiguousarray(x, dtype=np.float32).reshape(-1, QK8_0)
    amax = np.abs(flat).max(axis=1)
    d = amax / 127.0
    inv = np.divide(1.0, d, out=np.zeros_like(d), where=d != 0)
    v = flat * inv[:, None]
    q = (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int8)   # roundf: half away from 0
    out = np.empty(len(flat), dtype=[("d", "<f2"), ("qs", "i1", (QK8_0,))])
    out["d"] = d.astype(np.float16)
    out["qs"] = q
    return out.tobytes()


def dequantize_q8_0(raw: bytes, shape) -> np.ndarray:
    blocks = np.frombuffer(raw, dtype=[("d", "<f2"), ("qs", "i1", (QK8_0,))])
    vals = blocks["qs"].astype(np.float32) * blocks["d"].astype(np.float32)[:, None]
    return vals.reshape(shape)


def _encode_str(s: str) -> bytes:
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def _encode_value(vtype: int, value, elem_type: int | None = None) -> bytes:
    if vtype == T_STRING:
        return _encode_str(value)
    if vtype == T_ARRAY:
        assert elem_type is not None
        head = struct.pack("<IQ", elem_type, len(value))
        if elem_type == T_STRING:
            return head + b"".join(_encode_str(v) for v in value)
        return head + np.asarray(value, dtype=np.dtype(_SCALAR[elem_type])).tobytes()
    return struct.pack(_SCALAR[vtype], value)


class GGUFWriter:
    """Collect metadata and tensors, then write() the file in one go."""

    def __init__(self):
        self.kv: list[tuple[str, int, object, int | None]] = []
        self.tensors: list[tuple[str, tuple[int, ...], int, bytes]] = []

    def add(self, key: str, vtype: int, value, elem_type: int | None = None) -> None:
        self.kv.append((key, vtype, value, elem_type))

    def add_tensor(self, name: str, array: np.ndarray, ggml_type: int) -> None:
        """array in numpy (row-major) shape; stored with ggml dims = reversed shape."""
        if ggml_type == GGML_F32:
            raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        elif ggml_type == GGML_F16:
            raw = np.ascontiguousarray(array, dtype="<f2").tobytes()
        elif ggml_type == GGML_Q8_0:
            if array.shape[-1] % QK8_0:
                raise ValueError(f"{name}: row length {array.shape[-1]} not a multiple of 32")
            raw = quantize_q8_0(array)
        else:
            raise ValueError(f"unsupported ggml type {ggml_type}")
        self.tensors.append((name, tuple(reversed(array.shape)), ggml_type, raw))

    def write(self, path: Path) -> None:
        head = bytearray(GGUF_MAGIC + struct.pack("<IQQ", GGUF_VERSION, len(self.tensors),
                                                  len(self.kv)))
        for key, vtype, value, elem in self.kv:
            head += _encode_str(key) + struct.pack("<I", vtype) + _encode_value(vtype, value, elem)
        offset = 0
        for name, dims, gtype, raw in self.tensors:
            head += _encode_str(name) + struct.pack("<I", len(dims))
            head += struct.pack(f"<{len(dims)}Q", *dims) + struct.pack("<IQ", gtype, offset)
            offset += (len(raw) + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        head += b"\0" * (-len(head) % ALIGNMENT)
        with open(path, "wb") as f:
            f.write(head)
            for _name, _dims, _gtype, raw in self.tensors:
                f.write(raw)
                f.write(b"\0" * (-len(raw) % ALIGNMENT))


class GGUFFile:
    """Reads a GGUF file written by GGUFWriter (or llama.cpp): .kv dict and .tensor(name)."""

    def __init__(self, path: Path):
        self.data = Path(path).read_bytes()
        self.pos = 0
        if self.data[:4] != GGUF_MAGIC:
            raise ValueError("not a GGUF file")
        self.pos = 4
        version, n_tensors, n_kv = self._unpack("<IQQ")
        if version != GGUF_VERSION:
            raise ValueError(f"GGUF version {version}")
        self.kv = {}
        self.kv_bytes = {}  # key -> its whole record (key, type, value) as stored
        for _ in range(n_kv):
            start = self.pos
            key = self._str()
            (vtype,) = self._unpack("<I")
            self.kv[key] = self._value(vtype)
            self.kv_bytes[key] = self.data[start:self.pos]
        infos_start = self.pos
        self.infos = {}
        for _ in range(n_tensors):
            name = self._str()
            (n_dims,) = self._unpack("<I")
            dims = self._unpack(f"<{n_dims}Q")
            gtype, off = self._unpack("<IQ")
            self.infos[name] = (dims, gtype, off)
        self.info_bytes = self.data[infos_start:self.pos]
        align = self.kv.get("general.alignment", ALIGNMENT)
        self.data_start = (self.pos + align - 1) // align * align

    def _unpack(self, fmt):
        vals = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return vals

    def _str(self) -> str:
        (n,) = self._unpack("<Q")
        s = self.data[self.pos:self.pos + n].decode("utf-8")
        self.pos += n
        return s

    def _value(self, vtype):
        if vtype == T_STRING:
            return self._str()
        if vtype == T_ARRAY:
            elem, n = self._unpack("<IQ")
            return [self._value(elem) for _ in range(n)]
        return self._unpack(_SCALAR[vtype])[0]

    def tensor(self, name: str) -> np.ndarray:
        """Tensor as float32 in numpy shape (reversed ggml dims)."""
        dims, gtype, off = self.infos[name]
        shape = tuple(reversed(dims))
        n = int(np.prod(shape))
        start = self.data_start + off
        if gtype == GGML_F32:
            return np.frombuffer(self.data, "<f4", n, start).reshape(shape).copy()
        if gtype == GGML_F16:
            return np.frombuffer(self.data, "<f2", n, start).astype(np.float32).reshape(shape)
        if gtype == GGML_Q8_0:
            size = n // QK8_0 * (2 + QK8_0)
            return dequantize_q8_0(self.data[start:start + size], shape)
        raise ValueError(f"{name}: unsupported type {gtype}")


def set_keys(src: Path, dst: Path, keys: list[tuple[str, int, object]]) -> None:
    """Writes src to dst with the scalar or string key/values `keys` set (added, or replacing
    a key of the same name); tensor infos and tensor data are copied byte for byte (their
    offsets are relative to the data section, which only moves to the next alignment)."""
    f = GGUFFile(src)
    new = {key: _encode_str(key) + struct.pack("<I", vtype) + _encode_value(vtype, value)
           for key, vtype, value in keys}
    records = [rec for key, rec in f.kv_bytes.items() if key not in new] + list(new.values())
    n_tensors = len(f.infos)
    head = bytearray(GGUF_MAGIC + struct.pack("<IQQ", GGUF_VERSION, n_tensors, len(records)))
    head += b"".join(records) + f.info_bytes
    align = f.kv.get("general.alignment", ALIGNMENT)
    head += b"\0" * (-len(head) % align)
    Path(dst).write_bytes(bytes(head) + f.data[f.data_start:])


_TYPES = {"f32": T_FLOAT32, "u32": T_UINT32, "str": T_STRING}


def main(argv: list[str]) -> int:
    """gguf.py set IN OUT KEY TYPE VALUE [KEY TYPE VALUE ...]   (TYPE: f32, u32 or str)"""
    if len(argv) < 6 or argv[1] != "set" or (len(argv) - 4) % 3:
        print(main.__doc__)
        return 2
    keys = []
    for i in range(4, len(argv), 3):
        key, vtype, text = argv[i:i + 3]
        if vtype not in _TYPES:
            print(f"gguf.py: {key}: type {vtype} is not one of {', '.join(_TYPES)}")
            return 2
        value = float(text) if vtype == "f32" else int(text) if vtype == "u32" else text
        keys.append((key, _TYPES[vtype], value))
    set_keys(Path(argv[2]), Path(argv[3]), keys)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv))
