"""Checks that wafer's engine agrees with this tool on an exported model.

1. Tokenizer: `wafer tokenize MODEL --ids` (text on stdin) must give exactly the Python
   tokenizer's ids (bpe.py, rebuilt from the GGUF's own merges) on held-out files.
2. Logits: `wafer generate MODEL --prompt-ids ... --logits-json FILE` must match the numpy
   reference forward pass (reference.py, float64 on the file's dequantized weights): same
   argmax, and top-20 logits within a tolerance.

Usage: /usr/bin/python3 tools/train/check_wafer.py MODEL.gguf [--wafer build/server/wafer]
       [--corpus DIR] [--files N] [--prompts N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
from bpe import Tokenizer  # noqa: E402


class NotImplementedInWafer(Exception):
    pass


def tokenizer_from_gguf(path: Path) -> Tokenizer:
    from gguf import GGUFFile
    kv = GGUFFile(path).kv
    return Tokenizer([tuple(m.split(" ", 1)) for m in kv["tokenizer.ggml.merges"]],
                     kv["tokenizer.ggml.tokens"], kv["tokenizer.ggml.token_type"])


def run_wafer(wafer: Path, args: list[str], stdin: str | None = None) -> str:
    p = subprocess.run([str(wafer), *args], input=stdin, capture_output=True, text=True,
                       timeout=300)
    if p.returncode == 2 and "not implemented" in p.stderr:
        raise NotImplementedInWafer(p.stderr.strip())
    if p.returncode != 0:
        raise RuntimeError(f"wafer {' '.join(args[:2])} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def wafer_ids(wafer: Path, model: Path, text: str) -> list[int]:
    return [int(t) for t in run_wafer(wafer, ["tokenize", str(model), "--ids"], stdin=text).split()]


def heldout_texts(corpus_dir: Path | None, n: int, max_chars: int) -> list[tuple[str, str]]:
    """(name, text) of held-out files: from the corpus cache if given, else the held-out
    files of the Python standard library on this machine (same split rule)."""
    if corpus_dir is not None and (corpus_dir / "heldout.jsonl").exists():
        docs = corpus.read_jsonl(corpus_dir / "heldout.jsonl")
        return [(d["path"], d["text"][:max_chars]) for d in docs[:n]]
    src = corpus.sources()[0]
    out = []
    for path in corpus.walk(src):
        key = f"{src.name}/{path.relative_to(src.root)}"
        if corpus.is_heldout(key):
            text = path.read_text(encoding="utf-8", errors="replace")
            if not corpus.looks_generated(text):
                out.append((key, text[:max_chars]))
        if len(out) >= n:
            break
    return out


def tokenizer_agreement(wafer: Path, model: Path, texts) -> dict:
    tok = tokenizer_from_gguf(model)
    same, total_tokens, mismatched = 0, 0, []
    for name, text in texts:
        want = tok.encode(text)
        got = wafer_ids(wafer, model, text)
        total_tokens += len(want)
        if got == want:
            same += 1
        else:
            k = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            mismatched.append({"file": name, "first_difference": k})
    return {"files": len(texts), "identical": same, "tokens": total_tokens, "mismatched": mismatched}


def wafer_logits(wafer: Path, model: Path, ids: list[int]) -> dict:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "logits.json"
        run_wafer(wafer, ["generate", str(model), "--prompt-ids", ",".join(map(str, ids)),
                          "-n", "1", "--threads", "1", "--logits-json", str(out)])
        return json.loads(out.read_text())


def logits_agreement(wafer: Path, model: Path, prompts: list[list[int]]) -> dict:
    """Argmax agreement and the largest |difference| over wafer's top-20 logits."""
    from reference import ReferenceLlama
    ref = ReferenceLlama(model)
    positions = argmax_same = 0
    max_diff = 0.0
    for ids in prompts:
        want = ref.logits(ids)
        got = wafer_logits(wafer, model, ids)
        for entry in got["positions"]:
            row = want[entry["pos"]]
            positions += 1
            argmax_same += entry["argmax"] == int(row.argmax())
            for tid, val in entry["top"]:
                max_diff = max(max_diff, abs(val - row[tid]))
    return {"positions": positions, "argmax_same": argmax_same, "max_abs_diff_top20": max_diff}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("--wafer", type=Path, default=corpus.REPO / "build" / "server" / "wafer")
    ap.add_argument("--corpus", type=Path, default=corpus.DEFAULT_CACHE)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--prompts", type=int, default=4)
    ap.add_argument("--prompt-tokens", type=int, default=128)
    args = ap.parse_args()
    texts = heldout_texts(args.corpus, args.files, 100_000)
    t = tokenizer_agreement(args.wafer, args.model, texts)
    print(f"tokenizer: {t['identical']}/{t['files']} held-out files tokenized identically "
          f"({t['tokens']:,} tokens); mismatches: {t['mismatched'][:5]}")
    tok = tokenizer_from_gguf(args.model)
    prompts = [tok.encode(text)[: args.prompt_tokens] for _, text in texts[: args.prompts]]
    lg = logits_agreement(args.wafer, args.model, prompts)
    print(f"logits: argmax identical at {lg['argmax_same']}/{lg['positions']} positions, "
          f"max |wafer - reference| over top-20 = {lg['max_abs_diff_top20']:.4f}")
    return 0 if t["identical"] == t["files"] else 1


if __name__ == "__main__":
    sys.exit(main())
