"""bpe.py: the qwen2 pre-tokenizer split, BPE training and encoding."""

import unittest

from support import HAVE_NUMPY, TESTDATA

import bpe


class PreTokenizer(unittest.TestCase):
    def test_code_split_matches_qwen2_rules(self):
        text = "def foo(x):\n    return x+1  # it's 123\n\n\n  \tbar_baz = 'hé' "
        self.assertEqual(bpe.pretokenize(text), [
            "def", " foo", "(x", "):\n", "   ", " return", " x", "+", "1", " ", " #", " it",
            "'s", " ", "1", "2", "3", "\n\n\n", "  ", "\tbar", "_baz", " =", " '", "hé", "'", " "])

    def test_split_is_lossless(self):
        text = "x = {'a': [1, 2]}\r\n\t// ½ über 東京 😀\n"
        self.assertEqual("".join(bpe.pretokenize(text)), text)

    def test_unicode_numbers_are_single_pieces(self):
        self.assertEqual(bpe.pretokenize("4 ½ x²"), ["4", " ", "½", " x", "²"])


class Training(unittest.TestCase):
    def setUp(self):
        self.texts = ["def add(a, b):\n    return a + b\n"] * 20 + ["x = add(1, 2)\n"] * 5 + [
            f"class Point{i}:\n    def __init__(self, x, y):\n        self.x = x\n" for i in range(9)]

    def test_vocab_layout_and_roundtrip(self):
        merges = bpe.train(self.texts, 256 + 7 + 30, log=lambda *_: None)
        self.assertEqual(len(merges), 30)
        tok = bpe.Tokenizer(merges)
        self.assertEqual(tok.n_vocab, 256 + 30 + 7)
        self.assertEqual(tok.special("<|endoftext|>"), 256 + 30)
        self.assertEqual(tok.token_type[-1], 3)
        text = "def add(a, b):\n    return a + b\nprint('ü')\n"
        ids = tok.encode(text)
        self.assertEqual(tok.decode(ids), text)
        self.assertLess(len(ids), len(text.encode()))   # merges actually compress

    def test_training_is_deterministic(self):
        a = bpe.train(self.texts, 256 + 7 + 40, log=lambda *_: None)
        b = bpe.train(list(reversed(self.texts)), 256 + 7 + 40, log=lambda *_: None)
        self.assertEqual(a, b)

    def test_special_token_text_is_not_parsed(self):
        tok = bpe.Tokenizer(bpe.train(self.texts, 300, log=lambda *_: None))
        ids = tok.encode("<|fim_prefix|>")
        self.assertNotIn(tok.special("<|fim_prefix|>"), ids)
        self.assertEqual(tok.decode(ids), "<|fim_prefix|>")


@unittest.skipUnless(HAVE_NUMPY, "numpy not installed")
class LlamaCppVectors(unittest.TestCase):
    """The Python encoder on the Qwen2 vocabulary reproduces llama.cpp's test-tokenizer-0 ids."""

    def test_qwen2_vectors(self):
        import gguf
        model = TESTDATA / "reference" / "tiny-qwen2-f16.gguf"
        inp = TESTDATA / "tokenizer" / "ggml-vocab-qwen2.gguf.inp"
        if not model.exists() or not inp.exists():
            self.skipTest(f"shared test data not found at {TESTDATA}")
        f = gguf.GGUFFile(model)
        self.assertEqual(f.kv["tokenizer.ggml.pre"], "qwen2")
        tok = bpe.Tokenizer([tuple(m.split(" ", 1)) for m in f.kv["tokenizer.ggml.merges"]],
                            f.kv["tokenizer.ggml.tokens"], f.kv["tokenizer.ggml.token_type"])
        cases = inp.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")[:-1]
        expected = inp.with_suffix(".out").read_text().split("\n")
        self.assertEqual(len(cases), 46)
        for text, want in zip(cases, expected):
            with self.subTest(text=text[:40]):
                self.assertEqual(tok.encode(text), [int(x) for x in want.split()])


if __name__ == "__main__":
    unittest.main()
