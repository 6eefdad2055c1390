"""How far one set of logits is from the float64 ones, position by position.

Per position: the top 20 token ids of the float64 logits; over those, the largest |error|
and the root-mean-square error; and whether the two full-vocabulary argmaxes agree. Per
prompt: the median and the worst position of both errors, and the argmax agreements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOP = 20


@dataclass
class Distance:
    median_max: float
    worst_max: float
    median_rms: float
    worst_rms: float
    argmax_agree: int
    positions: int


def distance(logits: np.ndarray, exact: np.ndarray) -> Distance:
    """logits, exact: (positions, n_vocab)."""
    if logits.shape != exact.shape:
        raise ValueError(f"shapes differ: {logits.shape} vs {exact.shape}")
    top = np.argsort(-exact, axis=1, kind="stable")[:, :TOP]
    err = np.take_along_axis(logits.astype(np.float64), top, axis=1) - np.take_along_axis(exact, top, axis=1)
    mx = np.abs(err).max(axis=1)
    rms = np.sqrt((err * err).mean(axis=1))
    agree = int((logits.argmax(axis=1) == exact.argmax(axis=1)).sum())
    return Distance(float(np.median(mx)), float(mx.max()), float(np.median(rms)), float(rms.max()), agree,
                    logits.shape[0])
