#!/usr/bin/env python3
"""The most a draft model can speed up an N-token suggestion, from measured costs: the
model's one-token step, what a verification pass costs per extra row, and what the draft
costs per drafted token, with each drafted token accepted with probability p on its own
(as bench_draft's synthetic draft is).

  draft_ceiling.py --step MS --verify-row MS --draft-token MS [--draft-round MS]
      [--accept 0.7] [--predict 16] [--max-draft 8]

A round drafts k tokens (k * draft-token + draft-round ms), verifies them with the token
before them in one pass (step + k * verify-row ms) and yields 1 + the accepted prefix. The
first token of a suggestion comes from the prompt's pass, in both. Prints the expected
tokens/s over the model alone's for every fixed k (a round never drafts past the
suggestion's end, as completion_run's does not) and for the best length chosen round by
round for the tokens left, exactly (dynamic programming over the tokens left, no sampling).
Two figures each: the ratio of the expected times (what many suggestions give together),
and the ratio of the median suggestion's time, the figure bench_draft prints (the median of
its runs' tokens/s): a suggestion's time is skewed (a few rejected rounds make it long), so
the median run is faster than the mean. Where bench_draft's ratio sits under the median
one, the engine loses time outside these costs or chooses its lengths worse; where a target
sits over the expected one, no draft-length rule reaches it on these costs.

The costs come from bench_engine (`--tests verify`, ms per pass of 1..8 tokens: the step
and the slope) and bench_draft (draft time / drafted tokens).
"""
import argparse
import sys


def accepted_dist(p, k):
    """P(a = j) for j = 0..k: the accepted prefix of a k-token draft."""
    return [p ** j * (1 - p) for j in range(k)] + [p ** k]


def round_ms(n, step, verify_row, draft_token, draft_round):
    """One round's time: a draft of n tokens and their verification, or a plain step (n = 0)."""
    return step if n == 0 else n * draft_token + draft_round + step + n * verify_row


def speedup(step, verify_row, draft_token, p, predict, max_draft=8, draft_round=0.0, k=None):
    """(expected tokens/s over the model alone's, draft length by tokens left) for an
    N-token suggestion: drafts of k tokens (never past the suggestion's end), or with k
    None the best length for each count of tokens left."""
    left = predict - 1
    t = [0.0] * (left + 1)  # expected ms for r tokens left
    best_k = [0] * (left + 1)
    for r in range(1, left + 1):
        options = range(0, min(r - 1, max_draft) + 1) if k is None else [min(k, r - 1)]
        best = None
        for n in options:
            cost = round_ms(n, step, verify_row, draft_token, draft_round)
            cost += sum(pj * t[r - 1 - j] for j, pj in enumerate(accepted_dist(p, n)))
            if best is None or cost < best:
                best, best_k[r] = cost, n
        t[r] = best
    return left * step / t[left], best_k


def median_speedup(step, verify_row, draft_token, p, predict, lengths, draft_round=0.0):
    """The model alone's time over the median suggestion's time, drafting lengths[r] with
    r tokens left: the exact distribution of a suggestion's time, tokens left by tokens left."""
    left = predict - 1
    dist = [{0.0: 1.0}]  # dist[r]: time -> probability, for r tokens left
    for r in range(1, left + 1):
        n = lengths[r]
        cost = round_ms(n, step, verify_row, draft_token, draft_round)
        out = {}
        for j, pj in enumerate(accepted_dist(p, n)):
            for t, q in dist[r - 1 - j].items():
                key = round(t + cost, 6)
                out[key] = out.get(key, 0.0) + pj * q
        dist.append(out)
    seen = 0.0
    for t, q in sorted(dist[left].items()):
        seen += q
        if seen >= 0.5:
            return left * step / t
    return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step", type=float, required=True, help="the model's one-token pass, ms")
    ap.add_argument("--verify-row", type=float, required=True, help="a verification pass's cost per extra token, ms")
    ap.add_argument("--draft-token", type=float, required=True, help="the draft's cost per drafted token, ms")
    ap.add_argument("--draft-round", type=float, default=0.0, help="the draft's fixed cost per round, ms")
    ap.add_argument("--accept", type=float, default=0.7)
    ap.add_argument("--predict", type=int, default=16)
    ap.add_argument("--max-draft", type=int, default=8)
    a = ap.parse_args()
    if not (0 <= a.accept < 1) or a.predict < 2 or a.step <= 0:
        ap.error("needs 0 <= accept < 1, predict >= 2 and step > 0")
    costs = dict(step=a.step, verify_row=a.verify_row, draft_token=a.draft_token, p=a.accept,
                 predict=a.predict, max_draft=a.max_draft, draft_round=a.draft_round)
    print("p = %.2f, %d-token suggestions: model alone %.1f ms per token" % (a.accept, a.predict, a.step))
    print("%-16s %9s %12s" % ("draft length", "expected", "median run"))
    median_costs = {key: v for key, v in costs.items() if key != "max_draft"}
    left = a.predict - 1
    for k in range(1, a.max_draft + 1):
        ratio, _ = speedup(k=k, **costs)
        lengths = [min(k, r - 1) if r else 0 for r in range(left + 1)]
        print("%-16s %8.3fx %11.3fx" % ("k = %d" % k, ratio, median_speedup(lengths=lengths, **median_costs)))
    ratio, ks = speedup(**costs)
    print("%-16s %8.3fx %11.3fx  (k by tokens left, %d..1: %s)" % (
        "best per round", ratio, median_speedup(lengths=ks, **median_costs), left,
        " ".join(str(ks[r]) for r in range(left, 0, -1))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
