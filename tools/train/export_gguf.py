"""Export a trained checkpoint (train.py's final.pt / ckpt.pt) to GGUF for wafer / llama.cpp.

Arch `llama` metadata, the tokenizer (gpt2 model, qwen2 pre-tokenizer, FIM token ids) and
llama.cpp's tensor names. 2-D weights are F16 or Q8_0, norms F32. Q and K are written
as trained: model.py already uses llama.cpp's normal RoPE pairing, so the permutation
convert_hf_to_gguf.py applies to Hugging Face checkpoints must *not* be applied here.
With tied embeddings no output.weight is written (llama.cpp and wafer then reuse
token_embd.weight).

Usage: /usr/bin/python3 tools/train/export_gguf.py CKPT TOKENIZER.json OUT.gguf [--type q8_0|f16]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gguf  # noqa: E402
from bpe import SPECIAL_TOKENS, Tokenizer  # noqa: E402

FILE_TYPE = {"f16": 1, "q8_0": 7}     # llama_ftype: MOSTLY_F16, MOSTLY_Q8_0
WEIGHT_TYPE = {"f16": gguf.GGML_F16, "q8_0": gguf.GGML_Q8_0}

# model.py parameter name -> llama.cpp tensor name ("{}" = layer index)
TENSOR_NAMES = {
    "tok_embd.weight": "token_embd.weight",
    "out_norm.weight": "output_norm.weight",
    "output.weight": "output.weight",
    "blocks.{}.attn_norm.weight": "blk.{}.attn_norm.weight",
    "blocks.{}.wq.weight": "blk.{}.attn_q.weight",
    "blocks.{}.wk.weight": "blk.{}.attn_k.weight",
    "blocks.{}.wv.weight": "blk.{}.attn_v.weight",
    "blocks.{}.wo.weight": "blk.{}.attn_output.weight",
    "blocks.{}.ffn_norm.weight": "blk.{}.ffn_norm.weight",
    "blocks.{}.w_gate.weight": "blk.{}.ffn_gate.weight",
    "blocks.{}.w_up.weight": "blk.{}.ffn_up.weight",
    "blocks.{}.w_down.weight": "blk.{}.ffn_down.weight",
}


def gguf_name(param: str) -> str:
    parts = param.split(".")
    if parts[0] == "blocks":
        return TENSOR_NAMES["blocks.{}." + ".".join(parts[2:])].format(parts[1])
    return TENSOR_NAMES[param]


def add_tokenizer(w: gguf.GGUFWriter, tok: Tokenizer) -> None:
    sid = {name: tok.special(name) for name in SPECIAL_TOKENS}
    w.add("tokenizer.ggml.model", gguf.T_STRING, "gpt2")
    w.add("tokenizer.ggml.pre", gguf.T_STRING, "qwen2")
    w.add("tokenizer.ggml.tokens", gguf.T_ARRAY, tok.tokens, gguf.T_STRING)
    w.add("tokenizer.ggml.token_type", gguf.T_ARRAY, tok.token_type, gguf.T_INT32)
    w.add("tokenizer.ggml.merges", gguf.T_ARRAY, [f"{a} {b}" for a, b in tok.merges], gguf.T_STRING)
    for key, name in [("bos", "<|endoftext|>"), ("eos", "<|endoftext|>"), ("eot", "<|endoftext|>"),
                      ("padding", "<|endoftext|>"), ("fim_pre", "<|fim_prefix|>"),
                      ("fim_suf", "<|fim_suffix|>"), ("fim_mid", "<|fim_middle|>"),
                      ("fim_pad", "<|fim_pad|>"), ("fim_rep", "<|repo_name|>"),
                      ("fim_sep", "<|file_sep|>")]:
        w.add(f"tokenizer.ggml.{key}_token_id", gguf.T_UINT32, sid[name])
    w.add("tokenizer.ggml.add_bos_token", gguf.T_BOOL, False)
    w.add("tokenizer.ggml.add_eos_token", gguf.T_BOOL, False)


def export(state_dict: dict, cfg: dict, tok: Tokenizer, out: Path, qtype: str,
           name: str = "wafer-tiny-code", fim_order: str | None = None,
           copy_strength: float = 0.0, min_confidence: float = 0.0) -> None:
    """state_dict: model.py parameter name -> numpy float32 array (or torch tensor).
    fim_order: "spm" or "psm", written as wafer.fim_order (the FIM order wafer prompts this
    model in unless told otherwise); None writes nothing (PSM).
    copy_strength > 0: written as wafer.copy_strength, which turns on wafer's copy predictor for
    this file (engine/decode/copy_predictor.h; eval.py --cache measures the same mixture).
    min_confidence > 0: written as wafer.min_confidence, the confidence gate's threshold
    calibrated for this model (engine/model/gate_threshold.h; bench_quality measures it)."""
    if cfg["n_vocab"] != tok.n_vocab:
        raise ValueError(f"model vocab {cfg['n_vocab']} != tokenizer vocab {tok.n_vocab}")
    w = gguf.GGUFWriter()
    a = "llama."
    w.add("general.architecture", gguf.T_STRING, "llama")
    w.add("general.name", gguf.T_STRING, name)
    w.add("general.license", gguf.T_STRING, "MIT")
    w.add("general.file_type", gguf.T_UINT32, FILE_TYPE[qtype])
    w.add("general.alignment", gguf.T_UINT32, gguf.ALIGNMENT)
    w.add(a + "vocab_size", gguf.T_UINT32, cfg["n_vocab"])
    w.add(a + "context_length", gguf.T_UINT32, cfg["n_ctx"])
    w.add(a + "embedding_length", gguf.T_UINT32, cfg["d_model"])
    w.add(a + "block_count", gguf.T_UINT32, cfg["n_layer"])
    w.add(a + "feed_forward_length", gguf.T_UINT32, cfg["d_ff"])
    w.add(a + "attention.head_count", gguf.T_UINT32, cfg["n_head"])
    w.add(a + "attention.head_count_kv", gguf.T_UINT32, cfg["n_kv_head"])
    w.add(a + "rope.dimension_count", gguf.T_UINT32, cfg["d_model"] // cfg["n_head"])
    w.add(a + "rope.freq_base", gguf.T_FLOAT32, float(cfg["rope_base"]))
    w.add(a + "attention.layer_norm_rms_epsilon", gguf.T_FLOAT32, float(cfg["norm_eps"]))
    add_tokenizer(w, tok)
    if fim_order:
        w.add("wafer.fim_order", gguf.T_STRING, fim_order)
    if copy_strength > 0:
        w.add("wafer.copy_strength", gguf.T_FLOAT32, float(copy_strength))
    if min_confidence > 0:
        w.add("wafer.min_confidence", gguf.T_FLOAT32, float(min_confidence))

    arrays = {k: (v.detach().float().numpy() if hasattr(v, "detach") else np.asarray(v, np.float32))
              for k, v in state_dict.items()}
    if cfg.get("tie_embeddings"):
        arrays.pop("output.weight", None)
    order = ["tok_embd.weight"]
    for i in range(cfg["n_layer"]):
        order += [f"blocks.{i}.{p}.weight" for p in
                  ("attn_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w_gate", "w_up", "w_down")]
    order += ["out_norm.weight"] + (["output.weight"] if "output.weight" in arrays else [])
    for param in order:
        arr = arrays[param]
        w.add_tensor(gguf_name(param), arr, gguf.GGML_F32 if arr.ndim == 1 else WEIGHT_TYPE[qtype])
    w.write(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint", type=Path)
    ap.add_argument("tokenizer", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--type", choices=sorted(FILE_TYPE), default="q8_0")
    ap.add_argument("--fim-order", choices=("auto", "spm", "psm"), default="auto",
                    help="order wafer should prompt in; auto: SPM if most of the run's FIM "
                         "examples were SPM (train.py --spm-rate above 0.5)")
    ap.add_argument("--copy-strength", type=float, default=0.0,
                    help="write wafer.copy_strength: wafer mixes its copy predictor into this model's "
                         "predictions (0: not written)")
    ap.add_argument("--min-confidence", type=float, default=0.0,
                    help="write wafer.min_confidence: the confidence gate's threshold calibrated for "
                         "this model, which wafer's minConfidence auto uses (0: not written)")
    args = ap.parse_args()
    import torch
    state = torch.load(args.checkpoint, map_location="cpu")
    order = args.fim_order
    if order == "auto":
        order = "spm" if state.get("args", {}).get("spm_rate", 0.0) > 0.5 else "psm"
    export(state["model"], state["config"], Tokenizer.load(args.tokenizer), args.out, args.type,
           fim_order=order, copy_strength=args.copy_strength, min_confidence=args.min_confidence)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes, {args.type}, FIM order {order}, "
          f"copy strength {args.copy_strength:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
