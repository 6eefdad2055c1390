"""Runs one tools/train test module for CTest: exit 0 = passed, 1 = failed, 77 = everything
skipped (e.g. numpy, torch or the wafer binary is missing on this machine)."""

import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromName(Path(sys.argv[1]).stem)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        sys.exit(1)
    # A skipped subTest is reported per subtest: count the test methods it belongs to.
    skipped = {getattr(test, "test_case", test).id() for test, _reason in result.skipped}
    sys.exit(77 if result.testsRun and len(skipped) == result.testsRun else 0)
