"""Runs one tools/train test module for CTest: exit 0 = every test ran and passed, 1 = a
test failed, 77 = a test was skipped. A skip prints "SKIPPED: <reason>" once per reason, so
that scripts/judge_skips.py judges each reason against tests/skip_reasons.txt; a module
whose tests partly ran and partly skipped is reported as skipped, never as passed."""

import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromName(Path(sys.argv[1]).stem)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful() or result.testsRun == 0:
        sys.exit(1)
    reasons = sorted({reason for _test, reason in result.skipped})
    for reason in reasons:
        print(f"SKIPPED: {reason}")
    sys.exit(77 if reasons else 0)
