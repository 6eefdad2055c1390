"""Fill-in-the-middle demo on a GGUF model with wafer's engine, from raw FIM token ids.

Builds the PSM prompt <|fim_prefix|>PREFIX<|fim_suffix|>SUFFIX<|fim_middle|> with the
model's own vocabulary (bpe.py, exact llama.cpp qwen2 tokenization), runs
`wafer generate --prompt-ids` (which prints the generated text), and prints the code with the completion marked.

Usage: python3 tools/train/demo.py WAFER MODEL.gguf [--prefix TEXT --suffix TEXT] [-n N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_wafer import tokenizer_from_gguf  # noqa: E402

PREFIX = "import os\n\n\ndef read_file(path):\n    with open(path) as f:\n        "
SUFFIX = "\n\n\ndef main():\n    print(read_file(os.path.join('a', 'b')))\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("wafer", type=Path)
    ap.add_argument("model", type=Path)
    ap.add_argument("--prefix", default=PREFIX)
    ap.add_argument("--suffix", default=SUFFIX)
    ap.add_argument("-n", type=int, default=48)
    args = ap.parse_args()
    tok = tokenizer_from_gguf(args.model)
    ids = ([tok.special("<|fim_prefix|>")] + tok.encode(args.prefix) + [tok.special("<|fim_suffix|>")]
           + tok.encode(args.suffix) + [tok.special("<|fim_middle|>")])
    t0 = time.time()
    # `wafer generate` prints the generated text (it stops at the model's end-of-text tokens).
    p = subprocess.run([str(args.wafer), "generate", str(args.model), "--prompt-ids",
                        ",".join(map(str, ids)), "-n", str(args.n)],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        print(f"demo: wafer generate failed: {p.stderr.strip()}", file=sys.stderr)
        return 1
    middle = p.stdout[:-1] if p.stdout.endswith("\n") else p.stdout
    print(f"--- FIM completion by {args.model.name} ({len(ids)} prompt tokens, "
          f"{time.time() - t0:.2f} s) ---")
    print(f"{args.prefix}\033[7m{middle}\033[0m{args.suffix}", end="")
    print(f"--- wafer: {p.stderr.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
