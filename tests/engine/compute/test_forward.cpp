// The forward pass on small generated models: against a naive float64 transformer written
// here from the textbook formulas (F32 weights, so no activation rounding is involved), for
// llama and qwen2 layouts, several GQA ratios, odd head counts, a head dim that is not
// n_embd / n_head, and positions far into the context; batch/decode consistency for every
// weight type; and a Qwen2.5-Coder-0.5B-shaped model that loads and generates.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "engine/compute/forward.h"
#include "engine/model/model.h"
#include "engine/quant/quant.h"
#include "engine/decode/session.h"
#include "tests/engine/model_files.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

std::unique_ptr<Model> load(const std::filesystem::path& path) {
  auto m = Model::load(path);
  INFO((m.ok() ? "" : m.error().message));
  REQUIRE(m.ok());
  return std::move(*m);
}

// Weight matrix as doubles, (rows, cols) row-major.
struct Dense {
  int64_t rows = 0, cols = 0;
  std::vector<double> w;
  std::vector<double> apply(const std::vector<double>& x) const {
    std::vector<double> y(rows, 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) y[r] += w[r * cols + c] * x[c];
    return y;
  }
};

Dense dense(const GgufFile& f, const std::string& name) {
  const GgufTensor* t = f.tensor(name);
  REQUIRE(t);
  Dense d{static_cast<int64_t>(t->ne[1]), static_cast<int64_t>(t->ne[0]), {}};
  std::vector<float> row(t->ne[0]);
  const size_t rb = *row_bytes(t->type, t->ne[0]);
  for (int64_t r = 0; r < d.rows; ++r) {
    REQUIRE(quant::dequantize_row(t->type, t->data + r * rb, row.data(), d.cols));
    d.w.insert(d.w.end(), row.begin(), row.end());
  }
  return d;
}

std::vector<double> vec(const GgufFile& f, const std::string& name) { return dense(f, name).w; }

// The textbook forward pass in double precision; logits for every position. RoPE angles are
// pos * base^(-2i/d), computed in float by repeated multiplication as ggml does (the
// reference-data test checks that choice against llama.cpp).
std::vector<std::vector<double>> naive_forward(const Model& model, const std::vector<int32_t>& tokens) {
  const ModelConfig& c = model.config();
  const GgufFile& f = model.file();
  const int hd = static_cast<int>(c.head_dim_k), nh = static_cast<int>(c.n_head), nkv = static_cast<int>(c.n_head_kv);
  const bool neox = c.arch->rope == RopeLayout::NeoX;
  auto rms = [&](const std::vector<double>& x, const std::vector<double>& w) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double s = 1.0 / std::sqrt(ss / static_cast<double>(x.size()) + c.norm_eps);
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * s * w[i];
    return y;
  };
  auto rope = [&](double* v, int pos) {
    const float scale = std::pow(c.rope_freq_base, -2.0f / static_cast<float>(hd));
    float theta = static_cast<float>(pos);
    for (int i = 0; i < hd / 2; ++i, theta *= scale) {
      const int a = neox ? i : 2 * i, b = neox ? i + hd / 2 : 2 * i + 1;
      const double x0 = v[a], x1 = v[b], cs = std::cos(static_cast<double>(theta)), sn = std::sin(static_cast<double>(theta));
      v[a] = x0 * cs - x1 * sn;
      v[b] = x0 * sn + x1 * cs;
    }
  };
  const Dense embd = dense(f, "token_embd.weight");
  std::vector<std::vector<double>> x;
  for (int32_t t : tokens) x.emplace_back(embd.w.begin() + t * embd.cols, embd.w.begin() + (t + 1) * embd.cols);
  const size_t n = tokens.size();
  for (uint32_t l = 0; l < c.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    const Dense wq = dense(f, p + "attn_q.weight"), wk = dense(f, p + "attn_k.weight"), wv = dense(f, p + "attn_v.weight");
    const Dense wo = dense(f, p + "attn_output.weight");
    std::vector<std::vector<double>> q(n), k(n), v(n);
    for (size_t t = 0; t < n; ++t) {
      const auto xn = rms(x[t], vec(f, p + "attn_norm.weight"));
      q[t] = wq.apply(xn);
      k[t] = wk.apply(xn);
      v[t] = wv.apply(xn);
      if (c.arch->qkv_bias) {
        const auto bq = vec(f, p + "attn_q.bias"), bk = vec(f, p + "attn_k.bias"), bv = vec(f, p + "attn_v.bias");
        for (size_t i = 0; i < q[t].size(); ++i) q[t][i] += bq[i];
        for (size_t i = 0; i < k[t].size(); ++i) k[t][i] += bk[i], v[t][i] += bv[i];
      }
      for (int h = 0; h < nh; ++h) rope(q[t].data() + h * hd, static_cast<int>(t));
      for (int h = 0; h < nkv; ++h) rope(k[t].data() + h * hd, static_cast<int>(t));
    }
    for (size_t t = 0; t < n; ++t) {
      std::vector<double> att(static_cast<size_t>(nh) * hd, 0.0);
      for (int h = 0; h < nh; ++h) {
        const int g = h / (nh / nkv);
        std::vector<double> s(t + 1);
        double mx = -1e300, sum = 0;
        for (size_t j = 0; j <= t; ++j) {
          double d = 0;
          for (int i = 0; i < hd; ++i) d += q[t][h * hd + i] * k[j][g * hd + i];
          s[j] = d / std::sqrt(static_cast<double>(hd));
          mx = std::max(mx, s[j]);
        }
        for (double& e : s) sum += e = std::exp(e - mx);
        for (size_t j = 0; j <= t; ++j)
          for (int i = 0; i < hd; ++i) att[h * hd + i] += s[j] / sum * v[j][g * hd + i];
      }
      const auto o = wo.apply(att);
      for (size_t i = 0; i < o.size(); ++i) x[t][i] += o[i];
    }
    const Dense wg = dense(f, p + "ffn_gate.weight"), wu = dense(f, p + "ffn_up.weight"), wd = dense(f, p + "ffn_down.weight");
    for (size_t t = 0; t < n; ++t) {
      const auto xn = rms(x[t], vec(f, p + "ffn_norm.weight"));
      auto g = wg.apply(xn);
      const auto u = wu.apply(xn);
      for (size_t i = 0; i < g.size(); ++i) g[i] = g[i] / (1 + std::exp(-g[i])) * u[i];
      const auto d = wd.apply(g);
      for (size_t i = 0; i < d.size(); ++i) x[t][i] += d[i];
    }
  }
  const Dense out = dense(f, f.tensor("output.weight") ? "output.weight" : "token_embd.weight");
  std::vector<std::vector<double>> logits;
  for (size_t t = 0; t < n; ++t) logits.push_back(out.apply(rms(x[t], vec(f, "output_norm.weight"))));
  return logits;
}

std::vector<int32_t> some_tokens(size_t n, uint32_t vocab, uint32_t seed) {
  std::vector<int32_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<int32_t>((i * 7919 + seed * 31 + 13) % vocab);
  return t;
}

double max_diff_vs_naive(const test::TestModelSpec& spec, size_t n_tokens) {
  test::TempDir dir;
  REQUIRE(test::write_test_model(spec, dir / "m.gguf").ok());
  auto model = load(dir / "m.gguf");
  const auto tokens = some_tokens(n_tokens, spec.n_vocab, static_cast<uint32_t>(spec.seed));
  ThreadPool pool(2);
  Forward fwd(*model, pool, 64);  // chunks of 64: long prompts also cross chunk borders
  auto kv = KvCache::create(model->config(), static_cast<int>(n_tokens));
  REQUIRE(kv.ok());
  std::vector<float> logits;
  REQUIRE(fwd.run(tokens, *kv, LogitsFor::kAll, logits).ok());
  const auto expect = naive_forward(*model, tokens);
  double worst = 0;
  for (size_t t = 0; t < n_tokens; ++t)
    for (uint32_t i = 0; i < spec.n_vocab; ++i)
      worst = std::max(worst, std::fabs(logits[t * spec.n_vocab + i] - expect[t][i]));
  return worst;
}

}  // namespace

TEST_CASE("forward: matches a float64 transformer across layouts and head shapes", "[forward]") {
  struct Shape {
    const char* arch;
    uint32_t n_embd, n_head, n_head_kv, head_dim;
    bool tied;
  };
  // GQA 2:1, 3:1 with an odd head count, 5 heads without GQA, 8:1, and a head dim (24)
  // unrelated to n_embd / n_head; llama (normal RoPE) and qwen2 (NeoX RoPE + QKV bias).
  const Shape shapes[] = {
      {"llama", 64, 4, 2, 0, false}, {"qwen2", 64, 4, 2, 0, true},  {"llama", 48, 3, 1, 0, false},
      {"qwen2", 80, 5, 5, 0, false}, {"llama", 64, 8, 1, 0, true},  {"qwen2", 40, 6, 2, 24, false},
  };
  for (const Shape& s : shapes) {
    test::TestModelSpec spec;
    spec.arch = s.arch;
    spec.n_embd = s.n_embd;
    spec.n_head = s.n_head;
    spec.n_head_kv = s.n_head_kv;
    spec.head_dim = s.head_dim;
    spec.tied = s.tied;
    spec.seed = s.n_embd + s.n_head;
    INFO(s.arch << " n_embd " << s.n_embd << " heads " << s.n_head << "/" << s.n_head_kv << " head_dim " << s.head_dim);
    // float32 arithmetic against float64: logits are O(5), float32 sums of ~100 products.
    CHECK(max_diff_vs_naive(spec, 20) < 2e-4);
  }
}

TEST_CASE("forward: RoPE far into the context", "[forward]") {
  // 600 positions with base 10000 and 1000 with qwen2's 1e6: the highest-frequency pair
  // turns ~100 times around, the lowest barely moves.
  test::TestModelSpec spec;
  spec.n_embd = 32;
  spec.n_head = 2;
  spec.n_head_kv = 1;
  spec.n_layer = 1;
  spec.n_ff = 32;
  CHECK(max_diff_vs_naive(spec, 600) < 2e-4);
  spec.arch = "qwen2";
  spec.rope_base = 1e6f;
  CHECK(max_diff_vs_naive(spec, 1000) < 2e-4);
}

TEST_CASE("forward: prefill of N then decode of 1 equals one prefill of N+1", "[forward]") {
  const TensorType types[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q8_0,
                              TensorType::Q4_0, TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1,
                              TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K};
  for (TensorType type : types) {
    test::TestModelSpec spec;
    spec.arch = type == TensorType::Q8_0 ? "qwen2" : "llama";
    spec.n_embd = 256;  // K-quant rows are 256 long
    spec.n_ff = 256;
    spec.n_layer = 1;
    spec.matrix_type = type;
    spec.embd_type = type;
    INFO("type " << tensor_type_name(type));
    test::TempDir dir;
    REQUIRE(test::write_test_model(spec, dir / "m.gguf").ok());
    auto model = load(dir / "m.gguf");
    ThreadPool pool(2);
    const auto tokens = some_tokens(9, spec.n_vocab, 3);
    auto a = Session::create(*model, pool, 16);
    auto b = Session::create(*model, pool, 16);
    REQUIRE((a.ok() && b.ok()));
    REQUIRE(a->eval(tokens).ok());
    REQUIRE(b->eval(std::span(tokens).first(8)).ok());
    REQUIRE(b->eval(std::span(tokens).last(1)).ok());
    REQUIRE(a->logits().size() == spec.n_vocab);
    double worst = 0, mag = 0;
    for (size_t i = 0; i < a->logits().size(); ++i) {
      worst = std::max(worst, static_cast<double>(std::fabs(a->logits()[i] - b->logits()[i])));
      mag = std::max(mag, static_cast<double>(std::fabs(a->logits()[i])));
    }
    // Every output is computed per token by the same code, so batch and single-token decode
    // agree exactly (llama.cpp itself differs slightly between the two).
    CHECK(worst == 0.0);
    CHECK(mag > 0.1);  // the model does produce non-trivial logits
  }
}

TEST_CASE("forward: a Q8_0 key cache, SIMD against the scalar reference and against halves", "[forward]") {
  // 8-bit keys change the scores by the keys' rounding (a step of max|k| / 127 per block of
  // 32 dimensions) and the query's: the logits move by a few percent of their range (this
  // random model: 0.17 of 7.2; halves instead of floats move them by 0.005), the SIMD
  // kernel and the scalar reference agree to float rounding (their integer dot products are
  // the same), and batch and single-token decode agree exactly. Wrong keys (a layout or
  // scale mistake) would move the logits by their whole range.
  test::TestModelSpec spec;
  spec.arch = "qwen2";
  spec.n_embd = 128;
  spec.n_head = 6;
  spec.n_head_kv = 2;
  spec.head_dim = 64;
  spec.n_ff = 128;
  spec.n_layer = 1;  // one attention: no rounding difference can flip a quantized query downstream
  test::TempDir dir;
  REQUIRE(test::write_test_model(spec, dir / "m.gguf").ok());
  auto simd = load(dir / "m.gguf");
  auto scalar = Model::load(dir / "m.gguf", kernels::scalar_backend());
  REQUIRE(scalar.ok());
  ThreadPool pool(2);
  const auto tokens = some_tokens(150, spec.n_vocab, 7);
  const auto run = [&](const Model& m, KvType type) {
    auto kv = KvCache::create(m.config(), 200, type);
    REQUIRE(kv.ok());
    Forward fwd(m, pool, 64);  // chunks of 64: later chunks attend to quantized keys of earlier ones
    std::vector<float> logits;
    REQUIRE(fwd.run(tokens, *kv, LogitsFor::kAll, logits).ok());
    return logits;
  };
  const auto q8 = run(*simd, KvType::Q8_0), q8_ref = run(**scalar, KvType::Q8_0), f16 = run(*simd, KvType::F16);
  double simd_vs_ref = 0, vs_f16 = 0, spread = 0;
  for (size_t i = 0; i < q8.size(); ++i) {
    simd_vs_ref = std::max(simd_vs_ref, static_cast<double>(std::fabs(q8[i] - q8_ref[i])));
    vs_f16 = std::max(vs_f16, static_cast<double>(std::fabs(q8[i] - f16[i])));
    spread = std::max(spread, static_cast<double>(std::fabs(f16[i])));
  }
  std::printf("q8_0 key cache: SIMD vs scalar %.3g, vs F16 cache %.3g (logits up to %.3g)\n", simd_vs_ref, vs_f16,
              spread);
  CHECK(simd_vs_ref < 1e-4);
  CHECK(vs_f16 > 0.0);   // the keys really are 8-bit
  CHECK(vs_f16 < 0.05 * spread);
  // Batch and decode: the last token alone after the others gives the same logits.
  auto a = Session::create(*simd, pool, 200, KvType::Q8_0);
  REQUIRE(a.ok());
  REQUIRE(a->eval(std::span(tokens).first(149)).ok());
  REQUIRE(a->eval(std::span(tokens).last(1)).ok());
  const size_t vocab = spec.n_vocab;
  for (size_t i = 0; i < vocab; ++i) REQUIRE(a->logits()[i] == q8[149 * vocab + i]);
}

TEST_CASE("forward: a Qwen2.5-Coder-0.5B-shaped Q8_0 model loads and generates", "[forward][slow]") {
  // 24 layers, 896 wide, 14 heads / 2 KV heads (head dim 64), FFN 4864, vocabulary 151936,
  // tied output: ~494M parameters, a 0.53 GB GGUF built in memory (writing it to disk made
  // the test I/O-bound on a busy machine; the bytes are the same).
  test::TestModelSpec spec;
  spec.arch = "qwen2";
  spec.n_embd = 896;
  spec.n_layer = 24;
  spec.n_head = 14;
  spec.n_head_kv = 2;
  spec.n_ff = 4864;
  spec.n_vocab = 151936;
  spec.context = 32768;
  spec.rope_base = 1e6f;
  spec.norm_eps = 1e-6f;
  spec.matrix_type = TensorType::Q8_0;
  spec.embd_type = TensorType::Q8_0;
  spec.tied = true;
  spec.random_blocks = true;
  const auto t0 = std::chrono::steady_clock::now();
  auto bytes = test::test_model_writer(spec).to_bytes();
  REQUIRE(bytes.ok());
  const auto t1 = std::chrono::steady_clock::now();
  auto file = GgufFile::parse(bytes->data(), bytes->size());
  REQUIRE(file.ok());
  auto bound = Model::bind(std::move(*file));
  REQUIRE(bound.ok());
  auto model = std::move(*bound);
  const ModelConfig& c = model->config();
  CHECK(c.n_layer == 24);
  CHECK(c.head_dim_k == 64);
  CHECK(model->output().view.rows == 151936);  // tied to token_embd

  ThreadPool pool(2);
  auto session = Session::create(*model, pool, 64);
  REQUIRE(session.ok());
  GenerateParams params;
  params.max_tokens = 2;
  const std::vector<int32_t> prompt{151659, 9707};
  auto r = session->generate(prompt, params);
  REQUIRE(r.ok());
  CHECK(r->tokens.size() == 2);
  for (int32_t t : r->tokens) CHECK((t >= 0 && t < 151936));
  CHECK(session->tokens().size() == prompt.size() + 1);
  // The greedy token is the argmax of the logits the session computed for it.
  const auto& logits = session->logits();
  CHECK(std::max_element(logits.begin(), logits.end()) - logits.begin() == r->tokens[1]);
  std::printf("0.5B-shape Q8_0: GGUF built in %.1f s; prompt of %d tokens %.0f ms; decode %.0f ms/token "
              "(%.2f tok/s, scalar, 2 threads)\n",
              std::chrono::duration<double>(t1 - t0).count(), r->prompt_tokens, r->prompt_ms, r->decode_ms,
              1000.0 / std::max(1e-3, r->decode_ms));
}
