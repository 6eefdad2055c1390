"""corpus.py: deterministic split, filters and license handling."""

import json
import tempfile
import unittest
from pathlib import Path

import corpus


class Corpus(unittest.TestCase):
    def test_split_is_stable_and_about_the_right_size(self):
        keys = [f"python-stdlib/mod{i}.py" for i in range(5000)]
        held = [k for k in keys if corpus.is_heldout(k)]
        self.assertEqual(held, [k for k in keys if corpus.is_heldout(k)])
        self.assertTrue(0.015 < len(held) / len(keys) < 0.05)

    def test_generated_code_is_rejected(self):
        self.assertTrue(corpus.looks_generated("var a=" + "1," * 500 + "\n"))
        self.assertFalse(corpus.looks_generated("def f(x):\n    return x\n" * 10))

    def test_npm_license_from_nearest_package_json(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d) / "node_modules"
            (root / "mit-pkg" / "lib").mkdir(parents=True)
            (root / "mit-pkg" / "package.json").write_text(json.dumps({"name": "m", "license": "MIT"}))
            (root / "mit-pkg" / "lib" / "package.json").write_text(json.dumps({"type": "module"}))
            (root / "gpl-pkg").mkdir()
            (root / "gpl-pkg" / "package.json").write_text(json.dumps({"name": "g", "license": "GPL-3.0"}))
            self.assertEqual(corpus._npm_license(root / "mit-pkg" / "lib" / "a.js"), "MIT")
            self.assertIsNone(corpus._npm_license(root / "gpl-pkg" / "a.js"))
            self.assertIsNone(corpus._npm_license(Path(d) / "stray.js"))

    def test_every_source_declares_a_permissive_license(self):
        for src in corpus.sources():
            lic = src.license_of(src.root / "x")
            self.assertTrue(lic is None or lic in corpus.PERMISSIVE, src.name)


if __name__ == "__main__":
    unittest.main()
