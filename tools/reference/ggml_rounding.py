"""The roundings ggml-cpu applies to a matmul's activations, for checking the float64
forward pass against llama.cpp's logits (not part of the exact arithmetic).

ggml-cpu converts a matmul's input to the weight's "vec_dot" type first: F16 weights take
F16 activations, BF16 weights BF16 (round to nearest even), Q8_0/Q4_0 weights Q8_0 blocks
(32 values, d = amax / 127 stored as F16, q = round(x / d)), K-quants Q8_K blocks (256
values, float d = max / -127 with max the element of largest magnitude, q = round(x / d)
clamped to 127). F32 weights take F32 activations.
"""

from __future__ import annotations

import numpy as np

import dequant as dq


def _q8_0(x: np.ndarray) -> np.ndarray:
    b = x.astype(np.float32).reshape(-1, 32)
    d = np.abs(b).max(axis=1) / np.float32(127)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.rint(b * inv[:, None])
    return (q.astype(np.float64) * d.astype(np.float16).astype(np.float64)[:, None]).reshape(x.shape)


def _q8_k(x: np.ndarray) -> np.ndarray:
    b = x.astype(np.float32).reshape(-1, dq.QK_K)
    mx = np.take_along_axis(b, np.abs(b).argmax(axis=1)[:, None], axis=1)[:, 0]
    iscale = np.divide(np.float32(-127), mx, out=np.zeros_like(mx), where=mx != 0)
    q = np.minimum(np.rint(b * iscale[:, None]), 127)
    d = np.divide(np.float32(1), iscale, out=np.zeros_like(iscale), where=iscale != 0)
    return (q.astype(np.float64) * d.astype(np.float64)[:, None]).reshape(x.shape)


def _bf16(x: np.ndarray) -> np.ndarray:
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def round_input(x: np.ndarray, weight_type: int) -> np.ndarray:
    """x (rows of activations) as ggml-cpu hands it to a matmul with weights of weight_type."""
    if weight_type in (dq.Q8_0, dq.Q4_0):
        return _q8_0(x)
    if weight_type in (dq.Q4_K, dq.Q6_K):
        return _q8_k(x)
    if weight_type == dq.F16:
        return x.astype(np.float16).astype(np.float64)
    if weight_type == dq.BF16:
        return _bf16(x)
    return x.astype(np.float32).astype(np.float64)
