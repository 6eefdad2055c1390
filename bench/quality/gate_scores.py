#!/usr/bin/env python3
"""How well scores of a suggestion's confidence sort right from wrong suggestions.

Reads the per-point lines of `bench_quality --points-out FILE` (one file per seed), fits a
logistic score on the FIT files and prints, for the FIT and the READ files, the precision
(exact first lines among those shown) of each score when it keeps COVERAGE of the points
(default: half of the coverage with no gate), as a multiple of the ungated precision; then
the coverage and precision of the gate's own score at a few thresholds over all files.

    gate_scores.py --fit q2.jsonl q3.jsonl q4.jsonl --read q5.jsonl q6.jsonl [--coverage C]
"""
import argparse
import json
import math

import numpy as np


def load(paths):
    return [json.loads(line) for p in paths for line in open(p)]


def features(p):
    return [1.0, p["mean_logprob"], p["min_logprob"], math.log(max(p["first_prob"], 1e-6)),
            math.log(max(p["tokens"], 1)), math.log(p["chars"] + 1),
            1.0 if p["mode"] == "single" else 0.0, 1.0 if p["language"] == "python" else 0.0]


def fit_logistic(points, steps=3000, rate=0.5, l2=1e-3):
    pts = [p for p in points if p["shown"] and p["tokens"] > 0]
    x = np.array([features(p) for p in pts])
    y = np.array([1.0 if p["exact"] else 0.0 for p in pts])
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        prob = 1 / (1 + np.exp(-x @ w))
        w -= rate * (x.T @ (prob - y) / len(y) + l2 * w)
    return w


def ungated(points):
    shown = [p for p in points if p["shown"]]
    return len(shown) / len(points), sum(p["exact"] for p in shown) / len(shown)


def precision_at(points, score, coverage):
    """Precision of the best-scored shown points that cover `coverage` of all points."""
    shown = sorted((p for p in points if p["shown"]), key=score, reverse=True)
    need = math.ceil(coverage * len(points))
    top = shown[:need]
    return sum(p["exact"] for p in top) / len(top)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fit", nargs="+", required=True)
    ap.add_argument("--read", nargs="+", required=True)
    ap.add_argument("--coverage", type=float, default=None)
    a = ap.parse_args()
    fit, read = load(a.fit), load(a.read)
    w = fit_logistic(fit)
    known = lambda p: p["tokens"] > 0
    scores = {
        "probability of the first line's least likely token (the gate's)":
            lambda p: p["confidence"] if known(p) else 0.0,
        "geometric mean of the first line's token probabilities":
            lambda p: math.exp(p["mean_logprob"]) if known(p) else 0.0,
        "probability of the whole first line (product of its tokens')":
            lambda p: math.exp(p["mean_logprob"] * p["tokens"]) if known(p) else 0.0,
        "logistic fit on the five features, mode and language":
            lambda p: float(np.dot(w, features(p))) if known(p) else -1e9,
    }
    cov0, _ = ungated(fit + read)
    coverage = a.coverage if a.coverage is not None else cov0 / 2
    print(f"With no gate {100 * cov0:.1f} % of the points get a suggestion. Precision (exact first lines of those")
    print(f"shown) at {100 * coverage:.1f} % coverage, as a multiple of the ungated precision, on the seeds the")
    print("logistic score was fitted on and on the others:\n")
    print("| score | seeds fitted on | other seeds |\n|---|---|---|")
    for name, score in scores.items():
        cells = []
        for points in (fit, read):
            _, p0 = ungated(points)
            cells.append(f"{precision_at(points, score, coverage) / p0:.2f}x")
        print(f"| {name} | {cells[0]} | {cells[1]} |")
    every = fit + read
    _, p0 = ungated(every)
    shown0 = sum(p["shown"] for p in every)
    print("\n| minConfidence | coverage (share of the ungated) | precision (multiple of the ungated) |\n|---|---|---|")
    for t in (0.2, 0.3, 0.35, 0.4, 0.5):
        kept = [p for p in every if p["shown"] and (not known(p) or p["confidence"] >= t)]
        prec = sum(p["exact"] for p in kept) / len(kept)
        print(f"| {t:g} | {100 * len(kept) / len(every):.1f} % ({len(kept) / shown0:.2f}) | "
              f"{100 * prec:.1f} % ({prec / p0:.2f}x) |")


if __name__ == "__main__":
    main()
