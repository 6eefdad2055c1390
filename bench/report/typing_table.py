#!/usr/bin/env python3
"""Markdown table of `wafer bench replay --out` reports: one row per report, the columns
docs/performance.md's typing sections use (shown rate, over pauses, first ghost text p50 /
p90, tokens reused per answer, engine prefill per edit, and the engine answers the
confidence gate held back, at the threshold in force).

  typing_table.py LABEL=REPORT.json [LABEL=REPORT.json ...]
"""

import json
import sys


def row(label: str, path: str) -> str:
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    s = report["summary"]
    typing, pauses = s["headline"]["typing"], s["headline"]["pauses"]
    counts = report.get("server_stats", {}).get("counts", {})
    changes = counts.get("changes", 0)
    prefill = sum(v for k, v in counts.items() if k.startswith("prefilled_part_"))
    per_edit = f"{prefill / changes:.1f}" if changes else "-"
    ghost = typing["first_ghost_ms"]
    gate = report.get("server_stats", {}).get("min_confidence")
    reported = counts.get("confidence_reported", 0)
    held = (f"{counts.get('held_back_low_confidence', 0)} of {reported} at {gate:g}"
            if gate is not None and reported else "-")
    return (f"| {label} | {typing['shown_rate']:.2f} ({typing['shown']} of {typing['keystrokes']}) "
            f"| {pauses['shown_rate']:.2f} ({pauses['shown']} of {pauses['keystrokes']}) "
            f"| {ghost['p50']:.1f} / {ghost['p90']:.1f} ms "
            f"| {s['tokens_reused']['p50']:,.0f} | {per_edit} | {held} |")


def main(args: list[str]) -> int:
    if not args or any("=" not in a for a in args):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    print("| run | shown rate | over pauses | first ghost text p50 / p90 | tokens reused per answer (p50) "
          "| engine prefill per edit (mean) | held back by the gate |")
    print("|---|---|---|---|---|---|---|")
    for a in args:
        label, path = a.split("=", 1)
        try:
            print(row(label, path))
        except (OSError, KeyError, ValueError) as e:
            print(f"typing_table.py: {path}: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
