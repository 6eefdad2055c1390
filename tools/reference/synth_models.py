#!/usr/bin/python3
"""Regenerates the larger synthetic reference models (F32, F16, BF16, Q8_0) from their recipe,
so that a clone without the shared test data still runs the tests that need them.

usage: synth_models.py TESTDATA_DIR OUT_DIR [STEM ...]

TESTDATA_DIR is the repository's tests/data: the model's llama.cpp JSON
(reference/STEM.json: its hparams, tokenizer_kv and tensors, with ggml type and ne, in file
order) gives the file's structure; the tokenizer metadata is copied from a vocabulary GGUF
there (llama-spm: tokenizer/ggml-vocab-llama-spm.gguf; qwen2: the one embedded in
reference/tiny-qwen2-q8_0.gguf). Writes OUT_DIR/STEM.gguf for each STEM (default: all of
RECIPES), through a temporary name, so a file there is always whole, and only when its
sha256 is the model_sha256 the JSON records for the file llama.cpp read: the regenerated
model is that file, byte for byte.

The recipe (tests/data/reference/README.md): numpy default_rng(seed), each tensor
standard_normal(shape, dtype=float32) * std with shape = reversed ne, drawn in the order
token_embd; per layer attn_norm, attn_q, attn_k, attn_v, (attn_q/k/v biases), attn_output,
ffn_norm, ffn_gate, ffn_up, ffn_down; output_norm; output (when the model has one). Stds:
token_embd as the recipe says, other 2-D weights 0.15, norm weights 1 + 0.1 N(0,1), biases
0.1. F16 tensors are the float32 values rounded to half by numpy; BF16 ones (made by
llama-quantize from the F32 original) are each float32 rounded to the nearest bfloat16, ties
to even. Q8_0 ones (llama-quantize Q8_0 of the F32 original) are ggml's reference
quantizer, quantize_row_q8_0_ref: per block of 32 values along a row, float32 d = amax / 127,
id = 1 / d (0 when d is 0), the block's fp16 scale d rounded to half (nearest, ties to even),
then 32 int8 q = roundf(x * id) (float32 product, halves away from zero). A file made by
llama-quantize has its general.file_type moved to the end, after general.quantization_version
= 2, as llama-quantize writes them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import gguf_writer as gw
from gguf_reader import GgufFile

GGML_TYPES = {"F32": 0, "F16": 1, "Q8_0": 8, "BF16": 30}
QK8_0 = 32
LLAMA_SPM = "tokenizer/ggml-vocab-llama-spm.gguf"
QWEN2 = "reference/tiny-qwen2-q8_0.gguf"


@dataclass(frozen=True)
class Recipe:
    seed: int
    token_embd_std: float
    vocabulary: str       # the GGUF under TESTDATA_DIR whose tokenizer.* entries the model has
    quantized: bool       # written by llama-quantize from an F32 original


RECIPES = {
    "tiny-llama-f32": Recipe(42, 1.0, LLAMA_SPM, False),
    "tiny-qwen2-f16": Recipe(43, 1.0, QWEN2, False),
    "small-llama-bf16": Recipe(44, 0.5, LLAMA_SPM, True),  # small-llama-tied
    "tiny-llama-q8_0": Recipe(42, 1.0, LLAMA_SPM, True),
}

LAYER_ORDER = ["attn_norm.weight", "attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_q.bias",
               "attn_k.bias", "attn_v.bias", "attn_output.weight", "ffn_norm.weight", "ffn_gate.weight",
               "ffn_up.weight", "ffn_down.weight"]


def draw_order(n_layer: int) -> list[str]:
    names = ["token_embd.weight"]
    for i in range(n_layer):
        names += [f"blk.{i}.{n}" for n in LAYER_ORDER]
    return names + ["output_norm.weight", "output.weight"]


def draw(rng: np.random.Generator, name: str, shape: tuple[int, ...], recipe: Recipe) -> np.ndarray:
    x = rng.standard_normal(shape, dtype=np.float32)
    if name == "token_embd.weight":
        return x * np.float32(recipe.token_embd_std)
    if name.endswith("norm.weight"):
        return np.float32(1) + np.float32(0.1) * x
    if name.endswith(".bias"):
        return x * np.float32(0.1)
    return x * np.float32(0.15)


def to_bf16(x: np.ndarray) -> np.ndarray:
    """Each float32 to the nearest bfloat16, ties to even (no NaNs here)."""
    u = x.astype("<f4").view("<u4").astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def to_q8_0(x: np.ndarray) -> bytes:
    """Rows of float32 (length a multiple of 32) as ggml's quantize_row_q8_0_ref writes them:
    per block of 32, fp16 d then 32 int8."""
    b = x.astype(np.float32).reshape(-1, QK8_0)
    d = np.abs(b).max(axis=1) / np.float32(127)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    v = b * inv[:, None]
    whole = np.trunc(v)
    # roundf: a fraction of exactly one half goes away from zero (np.rint would go to even);
    # v - trunc(v) is exact, so no sum can round up across the half.
    q = whole + np.sign(v) * (np.abs(v - whole) >= np.float32(0.5))
    blocks = np.empty(len(b), dtype=[("d", "<f2"), ("qs", "i1", (QK8_0,))])
    blocks["d"] = d.astype(np.float16)
    blocks["qs"] = q.astype(np.int8)
    return blocks.tobytes()


def encode(x: np.ndarray, ggml_type: str) -> bytes:
    if ggml_type == "F32":
        return x.astype("<f4").tobytes()
    if ggml_type == "F16":
        return x.astype("<f2").tobytes()
    if ggml_type == "BF16":
        return to_bf16(x).tobytes()
    if ggml_type == "Q8_0":
        return to_q8_0(x)
    raise ValueError(f"no recipe for ggml type {ggml_type}")


def typed(value) -> bytes:
    if isinstance(value, bool):
        return gw.boolean(value)
    if isinstance(value, int):
        return gw.u32(value)
    if isinstance(value, float):
        return gw.f32(value)
    if isinstance(value, str):
        return gw.string(value)
    raise ValueError(f"no GGUF type for {value!r}")


def metadata(ref: dict, recipe: Recipe, vocab: GgufFile) -> list[tuple[str, bytes]]:
    """general.architecture, the hparams, the vocabulary's tokenizer.* entries, then
    {arch}.vocab_size (as the writer puts it after the tokenizer) and, for a quantized file,
    general.quantization_version and general.file_type."""
    arch = ref["architecture"]
    hparams = ref["hparams"]
    late = {f"{arch}.vocab_size"} | ({"general.file_type"} if recipe.quantized else set())
    kvs = [("general.architecture", gw.string(arch))]
    kvs += [(k, typed(v)) for k, v in hparams.items() if k not in late]
    for k, v in ref["tokenizer_kv"].items():
        if vocab.kv.get(k) != v:
            raise ValueError(f"{k}: the JSON says {v!r}, the vocabulary {vocab.kv.get(k)!r}")
    kvs += [(k, raw) for k, raw in vocab.kv_raw.items() if k.startswith("tokenizer.")]
    if f"{arch}.vocab_size" in hparams:
        kvs.append((f"{arch}.vocab_size", typed(hparams[f"{arch}.vocab_size"])))
    if recipe.quantized:
        kvs += [("general.quantization_version", gw.u32(2)), ("general.file_type", typed(hparams["general.file_type"]))]
    return kvs


def tensors(ref: dict, recipe: Recipe) -> list[tuple[str, tuple[int, ...], int, bytes]]:
    """The JSON's tensors in file order, their values drawn in the recipe's order."""
    listed = {t["name"]: t for t in ref["tensors"]}
    rng = np.random.default_rng(recipe.seed)
    data = {}
    for name in draw_order(ref["hparams"][f"{ref['architecture']}.block_count"]):
        if name not in listed:
            continue  # (no biases in llama, no output.weight in a tied model)
        t = listed[name]
        data[name] = encode(draw(rng, name, tuple(reversed(t["ne"])), recipe), t["type"])
        if len(data[name]) != t["n_bytes"]:
            raise ValueError(f"{name}: {len(data[name])} bytes, the JSON says {t['n_bytes']}")
    missing = set(listed) - set(data)
    if missing:
        raise ValueError(f"no recipe for {sorted(missing)}")
    return [(t["name"], tuple(t["ne"]), GGML_TYPES[t["type"]], data[t["name"]]) for t in ref["tensors"]]


def synthesize(testdata: Path, stem: str, out: Path):
    recipe = RECIPES[stem]
    ref = json.loads((testdata / "reference" / f"{stem}.json").read_text(encoding="utf-8"))
    vocab = GgufFile(testdata / recipe.vocabulary)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        gw.write(tmp, metadata(ref, recipe, vocab), tensors(ref, recipe))
        got = hashlib.sha256(tmp.read_bytes()).hexdigest()
        if got != ref["model_sha256"]:
            raise ValueError(f"{stem}: sha256 {got}, not the model_sha256 {ref['model_sha256']} of its JSON "
                             f"(numpy {np.__version__}: has its random stream changed?)")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    testdata, out_dir = Path(argv[0]), Path(argv[1])
    stems = argv[2:] or list(RECIPES)
    unknown = [s for s in stems if s not in RECIPES]
    if unknown:
        print(f"synth_models: no recipe for {', '.join(unknown)} (known: {', '.join(RECIPES)})", file=sys.stderr)
        return 2
    out_dir.mkdir(parents=True, exist_ok=True)
    for stem in stems:
        synthesize(testdata, stem, out_dir / f"{stem}.gguf")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
