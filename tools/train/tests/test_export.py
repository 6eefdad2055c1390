"""export_gguf.py: names, shapes and metadata of the export, and that the exported file
computes the same logits as the PyTorch model (via the independent numpy reference)."""

import random
import tempfile
import unittest
from pathlib import Path

from support import HAVE_NUMPY, HAVE_TORCH

import bpe

TEXT = "".join(f"def f{i}(x):\n    return x * {i} + 1\n\n" for i in range(40))


@unittest.skipUnless(HAVE_NUMPY and HAVE_TORCH, "numpy and torch needed")
class Export(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch
        import export_gguf
        from model import Config, Llama
        torch.manual_seed(0)
        torch.set_num_threads(1)
        cls.tok = bpe.Tokenizer(bpe.train([TEXT], 256 + 7 + 57, log=lambda *_: None))
        cls.cfg = Config(n_vocab=cls.tok.n_vocab, n_ctx=64, d_model=64, n_layer=2, n_head=4,
                         n_kv_head=2, d_ff=96)
        cls.model = Llama(cls.cfg)
        with torch.no_grad():   # non-trivial norms, sharp attention (so RoPE layout matters)
            for name, p in cls.model.named_parameters():
                if name.endswith("norm.weight"):
                    p.uniform_(0.5, 1.5)
                elif name.endswith(("wq.weight", "wk.weight")):
                    p.mul_(10.0)
        cls.dir = tempfile.TemporaryDirectory()
        cls.paths = {}
        for qtype in ("f16", "q8_0"):
            cls.paths[qtype] = Path(cls.dir.name) / f"m-{qtype}.gguf"
            export_gguf.export(cls.model.state_dict(), cls.cfg.to_dict(), cls.tok,
                               cls.paths[qtype], qtype, copy_strength=1.5 if qtype == "q8_0" else 0.0)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_metadata_and_tensor_names(self):
        import gguf
        f = gguf.GGUFFile(self.paths["q8_0"])
        kv = f.kv
        self.assertEqual(kv["general.architecture"], "llama")
        self.assertEqual(kv["tokenizer.ggml.model"], "gpt2")
        self.assertEqual(kv["tokenizer.ggml.pre"], "qwen2")
        self.assertEqual(kv["llama.attention.head_count_kv"], 2)
        self.assertEqual(len(kv["tokenizer.ggml.tokens"]), self.tok.n_vocab)
        self.assertEqual(kv["tokenizer.ggml.fim_pre_token_id"], self.tok.special("<|fim_prefix|>"))
        self.assertEqual(kv["tokenizer.ggml.fim_mid_token_id"], self.tok.special("<|fim_middle|>"))
        self.assertEqual(kv["tokenizer.ggml.token_type"][kv["tokenizer.ggml.eos_token_id"]], 3)
        self.assertEqual(kv["tokenizer.ggml.merges"][0], " ".join(self.tok.merges[0]))
        self.assertEqual(f.infos["token_embd.weight"][0], (64, self.tok.n_vocab))
        self.assertEqual(f.infos["blk.1.attn_k.weight"][0], (64, 32))
        self.assertEqual(f.infos["blk.0.ffn_down.weight"][0], (96, 64))
        self.assertEqual(f.infos["blk.0.attn_norm.weight"][1], gguf.GGML_F32)
        self.assertEqual(f.infos["blk.0.attn_q.weight"][1], gguf.GGML_Q8_0)
        self.assertNotIn("output.weight", f.infos)          # tied embeddings
        self.assertEqual(len(f.infos), 2 + 9 * 2)
        self.assertEqual(kv["wafer.copy_strength"], 1.5)     # wafer's copy predictor: on
        self.assertNotIn("wafer.copy_strength", gguf.GGUFFile(self.paths["f16"]).kv)

    def test_exported_file_computes_the_models_logits(self):
        import numpy as np
        import torch
        from reference import ReferenceLlama
        rng = random.Random(0)
        ids = [rng.randrange(self.tok.n_vocab) for _ in range(40)]
        with torch.no_grad():
            want = self.model(torch.tensor([ids]))[0].double().numpy()
        for qtype, tol in (("f16", 2e-3), ("q8_0", 2e-2)):
            got = ReferenceLlama(self.paths[qtype]).logits(ids)
            with self.subTest(qtype=qtype):
                self.assertLess(np.abs(got - want).max(), tol)
                self.assertTrue((got.argmax(-1) == want.argmax(-1)).mean() > 0.9)

    def test_rope_is_the_normal_pairwise_layout(self):
        """A NeoX-style (rotate-half) reading of the same weights must disagree."""
        import numpy as np
        import torch
        from reference import ReferenceLlama
        ref = ReferenceLlama(self.paths["f16"])
        ids = list(range(30))
        good = ref.logits(ids)

        def neox(x):
            T, half = x.shape[0], ref.n_rot // 2
            freqs = ref.base ** (-np.arange(half) * 2.0 / ref.n_rot)
            ang = np.outer(np.arange(T), freqs)[:, None, :]
            a, b = x[..., :half], x[..., half:ref.n_rot]
            out = x.copy()
            out[..., :half] = a * np.cos(ang) - b * np.sin(ang)
            out[..., half:ref.n_rot] = a * np.sin(ang) + b * np.cos(ang)
            return out
        ref._rope = neox
        with torch.no_grad():
            want = self.model(torch.tensor([ids]))[0].double().numpy()
        self.assertLess(np.abs(good - want).max(), 2e-3)
        self.assertGreater(np.abs(ref.logits(ids) - want).max(), 1e-2)


if __name__ == "__main__":
    unittest.main()
