"""The bundled model in wafer's engine: tokenizer ids and logits agree with this tool.

Uses models/*.gguf (or WAFER_TRAIN_MODEL), the wafer binary CTest passes in WAFER_BIN, and
held-out Python standard library files (same split as corpus.py). Skips when any of those
is missing or when wafer's command is not implemented yet.
"""

import os
import unittest
from pathlib import Path

from support import HAVE_NUMPY, MODELS, wafer_binary

if HAVE_NUMPY:
    import check_wafer

# wafer computes in float32 with F16/Q8_0 weights (Q8_0 with activations quantized to 8 bits
# as llama.cpp does); the reference uses float64 on the dequantized weights.
LOGIT_TOLERANCE = {"f16": 0.02, "q8_0": 0.25}


def bundled_models():
    if os.environ.get("WAFER_TRAIN_MODEL"):
        return [Path(os.environ["WAFER_TRAIN_MODEL"])]
    return sorted(MODELS.glob("*.gguf")) if MODELS.is_dir() else []


@unittest.skipUnless(HAVE_NUMPY, "numpy not installed")
class WaferAgreement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.wafer = wafer_binary()
        cls.models = bundled_models()
        cls.texts = check_wafer.heldout_texts(None, 6, 4000) if cls.models else []

    def setUp(self):
        if self.wafer is None:
            self.skipTest("wafer binary not built")
        if not self.models:
            self.skipTest("no bundled model in models/")
        if not self.texts:
            self.skipTest("no held-out Python standard library files on this machine")

    def test_tokenizer_ids_identical(self):
        for model in self.models:
            with self.subTest(model=model.name):
                try:
                    r = check_wafer.tokenizer_agreement(self.wafer, model, self.texts)
                except check_wafer.NotImplementedInWafer as e:
                    self.skipTest(str(e))
                self.assertGreater(r["tokens"], 1000)
                self.assertEqual(r["mismatched"], [])

    def test_logits_match_reference(self):
        for model in self.models:
            qtype = "q8_0" if "q8_0" in model.name else "f16"
            tok = check_wafer.tokenizer_from_gguf(model)
            prompts = [tok.encode(t)[:48] for _, t in self.texts[:2]]
            with self.subTest(model=model.name):
                try:
                    r = check_wafer.logits_agreement(self.wafer, model, prompts)
                except check_wafer.NotImplementedInWafer as e:
                    self.skipTest(str(e))
                self.assertEqual(r["positions"], sum(len(p) for p in prompts))
                self.assertLess(r["max_abs_diff_top20"], LOGIT_TOLERANCE[qtype])
                self.assertGreaterEqual(r["argmax_same"] / r["positions"], 0.95)


if __name__ == "__main__":
    unittest.main()
