#!/usr/bin/env python3
"""How much of real source code a draft model that scores only part of the vocabulary can
still propose (EngineOptions::draft_vocab): the share of tokens whose id is at or above the
head and absent from the W tokens before them (the draft's history holds at least those).
Every such token is one the draft cannot propose; a real draft would have missed some of
them anyway, so the share bounds what the head costs in accepted tokens from above.

  draft_vocab_coverage.py --model TINY_QWEN2.gguf [--wafer build/server/wafer]
      [--head 16384,32768,65536] [--window 2048] [--max-bytes 60000] FILE...

The model only lends its tokenizer (any GGUF with the vocabulary, e.g. the tiny Qwen2
reference files of ../shared/testdata/reference). Prints, per file extension, the tokens
counted and for each head the share outside it, then outside it and the window.
"""
import argparse
import collections
import os
import subprocess
import sys


def token_ids(wafer, model, data):
    out = subprocess.run([wafer, "tokenize", model, "--ids"], input=data, capture_output=True, check=True).stdout
    return [int(t) for t in out.split()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--wafer", default="build/server/wafer")
    ap.add_argument("--head", default="16384,32768,65536")
    ap.add_argument("--window", type=int, default=2048)
    ap.add_argument("--max-bytes", type=int, default=60000)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    heads = [int(h) for h in a.head.split(",")]
    counts = collections.defaultdict(collections.Counter)
    for path in a.files:
        with open(path, "rb") as f:
            data = f.read()[: a.max_bytes]
        ext = os.path.splitext(path)[1] or "(none)"
        ids = token_ids(a.wafer, a.model, data)
        window = collections.Counter()
        c = counts[ext]
        for i, t in enumerate(ids):
            if i >= a.window:
                old = ids[i - a.window]
                window[old] -= 1
                if window[old] == 0:
                    del window[old]
            seen = t in window
            c["tokens"] += 1
            for h in heads:
                if t >= h:
                    c[("out", h)] += 1
                    if not seen:
                        c[("unseen", h)] += 1
            window[t] += 1
    print("share of tokens outside the head / outside it and the window of %d tokens before them" % a.window)
    print("%-8s %9s" % ("files", "tokens") + "".join("%22s" % ("head %d" % h) for h in heads))
    total = collections.Counter()
    rows = sorted(counts.items())
    for ext, c in rows:
        total.update(c)
    for ext, c in rows + [("all", total)]:
        n = max(1, c["tokens"])
        print("%-8s %9d" % (ext, c["tokens"]) + "".join(
            "%22s" % ("%.2f %% / %.2f %%" % (100.0 * c[("out", h)] / n, 100.0 * c[("unseen", h)] / n)) for h in heads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
