"""The llama / qwen2 forward pass in float64 over a GGUF's dequantized weights.

Per layer: RMSNorm, Q/K/V projections (qwen2: plus their biases), RoPE, causal attention
with grouped-query heads (query head h reads key/value head h // (n_head / n_head_kv)),
scaled by 1/sqrt(head_dim), the output projection, a residual; RMSNorm, SwiGLU
(silu(gate) * up, then down), a residual. Then the output norm and the output matrix
(token_embd when output.weight is absent: tied). RoPE as the architecture says (llama.cpp's
llama_model_rope_type): llama rotates adjacent pairs (2i, 2i + 1), qwen2 the NeoX pairs
(i, i + n_rot / 2), by pos x freq_base^(-2i / n_rot) (rope.dimension_count, default the head
size; rope.freq_base, default 10000).

ggml=True rounds each matmul's input the way ggml-cpu does and computes the RoPE angles in
float32 as ggml does (ggml_rounding.py): only to check this code against llama.cpp's
logits. The exact arithmetic is ggml=False.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import dequant as dq
from gguf_reader import GgufFile
from ggml_rounding import round_input

NEOX_ARCHS = {"qwen2"}
SUPPORTED = {"llama", "qwen2"}


class Float64Model:
    def __init__(self, path: str | Path, ggml: bool = False):
        f = GgufFile(path)
        kv = f.kv
        arch = kv["general.architecture"]
        if arch not in SUPPORTED:
            raise ValueError(f"{path}: architecture {arch} is not llama or qwen2")
        self.neox = arch in NEOX_ARCHS
        self.n_layer = int(kv[f"{arch}.block_count"])
        self.n_head = int(kv[f"{arch}.attention.head_count"])
        self.n_head_kv = int(kv.get(f"{arch}.attention.head_count_kv", self.n_head))
        self.n_embd = int(kv[f"{arch}.embedding_length"])
        self.head_dim = int(kv.get(f"{arch}.attention.key_length", self.n_embd // self.n_head))
        self.n_rot = int(kv.get(f"{arch}.rope.dimension_count", self.head_dim))
        self.freq_base = float(kv.get(f"{arch}.rope.freq_base", 10000.0))
        self.eps = float(kv[f"{arch}.attention.layer_norm_rms_epsilon"])
        self.ggml = ggml
        self.w = {name: dq.tensor(f, name) for name in f.tensors}
        self.types = {name: info.type for name, info in f.tensors.items()}
        if "output.weight" not in self.w:
            self.w["output.weight"] = self.w["token_embd.weight"]
            self.types["output.weight"] = self.types["token_embd.weight"]
        self.n_vocab = self.w["output.weight"].shape[0]

    def _norm(self, x: np.ndarray, weight: str) -> np.ndarray:
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + self.eps) * self.w[weight]

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        if self.ggml:
            x = round_input(x, self.types[name + ".weight"])
        y = x @ self.w[name + ".weight"].T
        if name + ".bias" in self.w:
            y = y + self.w[name + ".bias"]
        return y

    def _angles(self, n: int) -> np.ndarray:
        """(n, n_rot / 2): position p's angle for pair i."""
        half = self.n_rot // 2
        if not self.ggml:
            inv = self.freq_base ** (-2.0 * np.arange(half) / self.n_rot)
            return np.arange(n)[:, None] * inv[None, :]
        # ggml: theta_i = p * theta_scale^i, each step a float32 multiply.
        scale = np.float32(np.power(np.float32(self.freq_base), np.float32(-2.0 / self.n_rot)))
        theta = np.empty((n, half), np.float32)
        theta[:, 0] = np.arange(n, dtype=np.float32)
        for i in range(1, half):
            theta[:, i] = theta[:, i - 1] * scale
        return theta.astype(np.float64)

    def _rope(self, x: np.ndarray, angles: np.ndarray) -> np.ndarray:
        """x: (n, heads, head_dim), rotated in its first n_rot dimensions."""
        half = self.n_rot // 2
        c, s = np.cos(angles)[:, None, :], np.sin(angles)[:, None, :]
        out = x.copy()
        if self.neox:
            a, b = x[..., :half], x[..., half:self.n_rot]
            out[..., :half], out[..., half:self.n_rot] = a * c - b * s, a * s + b * c
        else:
            a, b = x[..., 0:self.n_rot:2], x[..., 1:self.n_rot:2]
            out[..., 0:self.n_rot:2], out[..., 1:self.n_rot:2] = a * c - b * s, a * s + b * c
        return out

    def logits(self, tokens: list[int]) -> np.ndarray:
        """(len(tokens), n_vocab): the logits after each prefix of tokens."""
        n, hd = len(tokens), self.head_dim
        group = self.n_head // self.n_head_kv
        angles = self._angles(n)
        mask = np.triu(np.full((n, n), -np.inf), 1)
        x = self.w["token_embd.weight"][np.asarray(tokens)]
        for layer in range(self.n_layer):
            p = f"blk.{layer}."
            h = self._norm(x, p + "attn_norm.weight")
            q = self._rope(self._linear(h, p + "attn_q").reshape(n, self.n_head, hd), angles)
            k = self._rope(self._linear(h, p + "attn_k").reshape(n, self.n_head_kv, hd), angles)
            v = self._linear(h, p + "attn_v").reshape(n, self.n_head_kv, -1)
            k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
            scores = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(hd) + mask
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            attn = np.einsum("hqk,khd->qhd", scores, v).reshape(n, -1)
            x = x + self._linear(attn, p + "attn_output")
            h = self._norm(x, p + "ffn_norm.weight")
            gate, up = self._linear(h, p + "ffn_gate"), self._linear(h, p + "ffn_up")
            x = x + self._linear(gate / (1.0 + np.exp(-gate)) * up, p + "ffn_down")
        return self._linear(self._norm(x, "output_norm.weight"), "output")
