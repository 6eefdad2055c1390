#!/usr/bin/env python3
"""bench_quality --points-out writes one JSON line per point with the gate's features,
bench/quality/gate_scores.py reads them into its tables, and bench/report/report.sh quality
writes the section of docs/performance.md from both.

    test_gate_scores.py REPO BENCH_QUALITY
"""
import json
import math
import os
import subprocess
import sys
import tempfile

repo, bench = sys.argv[1], sys.argv[2]
FIELDS = {"run", "file", "line", "language", "mode", "tokens", "mean_logprob", "min_logprob", "first_prob",
          "confidence", "shown", "exact", "chars", "similarity"}

with tempfile.TemporaryDirectory() as tmp:
    files = []
    for seed in (1, 2):
        out = os.path.join(tmp, f"q{seed}.jsonl")
        subprocess.run([bench, "--model", os.path.join(repo, "models/wafer-tiny-code-q8_0.gguf"), "--points", "12",
                        "--seed", str(seed), "--points-out", out], check=True, stdout=subprocess.DEVNULL, cwd=repo)
        points = [json.loads(line) for line in open(out)]
        assert len(points) == 12, f"seed {seed}: {len(points)} lines, expected 12"
        for p in points:
            assert set(p) == FIELDS, f"fields {sorted(set(p) ^ FIELDS)} differ"
            assert 0 <= p["confidence"] <= 1 or p["tokens"] == 0, p
            assert p["min_logprob"] <= p["mean_logprob"] + 1e-6 or p["tokens"] == 0, p
            # the gate's score: the least likely token's probability
            assert p["tokens"] == 0 or abs(p["confidence"] - math.exp(p["min_logprob"])) < 1e-5, p
            assert p["shown"] == (p["chars"] > 0), p
        assert any(p["shown"] for p in points), "no point got a suggestion"
        files.append(out)
    bad = subprocess.run([bench, "--points", "1", "--points-out", os.path.join(tmp, "no/such/dir/x.jsonl")],
                         capture_output=True, text=True, cwd=repo)
    assert bad.returncode != 0 and "--points-out" in bad.stderr, bad.stderr
    table = subprocess.run([sys.executable, os.path.join(repo, "bench/quality/gate_scores.py"), "--fit", files[0],
                            "--read", files[1]], check=True, capture_output=True, text=True).stdout
    assert "| probability of the first line's least likely token (the gate's) |" in table, table
    assert "| 0.35 |" in table, table
    # bench/report/report.sh quality writes the section from the same tools.
    build = os.path.dirname(os.path.dirname(os.path.abspath(bench)))
    section = subprocess.run(["bash", os.path.join(repo, "bench/report/report.sh"), "quality", build],
                             env=dict(os.environ, SEEDS="1 2", POINTS="8", OUT=os.path.join(tmp, "report")),
                             check=True, capture_output=True, text=True, cwd=repo).stdout
    assert section.startswith("### The confidence gate's score"), section
    assert "--fit q1.jsonl --read q2.jsonl" in section, section
    assert "| 0.35 |" in section and "| logistic fit" in section, section
    assert "| language | points |" in section and "| python | 8 |" in section and "| c | 8 |" in section, section
print("ok")
