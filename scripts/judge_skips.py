#!/usr/bin/env python3
"""Judges the skipped tests of a ctest run: prints each with its reason, and fails when a
reason is not one that tests/skip_reasons.txt accepts.

usage: judge_skips.py JUNIT_XML [REASONS_FILE]

JUNIT_XML is ctest's --output-junit file. A skipped test's reasons are the lines of its
output that start with "SKIPPED:". A skip is accepted only when each reason matches one of
the regular expressions of REASONS_FILE (default tests/skip_reasons.txt): reasons that come
from the machine (an instruction set the CPU lacks, another architecture) or from data the
repository keeps optional on purpose. Missing data the repository should hold, a tool the
setup script installs, or work not done are not reasons: such a skip fails the run.
"""
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def load_reasons(path):
    patterns = []
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        patterns.append(re.compile(line))
    return patterns


def skip_reasons(case):
    out = case.findtext("system-out") or ""
    return [line.strip()[len("SKIPPED:"):].strip() for line in out.splitlines() if line.strip().startswith("SKIPPED:")]


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    junit = Path(argv[1])
    reasons_file = Path(argv[2]) if len(argv) > 2 else Path(__file__).resolve().parent.parent / "tests" / "skip_reasons.txt"
    patterns = load_reasons(reasons_file)
    cases = ET.parse(junit).getroot().iter("testcase")
    total = skipped = 0
    refused = []
    for case in cases:
        total += 1
        if case.get("status") != "notrun" and case.find("skipped") is None:
            continue
        skipped += 1
        reasons = skip_reasons(case)
        ok = bool(reasons) and all(any(p.search(r) for p in patterns) for r in reasons)
        print(f"skipped: {case.get('name')}: {'; '.join(reasons) or '(no SKIPPED: line in its output)'}"
              f"{'' if ok else '  <- NOT ACCEPTED'}")
        if not ok:
            refused.append(case.get("name"))
    print(f"judge_skips: {total} tests, {total - skipped} ran, {skipped} skipped, "
          f"{len(refused)} of the skips not explained by this machine ({reasons_file.name})")
    if refused:
        print("judge_skips: a skip above is not one tests/skip_reasons.txt accepts: install what the test "
              "needs (scripts/setup.sh), add the data to tests/data, or fix the test", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
