"""gguf.py: writer/reader round trip and ggml's Q8_0 reference quantization."""

import struct
import tempfile
import unittest
from pathlib import Path

from support import HAVE_NUMPY

if HAVE_NUMPY:
    import numpy as np
    import gguf


@unittest.skipUnless(HAVE_NUMPY, "numpy not installed")
class Q8_0(unittest.TestCase):
    def test_block_layout_scale_and_rounding(self):
        x = np.zeros(32, np.float32)
        x[0], x[1], x[2], x[3] = 127.0, -63.5, 0.5, -1.5     # d = 1: exact halves
        raw = gguf.quantize_q8_0(x)
        self.assertEqual(len(raw), 34)
        d, = struct.unpack_from("<e", raw, 0)
        self.assertEqual(d, 1.0)
        q = np.frombuffer(raw[2:], np.int8)
        self.assertEqual(list(q[:4]), [127, -64, 1, -2])     # half away from zero
        self.assertTrue(np.all(q[4:] == 0))

    def test_zero_block_and_error_bound(self):
        self.assertEqual(gguf.quantize_q8_0(np.zeros(32, np.float32)), b"\0" * 34)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((4, 64)).astype(np.float32)
        back = gguf.dequantize_q8_0(gguf.quantize_q8_0(x), x.shape)
        amax = np.abs(x.reshape(-1, 32)).max(axis=1).repeat(32).reshape(x.shape)
        self.assertTrue(np.all(np.abs(back - x) <= amax / 127 * 0.51 + 1e-3))


@unittest.skipUnless(HAVE_NUMPY, "numpy not installed")
class RoundTrip(unittest.TestCase):
    def test_metadata_and_tensors(self):
        w = gguf.GGUFWriter()
        w.add("general.architecture", gguf.T_STRING, "llama")
        w.add("llama.block_count", gguf.T_UINT32, 3)
        w.add("llama.rope.freq_base", gguf.T_FLOAT32, 10000.0)
        w.add("tokenizer.ggml.tokens", gguf.T_ARRAY, ["a", "Ġb", "<|x|>"], gguf.T_STRING)
        w.add("tokenizer.ggml.token_type", gguf.T_ARRAY, [1, 1, 3], gguf.T_INT32)
        w.add("tokenizer.ggml.add_bos_token", gguf.T_BOOL, False)
        rng = np.random.default_rng(1)
        a = rng.standard_normal((3, 64)).astype(np.float32)
        b = rng.standard_normal(7).astype(np.float32)
        w.add_tensor("a16", a, gguf.GGML_F16)
        w.add_tensor("b32", b, gguf.GGML_F32)
        w.add_tensor("a8", a, gguf.GGML_Q8_0)
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "t.gguf"
            w.write(path)
            f = gguf.GGUFFile(path)
            raw = path.read_bytes()
        self.assertEqual(raw[:4], b"GGUF")
        self.assertEqual(struct.unpack_from("<IQQ", raw, 4), (3, 3, 6))
        self.assertEqual(f.kv["llama.block_count"], 3)
        self.assertEqual(f.kv["tokenizer.ggml.tokens"], ["a", "Ġb", "<|x|>"])
        self.assertEqual(f.kv["tokenizer.ggml.token_type"], [1, 1, 3])
        self.assertIs(f.kv["tokenizer.ggml.add_bos_token"], False)
        self.assertEqual(f.infos["a16"][0], (64, 3))          # ggml dims = reversed shape
        for _name, (_dims, _type, off) in f.infos.items():
            self.assertEqual(off % gguf.ALIGNMENT, 0)
        self.assertEqual(f.data_start % gguf.ALIGNMENT, 0)
        np.testing.assert_array_equal(f.tensor("b32"), b)
        np.testing.assert_allclose(f.tensor("a16"), a, atol=2e-3)
        np.testing.assert_allclose(f.tensor("a8"), a, atol=np.abs(a).max() / 127)

    def test_set_keys_keeps_tensors(self):
        w = gguf.GGUFWriter()
        w.add("general.architecture", gguf.T_STRING, "llama")
        w.add("wafer.copy_strength", gguf.T_FLOAT32, 1.0)
        a = np.arange(96, dtype=np.float32).reshape(3, 32)
        w.add_tensor("a", a, gguf.GGML_F32)
        w.add_tensor("b", a[:1], gguf.GGML_Q8_0)
        with tempfile.TemporaryDirectory() as d:
            src, dst = Path(d) / "in.gguf", Path(d) / "out.gguf"
            w.write(src)
            gguf.set_keys(src, dst, [("wafer.min_confidence", gguf.T_FLOAT32, 0.75),
                                     ("wafer.copy_strength", gguf.T_FLOAT32, 2.0)])
            f, g = gguf.GGUFFile(src), gguf.GGUFFile(dst)
            self.assertEqual(gguf.main(["gguf.py", "set", str(dst), str(dst) + "2", "x", "u64", "1"]), 2)
        self.assertEqual(g.kv["wafer.min_confidence"], 0.75)
        self.assertEqual(g.kv["wafer.copy_strength"], 2.0)
        self.assertEqual(g.kv["general.architecture"], "llama")
        self.assertEqual(len(g.kv), 3)
        self.assertEqual(g.data_start % gguf.ALIGNMENT, 0)
        self.assertEqual(g.infos, f.infos)
        self.assertEqual(g.data[g.data_start:], f.data[f.data_start:])
        np.testing.assert_array_equal(g.tensor("a"), a)

    def test_q8_0_rejects_bad_row_length(self):
        with self.assertRaises(ValueError):
            gguf.GGUFWriter().add_tensor("x", np.zeros((2, 20), np.float32), gguf.GGML_Q8_0)

    def test_reader_rejects_garbage(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "bad.gguf"
            p.write_bytes(b"NOPE" + b"\0" * 40)
            with self.assertRaises(ValueError):
                gguf.GGUFFile(p)


if __name__ == "__main__":
    unittest.main()
