"""ggml tensor types to float64 (ggml's block layouts, ggml-common.h / ggml-quants.c).

Types: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K. Every block's values come out exactly as
ggml's dequantization defines them (scale x quant, minus min x dmin for Q4_K), in float64.
"""

from __future__ import annotations

import numpy as np

from gguf_reader import GgufFile, TensorInfo

F32, F16, Q4_0, Q8_0, Q4_K, Q6_K, BF16 = 0, 1, 2, 8, 12, 14, 30
QK_K = 256

# Per type: values per block, bytes per block.
BLOCKS = {F32: (1, 4), F16: (1, 2), BF16: (1, 2), Q8_0: (32, 34), Q4_0: (32, 18), Q4_K: (QK_K, 144),
          Q6_K: (QK_K, 210)}
NAMES = {F32: "F32", F16: "F16", BF16: "BF16", Q8_0: "Q8_0", Q4_0: "Q4_0", Q4_K: "Q4_K", Q6_K: "Q6_K"}


def _half(b: np.ndarray) -> np.ndarray:
    """Little-endian byte pairs (last axis of 2) as float64 halves."""
    return np.ascontiguousarray(b).view("<f2")[..., 0].astype(np.float64)


def _q8_0(b: np.ndarray) -> np.ndarray:
    d = _half(b[:, 0:2])
    q = b[:, 2:34].view(np.int8).astype(np.float64)
    return d[:, None] * q


def _q4_0(b: np.ndarray) -> np.ndarray:
    d = _half(b[:, 0:2])
    qs = b[:, 2:18]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float64) - 8  # j and j + 16
    return d[:, None] * q


def _k4_scales(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 12 scale bytes of a Q4_K/Q5_K block: 8 six-bit scales and 8 six-bit mins."""
    s = s.astype(np.int32)
    sc = np.empty((s.shape[0], 8), np.int32)
    mn = np.empty((s.shape[0], 8), np.int32)
    sc[:, :4] = s[:, 0:4] & 63
    mn[:, :4] = s[:, 4:8] & 63
    sc[:, 4:] = (s[:, 8:12] & 0x0F) | ((s[:, 0:4] >> 6) << 4)
    mn[:, 4:] = (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)
    return sc, mn


def _q4_k(b: np.ndarray) -> np.ndarray:
    d, dmin = _half(b[:, 0:2]), _half(b[:, 2:4])
    sc, mn = _k4_scales(b[:, 4:16])
    qs = b[:, 16:144].reshape(-1, 4, 32)  # 4 chunks of 32 bytes: 64 values each
    q = np.stack([qs & 0x0F, qs >> 4], axis=2).reshape(-1, 8, 32).astype(np.float64)  # sub-block 2c, 2c + 1
    return (d[:, None, None] * sc[:, :, None] * q - dmin[:, None, None] * mn[:, :, None]).reshape(-1, QK_K)


def _q6_k(b: np.ndarray) -> np.ndarray:
    ql = b[:, 0:128].reshape(-1, 2, 64).astype(np.int32)
    qh = b[:, 128:192].reshape(-1, 2, 32).astype(np.int32)
    sc = b[:, 192:208].view(np.int8).astype(np.float64).reshape(-1, 2, 8)
    d = _half(b[:, 208:210])
    out = np.empty((b.shape[0], 2, 4, 32), np.float64)  # halves of 128, quarters of 32
    lo, hi = ql[:, :, 0:32], ql[:, :, 32:64]
    parts = [(lo & 0x0F) | ((qh & 3) << 4), (hi & 0x0F) | (((qh >> 2) & 3) << 4),
             (lo >> 4) | (((qh >> 4) & 3) << 4), (hi >> 4) | (((qh >> 6) & 3) << 4)]
    for k, q in enumerate(parts):
        # Scale index within the half: 2k for values 0..15 of the quarter, 2k + 1 for 16..31.
        s = np.repeat(sc[:, :, 2 * k:2 * k + 2], 16, axis=2)
        out[:, :, k, :] = d[:, None, None] * s * (q - 32)
    return out.reshape(-1, QK_K)


_BLOCK_FNS = {Q8_0: _q8_0, Q4_0: _q4_0, Q4_K: _q4_k, Q6_K: _q6_k}


def tensor(f: GgufFile, name: str) -> np.ndarray:
    """The tensor as float64, numpy shape ne reversed (rows of ne[0] values)."""
    info: TensorInfo = f.tensors[name]
    if info.type not in BLOCKS:
        raise ValueError(f"{name}: ggml type {info.type} is not supported")
    n = int(np.prod(info.ne))
    per, size = BLOCKS[info.type]
    raw = np.frombuffer(f.tensor_bytes(info, n // per * size), np.uint8)
    if info.type == F32:
        v = raw.view("<f4").astype(np.float64)
    elif info.type == F16:
        v = raw.view("<f2").astype(np.float64)
    elif info.type == BF16:
        v = (raw.view("<u2").astype(np.uint32) << 16).view("<f4").astype(np.float64)
    else:
        v = _BLOCK_FNS[info.type](raw.reshape(-1, size)).reshape(-1)
    return v.reshape(tuple(reversed(info.ne)))
