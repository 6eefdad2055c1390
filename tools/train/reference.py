"""Independent numpy forward pass over an exported GGUF (arch `llama`), for checking exports.

Written from llama.cpp's semantics, not from model.py: weights are read back from the file
(F16/Q8_0 dequantized to float32), the math is done in float64, and RoPE uses the original
LLaMA formulation — each (2i, 2i+1) pair of a head is a complex number multiplied by
e^{i * pos * base^(-2i/n_rot)} — which is what llama.cpp's "normal" RoPE computes. If this
agrees with the PyTorch model and with wafer's engine, the export's layout is right.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gguf import GGUFFile


class ReferenceLlama:
    def __init__(self, path: Path):
        f = GGUFFile(path)
        kv = f.kv
        self.n_layer = kv["llama.block_count"]
        self.n_head = kv["llama.attention.head_count"]
        self.n_kv = kv.get("llama.attention.head_count_kv", self.n_head)
        self.d = kv["llama.embedding_length"]
        self.hd = self.d // self.n_head
        self.n_rot = kv.get("llama.rope.dimension_count", self.hd)
        self.base = kv.get("llama.rope.freq_base", 10000.0)
        self.eps = kv.get("llama.attention.layer_norm_rms_epsilon", 1e-5)
        self.w = {name: f.tensor(name).astype(np.float64) for name in f.infos}
        if "output.weight" not in self.w:
            self.w["output.weight"] = self.w["token_embd.weight"]

    def _norm(self, x, weight):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + self.eps) * weight

    def _rope(self, x):
        """x: (T, H, hd) -> rotated, positions 0..T-1."""
        T = x.shape[0]
        half = self.n_rot // 2
        freqs = self.base ** (-np.arange(half) * 2.0 / self.n_rot)
        rot = np.exp(1j * np.outer(np.arange(T), freqs))[:, None, :]     # (T, 1, half)
        z = x[..., 0:self.n_rot:2] + 1j * x[..., 1:self.n_rot:2]
        z = z * rot
        out = x.copy()
        out[..., 0:self.n_rot:2] = z.real
        out[..., 1:self.n_rot:2] = z.imag
        return out

    def logits(self, ids: list[int]) -> np.ndarray:
        """(T, n_vocab) logits for every prompt position."""
        w, T = self.w, len(ids)
        x = w["token_embd.weight"][ids]
        mask = np.triu(np.full((T, T), -np.inf), 1)
        group = self.n_head // self.n_kv
        for layer in range(self.n_layer):
            b = f"blk.{layer}."
            h = self._norm(x, w[b + "attn_norm.weight"])
            q = (h @ w[b + "attn_q.weight"].T).reshape(T, self.n_head, self.hd)
            k = (h @ w[b + "attn_k.weight"].T).reshape(T, self.n_kv, self.hd)
            v = (h @ w[b + "attn_v.weight"].T).reshape(T, self.n_kv, self.hd)
            q, k = self._rope(q), self._rope(k)
            heads = []
            for hi in range(self.n_head):
                kh, vh = k[:, hi // group], v[:, hi // group]
                s = q[:, hi] @ kh.T / np.sqrt(self.hd) + mask
                s = np.exp(s - s.max(-1, keepdims=True))
                heads.append((s / s.sum(-1, keepdims=True)) @ vh)
            x = x + np.concatenate(heads, -1) @ w[b + "attn_output.weight"].T
            h = self._norm(x, w[b + "ffn_norm.weight"])
            g = h @ w[b + "ffn_gate.weight"].T
            u = h @ w[b + "ffn_up.weight"].T
            x = x + (g / (1 + np.exp(-g)) * u) @ w[b + "ffn_down.weight"].T
        return self._norm(x, w["output_norm.weight"]) @ w["output.weight"].T
