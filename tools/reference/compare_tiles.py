"""wafer's prefill logits on the AMX int8 tiles, the AMX BF16 tiles and AVX-512 VNNI (AMX
off), each against the float64 forward pass (distance.py), on the reference models' 64-token
prompt, every position of which goes through the tiles (batches of 32 tokens or more). The
models are the in-repository ones unless --models names others of the same reference set.

usage: compare_tiles.py BENCH_FORWARD REFERENCE_DIR [--models STEM,...] [--length N] [--threads N] [--check]

--length N takes N pseudo-random ids, (i x 7919 + 13) mod n_vocab, instead of the recorded
prompt (and leaves out the check against the JSON's float64 pass, which is for that prompt).

Prints a table: per model and path, the median and worst position of the top-20 max |error|
and RMS error, and the argmax agreements. It first checks the float64 logits against the
independent float64 pass the reference JSON records (numpy_float64_check: the same
arithmetic, so within 1e-6 of its max |difference| from llama.cpp's logits).

--check: fails when the default path (DEFAULT) is farther from float64 than BOUND at its
worst position, or farther than the other tile path at the median position (the rule the
default was chosen by, docs/architecture.md; the worst position is printed, not checked:
the worst of 64 positions is one sample, which the BF16 roundings move either way). A
path this CPU cannot run is reported as skipped with bench_forward's reason, and then the
run exits 77 (never a pass).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from distance import Distance, distance
from float64_forward import Float64Model

MODELS = ["tiny-llama-q4_0", "tiny-qwen2-q8_0", "small-llama-q4_k_m"]
PROMPT = "pseudo_random_64"
PATHS = {"amx": "AMX int8 tiles", "amx-bf16": "AMX BF16 tiles", "avx512": "AVX-512 VNNI (AMX off)"}
DEFAULT = "amx"
OTHER_TILES = "amx-bf16"
BOUND = 0.75                # worst position's top-20 max |error| of the default path
JSON_TOLERANCE = 1e-6       # float64 here vs the JSON's independent float64 pass
SKIP = 77


def wafer_logits(bench: str, model: Path, path: str, tokens: list[int], threads: int, out: Path):
    """(logits, None), or (None, skip reason) when this CPU cannot run the path."""
    cmd = [bench, "--model", str(model), "--kernels", path, "--tokens", ",".join(map(str, tokens)),
           "--logits", str(out), "--decode", "0", "--threads", str(threads)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == SKIP:
        reason = [l for l in r.stdout.splitlines() if l.startswith("SKIPPED:")]
        return None, reason[0][len("SKIPPED:"):].strip() if reason else "(no reason given)"
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return np.fromfile(out, dtype="<f4").reshape(len(tokens), -1), None


def fmt(d: Distance) -> str:
    return (f"{d.median_max:.3g} | {d.worst_max:.3g} | {d.median_rms:.3g} | {d.worst_rms:.3g} | "
            f"{d.argmax_agree}/{d.positions}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("bench_forward")
    ap.add_argument("reference_dir", type=Path)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--length", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    failures, skips = [], {}
    print("| model | path | median max err | worst max err | median RMS | worst RMS | argmax agree |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for stem in a.models.split(","):
            ref = json.loads((a.reference_dir / f"{stem}.json").read_text())
            prompt = next(p for p in ref["prompts"] if p["name"] == PROMPT)
            model = Float64Model(a.reference_dir / f"{stem}.gguf")
            tokens = prompt["tokens"] if not a.length else [(i * 7919 + 13) % model.n_vocab for i in range(a.length)]
            exact = model.logits(tokens)
            vs_llama = None
            if not a.length:
                vs_llama = max(abs(exact[p["pos"], t] - v) for p in prompt["positions"] for t, v in p["top"])
                recorded = prompt["numpy_float64_check"]["max_abs_diff_top20"]
                if abs(vs_llama - recorded) > JSON_TOLERANCE:
                    failures.append(f"{stem}: float64 is {vs_llama:.9g} from llama.cpp's top 20, the JSON's "
                                    f"float64 pass {recorded:.9g}")
            dist = {}
            for path, label in PATHS.items():
                logits, why = wafer_logits(a.bench_forward, a.reference_dir / f"{stem}.gguf", path, tokens,
                                           a.threads, Path(tmp) / "logits.f32")
                if logits is None:
                    skips[path] = why
                    print(f"| {stem} | {label} | skipped: {why} | | | | |")
                    continue
                dist[path] = distance(logits, exact)
                print(f"| {stem} | {label} | {fmt(dist[path])} |")
            if vs_llama is not None:
                print(f"| {stem} | llama.cpp's logits (over its own top 20) | | {vs_llama:.3g} | | | |")
            sys.stdout.flush()
            if a.check and DEFAULT in dist:
                d = dist[DEFAULT]
                if d.worst_max > BOUND:
                    failures.append(f"{stem}: {PATHS[DEFAULT]} worst position {d.worst_max:.3g} > {BOUND}")
                o = dist.get(OTHER_TILES)
                if o and d.median_max > o.median_max:
                    failures.append(f"{stem}: {PATHS[DEFAULT]} ({d.median_max:.3g} median, {d.worst_max:.3g} "
                                    f"worst) is farther from float64 than {PATHS[OTHER_TILES]} "
                                    f"({o.median_max:.3g}, {o.worst_max:.3g})")
    for f in failures:
        print(f"FAILED: {f}")
    if failures:
        return 1
    for why in dict.fromkeys(skips.values()):
        print(f"SKIPPED: {why}")
    return SKIP if skips else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
