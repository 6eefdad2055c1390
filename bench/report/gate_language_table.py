#!/usr/bin/env python3
"""Markdown table of the confidence gate per language from `bench_quality --json` reports
(their first run's gate_by_language): per language, the points, what is shown with no gate
(coverage, precision: exact first lines of those shown) and at THRESHOLD (coverage as a share
of the ungated one, precision as a multiple of the ungated one).

  gate_language_table.py THRESHOLD REPORT.json [REPORT.json ...]
"""

import json
import sys


def at(gate, threshold):
    for row in gate:
        if abs(row["threshold"] - threshold) < 1e-9:
            return row
    raise KeyError(f"threshold {threshold:g} not in the report (bench_quality --thresholds)")


def main(args):
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    threshold = float(args[0])
    print(f"| language | points | no gate: coverage / precision | at {threshold:g}: coverage (share) "
          f"| at {threshold:g}: precision (multiple) |")
    print("|---|---|---|---|---|")
    for path in args[1:]:
        try:
            with open(path, encoding="utf-8") as f:
                by_language = json.load(f)["runs"][0]["gate_by_language"]
            for name, lang in sorted(by_language.items()):
                off, on = at(lang["gate"], 0.0), at(lang["gate"], threshold)
                share = on["coverage"] / off["coverage"] if off["coverage"] else 0.0
                times = on["precision"] / off["precision"] if off["precision"] else 0.0
                print(f"| {name} | {lang['points']} | {100 * off['coverage']:.1f} % / {100 * off['precision']:.1f} % "
                      f"| {100 * on['coverage']:.1f} % ({share:.2f}) | {100 * on['precision']:.1f} % ({times:.2f}x) |")
        except (OSError, KeyError, ValueError, IndexError) as e:
            print(f"gate_language_table.py: {path}: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
