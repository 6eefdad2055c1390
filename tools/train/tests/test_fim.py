"""fim.py: FIM example layout (PSM/SPM), truncation, padding and middle spans."""

import random
import unittest

from support import HAVE_NUMPY

import bpe
import fim

TEXT = "".join(f"def f{i}(x):\n    if x:\n        return {i}\n    return -x\n\n" for i in range(30))


class Fim(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = bpe.Tokenizer(bpe.train([TEXT], 320, log=lambda *_: None))
        cls.sp = fim.FimSpecials(cls.tok)

    def check(self, spm_rate, first, second):
        rng = random.Random(3)
        n = 0
        while n < 40:
            s = fim.fim_sample(TEXT[: rng.randrange(200, len(TEXT))], self.tok, self.sp, 128, rng,
                               spm_rate=spm_rate)
            if s is None:
                continue
            n += 1
            x, y = s
            self.assertEqual(len(x), 128)
            self.assertEqual(len(y), 128)
            self.assertEqual(x[0], first)
            self.assertEqual(x.count(second), 1)
            self.assertEqual(x.count(self.sp.mid), 1)
            m = x.index(self.sp.mid)
            self.assertLess(x.index(second), m)
            # labels are the inputs shifted by one, up to the <|endoftext|> after the middle
            # (which is only a label when the example fills the window exactly)
            end = x.index(self.sp.eot, m) if self.sp.eot in x[m:] else len(x) - 1
            self.assertEqual(y[:end], x[1:end + 1])
            if end == len(x) - 1 and self.sp.eot not in x[m:]:
                self.assertEqual(y[end], self.sp.eot)
            self.assertTrue(all(t == fim.IGNORE for t in y[end + 1:]))
            mask = fim.middle_mask(x, self.sp)
            self.assertFalse(any(mask[:m]))
            self.assertTrue(all(mask[m:end + 1]))

    def test_psm_layout(self):
        self.check(0.0, self.sp.pre, self.sp.suf)

    def test_spm_layout(self):
        self.check(1.0, self.sp.suf, self.sp.pre)

    def test_psm_reassembles_the_text(self):
        rng = random.Random(5)
        x, _ = fim.fim_sample(TEXT[:300], self.tok, self.sp, 256, rng, spm_rate=0.0)
        p, s, m = x.index(self.sp.pre), x.index(self.sp.suf), x.index(self.sp.mid)
        e = x.index(self.sp.eot, m)
        whole = self.tok.decode(x[p + 1:s]) + self.tok.decode(x[m + 1:e]) + self.tok.decode(x[s + 1:m])
        self.assertEqual(whole, TEXT[:300])

    def test_middles_are_mostly_line_aligned(self):
        rng = random.Random(9)
        lines = TEXT.splitlines(keepends=True)
        starts = {0}
        for line in lines:
            starts.add(max(starts) + len(line))
        aligned = 0
        for _ in range(400):
            a, b = fim.choose_middle(lines, rng)
            self.assertLessEqual(a, b)
            aligned += b in starts
        self.assertGreater(aligned, 300)


@unittest.skipUnless(HAVE_NUMPY, "numpy not installed")
class Plain(unittest.TestCase):
    def test_window_is_shifted_by_one(self):
        import numpy as np
        stream = np.arange(1000, dtype=np.uint16)
        x, y = fim.plain_sample(stream, 64, random.Random(1))
        self.assertEqual(len(x), 64)
        self.assertEqual(y, [t + 1 for t in x])


if __name__ == "__main__":
    unittest.main()
