"""A small llama-architecture decoder in PyTorch, laid out exactly as llama.cpp runs arch `llama`.

RMSNorm -> attention (GQA, RoPE) -> residual -> RMSNorm -> SwiGLU FFN -> residual, a final
RMSNorm and an output projection. RoPE is llama.cpp's *normal* (non-NeoX) rotation: dimension
pairs (2i, 2i+1) of each head are rotated by pos * base^(-2i/head_dim). Because this model is
trained with that layout directly, export_gguf.py writes Q and K without the permutation
that llama.cpp's converter applies to Hugging Face (rotate_half / NeoX-style) checkpoints.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    n_vocab: int = 4096
    n_ctx: int = 512
    d_model: int = 256
    n_layer: int = 6
    n_head: int = 8
    n_kv_head: int = 2
    d_ff: int = 704
    rope_base: float = 10000.0
    norm_eps: float = 1e-5
    tie_embeddings: bool = True

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_head

    def to_dict(self) -> dict:
        return asdict(self)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.type_as(x) * self.weight


def rope_tables(cfg: Config, n_pos: int) -> tuple[torch.Tensor, torch.Tensor]:
    """cos/sin of shape (n_pos, head_dim/2) for llama.cpp's normal RoPE."""
    inv = cfg.rope_base ** (-torch.arange(0, cfg.head_dim, 2, dtype=torch.float64) / cfg.head_dim)
    ang = torch.arange(n_pos, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cos(ang).float(), torch.sin(ang).float()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x: (B, H, T, D); rotates adjacent pairs (x[2i], x[2i+1])."""
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[: x.shape[2]].to(x.dtype), sin[: x.shape[2]].to(x.dtype)
    r0 = x0 * c - x1 * s
    r1 = x0 * s + x1 * c
    return torch.stack((r0, r1), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        hd = cfg.head_dim
        self.cfg = cfg
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.wq = nn.Linear(cfg.d_model, cfg.n_head * hd, bias=False)
        self.wk = nn.Linear(cfg.d_model, cfg.n_kv_head * hd, bias=False)
        self.wv = nn.Linear(cfg.d_model, cfg.n_kv_head * hd, bias=False)
        self.wo = nn.Linear(cfg.n_head * hd, cfg.d_model, bias=False)
        self.ffn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.w_gate = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.w_up = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.w_down = nn.Linear(cfg.d_ff, cfg.d_model, bias=False)

    def forward(self, x, cos, sin):
        return self.step(x, cos, sin, [])

    def step(self, x, cos, sin, past):
        """The block over the T newest positions, attending causally to them and to the
        earlier keys/values in `past` (a [k, v] pair, updated in place; an empty list at the
        start, which is forward()). cos/sin: the RoPE rows of those positions. torch 1.13
        has no fused attention: softmax(q k^T / sqrt(d) + mask) v by hand."""
        cfg = self.cfg
        B, T, _ = x.shape
        h = self.attn_norm(x)
        q = self.wq(h).view(B, T, cfg.n_head, cfg.head_dim).transpose(1, 2)
        k = self.wk(h).view(B, T, cfg.n_kv_head, cfg.head_dim).transpose(1, 2)
        v = self.wv(h).view(B, T, cfg.n_kv_head, cfg.head_dim).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if past:
            k, v = torch.cat((past[0], k), dim=2), torch.cat((past[1], v), dim=2)
        past[:] = [k, v]
        rep = cfg.n_head // cfg.n_kv_head
        if rep > 1:
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        S = k.shape[2]
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(cfg.head_dim))
        mask = torch.ones(T, S, dtype=torch.bool).triu(S - T + 1)
        a = torch.softmax(att.masked_fill(mask, float("-inf")).float(), dim=-1).type_as(v) @ v
        x = x + self.wo(a.transpose(1, 2).reshape(B, T, -1))
        h = self.ffn_norm(x)
        return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))


class Llama(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg
        self.tok_embd = nn.Embedding(cfg.n_vocab, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.out_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.output = nn.Linear(cfg.d_model, cfg.n_vocab, bias=False)
        if cfg.tie_embeddings:
            self.output.weight = self.tok_embd.weight
        cos, sin = rope_tables(cfg, cfg.n_ctx)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.apply(self._init)
        # GPT-2 style: scale the residual-writing projections by depth.
        for b in self.blocks:
            for lin in (b.wo, b.w_down):
                nn.init.normal_(lin.weight, std=0.02 / math.sqrt(2 * cfg.n_layer))

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """idx: (B, T) token ids -> logits (B, T, n_vocab)."""
        T = idx.shape[1]
        if T > self.cos.shape[0]:
            cos, sin = rope_tables(self.cfg, T)
        else:
            cos, sin = self.cos, self.sin
        x = self.tok_embd(idx)
        for b in self.blocks:
            x = b(x, cos, sin)
        return self.output(self.out_norm(x))

    def decode_step(self, idx: torch.Tensor, cache: list) -> torch.Tensor:
        """Logits of the last of the new tokens idx (B, T), continuing the sequence whose
        keys/values `cache` holds (a list, empty at the start, updated in place): what
        inference does, one forward over the new tokens only."""
        if not cache:
            cache.extend([] for _ in self.blocks)
            cache.append(0)  # positions done
        start, T = cache[-1], idx.shape[1]
        cos, sin = rope_tables(self.cfg, start + T) if start + T > self.cos.shape[0] else (self.cos, self.sin)
        cos, sin = cos[start:start + T], sin[start:start + T]
        x = self.tok_embd(idx)
        for b, past in zip(self.blocks, cache):
            x = b.step(x, cos, sin, past)
        cache[-1] = start + T
        return self.output(self.out_norm(x[:, -1:]))[:, -1]
