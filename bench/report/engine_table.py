#!/usr/bin/env python3
"""Markdown table of `bench_engine --json` lines: one row per configuration and test, with
tokens/s and, for decode, the share of the read bandwidth the weights' bytes take; then,
per model and weights, decode deep in a context against decode near its start.

  engine_table.py LINES.jsonl
"""

import json
import sys


def rows(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def main(args):
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        lines = rows(args[0])
        if not lines:
            raise ValueError("no bench_engine JSON lines")
        print("| model | weights | threads | AMX | test | tokens after depth | tok/s | decode efficiency |")
        print("|---|---|---|---|---|---|---|---|")
        decode = {}
        for r in lines:
            eff = f"{r['efficiency']:.2f}" if "efficiency" in r else "-"
            print(f"| {r['model']} | {r['weights']} | {r['threads']} | {'on' if r['amx'] else 'off'} | {r['test']} "
                  f"| {r['n_tokens']} after {r['depth']:,} | {r['tok_s']:,.1f} | {eff} |")
            if r["test"] == "decode":
                decode.setdefault((r["model"], r["weights"], r["threads"], r["amx"]), []).append(r)
        ratios = []
        for (model, weights, threads, amx), runs in decode.items():
            near, deep = min(runs, key=lambda r: r["depth"]), max(runs, key=lambda r: r["depth"])
            if deep["depth"] > near["depth"]:
                ratios.append(f"{model} {weights}, {threads} threads, AMX {'on' if amx else 'off'}: decode at depth "
                              f"{deep['depth']:,} is {deep['tok_s'] / near['tok_s']:.2f} of decode at depth "
                              f"{near['depth']:,}.")
        if ratios:
            print()
            for line in ratios:
                print(f"- {line}")
    except (OSError, KeyError, ValueError, TypeError) as e:
        print(f"engine_table.py: {args[0]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
