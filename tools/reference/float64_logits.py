#!/usr/bin/python3
"""Logits of a llama / qwen2 GGUF at every position of a token sequence, in float64.

usage: float64_logits.py MODEL.gguf --tokens ID,ID,... --out FILE.npy [--ggml-rounding]

Writes an (n_tokens, n_vocab) float64 .npy array: row p holds the logits after tokens
0..p. --ggml-rounding rounds each matmul's input as ggml-cpu does (for comparing with
llama.cpp's logits); without it the arithmetic is float64 throughout on the file's
dequantized weights (float64_forward.py).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from float64_forward import Float64Model


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--tokens", required=True, help="comma-separated token ids")
    ap.add_argument("--out", required=True, help="the .npy file to write")
    ap.add_argument("--ggml-rounding", action="store_true")
    a = ap.parse_args(argv)
    tokens = [int(t) for t in a.tokens.split(",") if t]
    np.save(a.out, Float64Model(a.model, ggml=a.ggml_rounding).logits(tokens))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
