"""bench/report/typing_table.py renders what `wafer bench replay --out` writes: a real replay
of the sample file with the bundled model (WAFER_BIN, the built wafer), then its row."""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "bench" / "report"))

import typing_table  # noqa: E402


class TypingTable(unittest.TestCase):
    def test_row_from_a_real_replay(self):
        wafer = os.environ["WAFER_BIN"]
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "r.json"
            subprocess.run([wafer, "bench", "replay", str(REPO / "scripts/sample/inventory.py"),
                            "--model", str(REPO / "models/wafer-tiny-code-q8_0.gguf"), "--threads", "1",
                            "--keystrokes", "12", "--wpm", "40", "--seed", "3", "--out", str(report)],
                           check=True, capture_output=True, timeout=240)
            row = typing_table.row("bundled", str(report))
        cells = [c.strip() for c in row.strip("|").split("|")]
        self.assertEqual(len(cells), 7, row)
        self.assertEqual(cells[0], "bundled")
        shown_rate, counts = cells[1].split(" ", 1)
        self.assertTrue(0.0 <= float(shown_rate) <= 1.0, row)
        self.assertRegex(counts, r"^\(\d+ of 12\)$")
        self.assertRegex(cells[3], r"^\d+\.\d / \d+\.\d ms$")
        self.assertRegex(cells[5], r"^\d+\.\d$")
        self.assertRegex(cells[6], r"^\d+ of \d+ at 0\.35$")  # the bundled model's own threshold

    def test_a_report_without_its_fields_is_an_error(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"summary": {}}')
        try:
            self.assertEqual(typing_table.main([f"x={f.name}"]), 1)
            self.assertEqual(typing_table.main(["no-label"]), 2)
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
