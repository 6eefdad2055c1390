#!/usr/bin/env python3
"""bench/report/engine_table.py: the table and the depth ratio from bench_engine's JSON lines."""

import io
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "bench" / "report"))
import engine_table  # noqa: E402

LINES = """\
{"model":"0.5b","weights":"q8_0","kv":"f16","threads":2,"amx":true,"test":"prefill","n_tokens":512,"depth":0,"tok_s":1069.0,"read_bw_gbs":23.3,"chunk":512}
{"model":"0.5b","weights":"q8_0","kv":"f16","threads":2,"amx":true,"test":"decode","n_tokens":128,"depth":16,"tok_s":40.0,"read_bw_gbs":23.4,"efficiency":0.793}
{"model":"0.5b","weights":"q8_0","kv":"f16","threads":2,"amx":true,"test":"decode","n_tokens":128,"depth":1500,"tok_s":36.0,"read_bw_gbs":23.4,"efficiency":0.71}
"""


class EngineTable(unittest.TestCase):
    def run_table(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write(text)
        out = io.StringIO()
        with redirect_stdout(out):
            code = engine_table.main([f.name])
        Path(f.name).unlink()
        return code, out.getvalue()

    def test_rows_and_depth_ratio(self):
        code, out = self.run_table("bench_engine: noise before the lines\n" + LINES)
        self.assertEqual(code, 0)
        self.assertIn("| 0.5b | q8_0 | 2 | on | prefill | 512 after 0 | 1,069.0 | - |", out)
        self.assertIn("| 0.5b | q8_0 | 2 | on | decode | 128 after 1,500 | 36.0 | 0.71 |", out)
        self.assertIn("- 0.5b q8_0, 2 threads, AMX on: decode at depth 1,500 is 0.90 of decode at depth 16.", out)

    def test_no_lines_or_missing_fields_are_errors(self):
        self.assertEqual(self.run_table("")[0], 1)
        self.assertEqual(self.run_table('{"model": "0.5b"}\n')[0], 1)
        self.assertEqual(engine_table.main([]), 2)


if __name__ == "__main__":
    unittest.main()
