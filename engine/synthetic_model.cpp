#include "engine/synthetic_model.h"

#include "engine/gguf_writer.h"
#include "engine/model_config.h"

namespace wafer {
namespace {

// GPT-2's byte-to-unicode map: printable Latin-1 bytes stand for themselves, the other 68
// bytes map to U+0100.. in byte order. Returned as UTF-8.
std::string byte_token(int b) {
  auto printable = [](int c) { return (c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174 && c <= 255); };
  int cp = b;
  if (!printable(b)) {
    int n = 0;
    for (int c = 0; c < b; ++c) n += !printable(c);
    cp = 256 + n;
  }
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else {
    s += static_cast<char>(0xc0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  }
  return s;
}

// A counter-based generator: each (seed, tensor, row) gets its own stream, so rows can be
// produced in any order and a tensor's values do not depend on the others' shapes.
uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Approximately normal values: each is the sum of four 16-bit uniforms (Irwin-Hall, mean 2,
// variance 1/3) rescaled to N(mean, std^2) — tails end at 3.5 sigma, which random test
// weights do not miss, and one 64-bit draw per value keeps a 0.5B-parameter file fast.
void normal_row(uint64_t seed, uint64_t tensor, uint64_t row, float mean, float std, float* out, uint64_t n) {
  uint64_t s = seed * 0x100000001b3ull ^ (tensor << 40) ^ row;
  splitmix(s);
  const float scale = std * 1.7320508f / 65536.0f;  // sqrt(3) per unit of the 16-bit sum
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t r = splitmix(s);
    int64_t sum = static_cast<int64_t>((r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48));
    out[i] = mean + scale * static_cast<float>(sum - 2 * 65535);
  }
}

}  // namespace

Result<SyntheticVocab> synthetic_vocab(uint32_t n_vocab) {
  SyntheticVocab v;
  for (int b = 0; b < 256; ++b) {
    v.tokens.push_back(byte_token(b));
    v.token_types.push_back(1);
  }
  // A few merges typical of code: runs of spaces, "def", "return", "in".
  const char* merges[][2] = {{"Ġ", "Ġ"}, {"ĠĠ", "ĠĠ"}, {"d", "e"}, {"de", "f"}, {"r", "e"}, {"re", "t"},
                             {"u", "r"},  {"ur", "n"},  {"ret", "urn"}, {"i", "n"}, {"Ġ", "in"}, {"Ċ", "ĠĠĠĠ"}};
  for (auto& m : merges) {
    v.merges.push_back(std::string(m[0]) + " " + m[1]);
    v.tokens.push_back(std::string(m[0]) + m[1]);
    v.token_types.push_back(1);
  }
  auto control = [&](const char* text) {
    v.tokens.push_back(text);
    v.token_types.push_back(3);
    return static_cast<int32_t>(v.tokens.size() - 1);
  };
  v.endoftext = control("<|endoftext|>");
  v.fim_prefix = control("<|fim_prefix|>");
  v.fim_middle = control("<|fim_middle|>");
  v.fim_suffix = control("<|fim_suffix|>");
  v.fim_pad = control("<|fim_pad|>");
  v.repo_name = control("<|repo_name|>");
  v.file_sep = control("<|file_sep|>");
  if (n_vocab != 0 && n_vocab < v.tokens.size())
    return make_error("synthetic model: n_vocab " + std::to_string(n_vocab) + " is smaller than the base vocabulary (" +
                      std::to_string(v.tokens.size()) + ")");
  while (v.tokens.size() < n_vocab) {
    v.tokens.push_back("[PAD" + std::to_string(v.tokens.size()) + "]");
    v.token_types.push_back(5);
  }
  return v;
}

namespace {

// The type a Q4_K_M-style mix gives a tensor that would otherwise have `type`.
TensorType mixed_type(const SyntheticModelSpec& s, TensorType type, uint64_t row_len, bool more_bits_role,
                      uint32_t layer) {
  if (!s.k_quant_mix) return type;
  const uint32_t n = s.n_layer;
  const bool more_bits = layer < n / 8 || layer >= 7 * n / 8 || (layer - n / 8) % 3 == 2;
  if (more_bits_role && more_bits) type = TensorType::Q6_K;
  if (row_len % 256 != 0) {
    if (type == TensorType::Q4_K) return TensorType::Q5_0;
    if (type == TensorType::Q6_K || type == TensorType::Q5_K) return TensorType::Q8_0;
  }
  return type;
}

}  // namespace

Status write_synthetic_model(const SyntheticModelSpec& s, const std::filesystem::path& path) {
  const ArchInfo* arch = find_architecture(s.architecture);
  if (!arch || !arch->supported)
    return make_error("synthetic model: architecture '" + s.architecture + "' is not llama or qwen2");
  if (s.n_head == 0 || s.n_head_kv == 0 || s.n_head % s.n_head_kv != 0)
    return make_error("synthetic model: n_head_kv must divide n_head");
  if (s.head_dim == 0 && s.n_embd % s.n_head != 0)
    return make_error("synthetic model: n_embd is not a multiple of n_head (set head_dim)");
  auto vocab = synthetic_vocab(s.n_vocab);
  if (!vocab) return vocab.error();
  const uint64_t n_vocab = vocab->tokens.size();
  const uint32_t head_dim = s.head_dim ? s.head_dim : s.n_embd / s.n_head;
  const uint64_t q_dim = uint64_t{s.n_head} * head_dim, kv_dim = uint64_t{s.n_head_kv} * head_dim;
  const std::string a = s.architecture + ".";

  GgufWriter w;
  w.add_string("general.architecture", s.architecture);
  w.add_string("general.name", s.name);
  w.add_u32(a + "context_length", s.context_length);
  w.add_u32(a + "embedding_length", s.n_embd);
  w.add_u32(a + "block_count", s.n_layer);
  w.add_u32(a + "feed_forward_length", s.n_ff);
  w.add_u32(a + "attention.head_count", s.n_head);
  w.add_u32(a + "attention.head_count_kv", s.n_head_kv);
  if (s.head_dim) {
    w.add_u32(a + "attention.key_length", head_dim);
    w.add_u32(a + "attention.value_length", head_dim);
  }
  w.add_f32(a + "rope.freq_base", s.rope_freq_base);
  w.add_f32(a + "attention.layer_norm_rms_epsilon", s.norm_eps);

  w.add_string("tokenizer.ggml.model", "gpt2");
  w.add_string("tokenizer.ggml.pre", s.pre_tokenizer);
  w.add_string_array("tokenizer.ggml.tokens", vocab->tokens);
  w.add_i32_array("tokenizer.ggml.token_type", vocab->token_types);
  w.add_string_array("tokenizer.ggml.merges", vocab->merges);
  w.add_u32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(vocab->endoftext));
  w.add_u32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(vocab->endoftext));
  w.add_u32("tokenizer.ggml.padding_token_id", static_cast<uint32_t>(vocab->endoftext));
  w.add_bool("tokenizer.ggml.add_bos_token", false);
  if (s.fim_metadata) {
    w.add_u32("tokenizer.ggml.fim_pre_token_id", static_cast<uint32_t>(vocab->fim_prefix));
    w.add_u32("tokenizer.ggml.fim_suf_token_id", static_cast<uint32_t>(vocab->fim_suffix));
    w.add_u32("tokenizer.ggml.fim_mid_token_id", static_cast<uint32_t>(vocab->fim_middle));
    w.add_u32("tokenizer.ggml.fim_pad_token_id", static_cast<uint32_t>(vocab->fim_pad));
    w.add_u32("tokenizer.ggml.fim_rep_token_id", static_cast<uint32_t>(vocab->repo_name));
    w.add_u32("tokenizer.ggml.fim_sep_token_id", static_cast<uint32_t>(vocab->file_sep));
  }

  // Tensors in llama.cpp's order; each gets its own random stream (index = tensor number).
  uint64_t index = 0;
  const uint64_t seed = s.seed;
  auto add = [&](const std::string& name, TensorType type, std::vector<uint64_t> ne, float mean, float std) {
    const uint64_t row = ne[0], t = index++;
    w.add_tensor(name, type, std::move(ne), [=](uint64_t r, float* out) { normal_row(seed, t, r, mean, std, out, row); });
  };
  add("token_embd.weight", mixed_type(s, s.embd_type, s.n_embd, false, 0), {s.n_embd, n_vocab}, 0, s.embd_std);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    const TensorType wt = mixed_type(s, s.weight_type, s.n_embd, false, l);
    add(b + "attn_norm.weight", TensorType::F32, {s.n_embd}, 1, s.norm_std);
    add(b + "attn_q.weight", wt, {s.n_embd, q_dim}, 0, s.weight_std);
    add(b + "attn_k.weight", wt, {s.n_embd, kv_dim}, 0, s.weight_std);
    add(b + "attn_v.weight", mixed_type(s, s.weight_type, s.n_embd, true, l), {s.n_embd, kv_dim}, 0, s.weight_std);
    if (arch->qkv_bias) {
      add(b + "attn_q.bias", TensorType::F32, {q_dim}, 0, s.bias_std);
      add(b + "attn_k.bias", TensorType::F32, {kv_dim}, 0, s.bias_std);
      add(b + "attn_v.bias", TensorType::F32, {kv_dim}, 0, s.bias_std);
    }
    add(b + "attn_output.weight", mixed_type(s, s.weight_type, q_dim, false, l), {q_dim, s.n_embd}, 0,
        s.weight_std);
    add(b + "ffn_norm.weight", TensorType::F32, {s.n_embd}, 1, s.norm_std);
    add(b + "ffn_gate.weight", wt, {s.n_embd, s.n_ff}, 0, s.weight_std);
    add(b + "ffn_up.weight", wt, {s.n_embd, s.n_ff}, 0, s.weight_std);
    add(b + "ffn_down.weight", mixed_type(s, s.weight_type, s.n_ff, true, l), {s.n_ff, s.n_embd}, 0, s.weight_std);
  }
  add("output_norm.weight", TensorType::F32, {s.n_embd}, 1, s.norm_std);
  if (!s.tied_output)
    add("output.weight", mixed_type(s, s.output_type, s.n_embd, false, 0), {s.n_embd, n_vocab}, 0, s.weight_std);
  return w.write(path);
}

}  // namespace wafer
