"""model.py: the key/value-cached decode_step (what eval.py decodes with) gives the same
logits as the full forward pass, for a prompt and then one token at a time."""

import unittest

from support import HAVE_TORCH


@unittest.skipUnless(HAVE_TORCH, "torch needed")
class CachedDecode(unittest.TestCase):
    def test_decode_step_matches_full_forward(self):
        import torch
        from model import Config, Llama
        torch.manual_seed(0)
        torch.set_num_threads(1)
        m = Llama(Config(n_vocab=300, n_ctx=64, d_model=48, n_layer=2, n_head=6, n_kv_head=2,
                         d_ff=64)).eval()
        with torch.no_grad():   # sharp attention, so a wrong position or mask shows
            for b in m.blocks:
                b.wq.weight.mul_(8.0)
                b.wk.weight.mul_(8.0)
            ids = torch.randint(0, 300, (1, 40))
            full = m(ids)[0]
            cache: list = []
            got = [m.decode_step(ids[:, :30], cache)[0]]
            got += [m.decode_step(ids[:, t:t + 1], cache)[0] for t in range(30, 40)]
        for i, t in enumerate(range(29, 40)):
            self.assertLess(float((got[i] - full[t]).abs().max()), 1e-4, f"position {t}")
        # a different token at position 35 changes that row: the cache is really used
        self.assertGreater(float((full[35] - full[34]).abs().max()), 1e-3)


if __name__ == "__main__":
    unittest.main()
