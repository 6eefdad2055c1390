"""eval.py: the baseline, the cursor cases, and first-token scoring done alike for every
predictor (the bundled model once scored exactly 0 on it)."""

import unittest

from support import HAVE_NUMPY  # noqa: F401  (puts tools/train on sys.path)

import bpe
import eval as ev

TEXT = "".join(f"def f{i}(x):\n    y = x + {i}\n    return y * 2\n\n" for i in range(20))


class Eval(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = bpe.Tokenizer(bpe.train([TEXT], 300, log=lambda *_: None))

    def test_first_token_is_scored_on_text_for_model_and_baseline_alike(self):
        tok = self.tok
        self.assertTrue(ev.first_token_hit(tok, "return y * 2", "return y * 3"))
        self.assertFalse(ev.first_token_hit(tok, "    return y", "return y"))  # repeated indent
        self.assertFalse(ev.first_token_hit(tok, "", "return y"))           # nothing predicted
        self.assertFalse(ev.first_token_hit(tok, "", ""))

    def test_cases_put_the_cursor_on_code_and_baseline_repeats_a_similar_line(self):
        docs = [{"path": "a.py", "text": TEXT}]
        cases = ev.make_cases(docs, 50, seed=1)
        self.assertEqual(len(cases), 50)
        for c in cases:
            self.assertTrue(c.target.strip())
            if not c.typed.strip():   # at the start of a line: after the indentation
                self.assertFalse(c.target[0].isspace())
            self.assertEqual(c.prefix + c.target + "\n" + c.suffix, TEXT)
        case = ev.Case(TEXT.split("\n"), 10, 4, "a.py")  # "    return y * 2" of f2, cursor at "return"
        self.assertEqual(case.typed, "    ")
        self.assertEqual(ev.baseline(case), "return y * 2")


if __name__ == "__main__":
    unittest.main()
