#include "server/cli/model_info.h"

#include <algorithm>
#include <cstdio>

#include "engine/decode/copy_predictor.h"
#include "engine/model/gate_threshold.h"
#include "server/prompt/confidence_gate.h"

namespace wafer {
namespace {

constexpr const char* kGroupOrder[] = {"embeddings", "attention", "ffn", "output", "other"};

std::string group_of(std::string_view name) {
  if (name.starts_with("token_embd")) return "embeddings";
  if (name.starts_with("output")) return "output";  // output.weight, output_norm.weight
  if (name.starts_with("blk.")) {
    size_t dot = name.find('.', 4);
    std::string_view rest = dot == std::string_view::npos ? "" : name.substr(dot + 1);
    if (rest.starts_with("attn")) return "attention";
    if (rest.starts_with("ffn")) return "ffn";
  }
  return "other";
}

// "25674912" -> "25,674,912"
std::string grouped(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string human_bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string human_count(uint64_t n) {
  char buf[32];
  if (n >= 1000000000) std::snprintf(buf, sizeof buf, "%.2fB", n / 1e9);
  else if (n >= 1000000) std::snprintf(buf, sizeof buf, "%.1fM", n / 1e6);
  else if (n >= 1000) std::snprintf(buf, sizeof buf, "%.1fK", n / 1e3);
  else std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
  return buf;
}

std::string fmt_float(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string string_or_empty(const GgufFile& f, const char* key) {
  auto v = f.get_string(key);
  return v ? std::string(*v) : std::string();
}

void line(std::string& out, const std::string& label, const std::string& value) {
  std::string l = label;
  l.resize(std::max<size_t>(14, l.size() + 1), ' ');  // a space after the longest labels too
  out += l + value + "\n";
}

}  // namespace

ModelReport describe_model(const GgufFile& f, const std::string& path) {
  ModelReport info;
  info.path = path;
  info.file_size = f.file_size();
  info.gguf_version = f.version();
  info.architecture = string_or_empty(f, "general.architecture");
  auto config = read_model_config(f);
  if (config) info.config = *config;
  else info.config_error = config.error().message;
  info.parameters = parameter_count(f);
  info.tensor_count = f.tensors().size();

  std::map<std::string, TensorGroup> groups;
  for (const GgufTensor& t : f.tensors()) {
    std::string type(tensor_type_name(t.type));
    info.types[type].tensors += 1;
    info.types[type].bytes += t.n_bytes;
    TensorGroup& g = groups[group_of(t.name)];
    g.tensors += 1;
    g.bytes += t.n_bytes;
    g.parameters += t.n_elements;
    g.types[type] += 1;
  }
  for (const char* name : kGroupOrder) {
    auto it = groups.find(name);
    if (it == groups.end()) continue;
    it->second.name = name;
    info.groups.push_back(it->second);
  }
  info.tokenizer_model = string_or_empty(f, "tokenizer.ggml.model");
  info.tokenizer_pre = string_or_empty(f, "tokenizer.ggml.pre");
  if (auto n = f.get_array_length("tokenizer.ggml.tokens")) info.n_tokens = *n;
  info.fim = describe_fim(f);
  info.copy_strength = model_copy_strength(f);
  info.min_confidence = model_min_confidence(f);
  return info;
}

std::string info_text(const ModelReport& m) {
  std::string s;
  line(s, "file", m.path + " (" + human_bytes(m.file_size) + ", " + grouped(m.file_size) + " bytes, GGUF v" +
                      std::to_string(m.gguf_version) + ")");
  line(s, "architecture", m.architecture.empty() ? "(none)" : m.architecture);
  if (m.config) {
    const ModelConfig& c = *m.config;
    if (!c.arch->supported) line(s, "", "(read, but wafer cannot run this architecture yet)");
    if (!c.name.empty()) line(s, "name", c.name);
    line(s, "layers", std::to_string(c.n_layer));
    line(s, "width", std::to_string(c.n_embd));
    line(s, "heads", std::to_string(c.n_head) + " (kv heads " + std::to_string(c.n_head_kv) + ", head dim " +
                         std::to_string(c.head_dim_k) + (c.head_dim_v != c.head_dim_k ? "/" + std::to_string(c.head_dim_v) : "") +
                         ")");
    line(s, "ffn", std::to_string(c.n_ff));
    line(s, "vocab", std::to_string(c.n_vocab));
    line(s, "context", std::to_string(c.context_length));
    line(s, "rope", std::string(c.arch->rope == RopeLayout::NeoX ? "neox" : "normal") + ", base " +
                        fmt_float(c.rope_freq_base) +
                        (c.rope_scaling.type == "none" ? "" : ", scaling " + c.rope_scaling.type + " x" +
                                                                  fmt_float(c.rope_scaling.factor)));
    line(s, "norm eps", fmt_float(c.norm_eps));
    line(s, "output", c.tied_output ? "tied to token_embd" : "output.weight");
  } else {
    line(s, "model", "hyper-parameters unavailable: " + m.config_error);
  }
  line(s, "parameters", human_count(m.parameters) + " (" + grouped(m.parameters) + ") in " +
                            std::to_string(m.tensor_count) + " tensors");
  std::string types;
  for (const auto& [name, u] : m.types)
    types += (types.empty() ? "" : ", ") + name + " x" + std::to_string(u.tensors) + " (" + human_bytes(u.bytes) + ")";
  line(s, "types", types.empty() ? "(no tensors)" : types);
  for (const TensorGroup& g : m.groups) {
    std::string t;
    for (const auto& [name, n] : g.types) t += (t.empty() ? "" : " ") + name + " x" + std::to_string(n);
    line(s, "  " + g.name, std::to_string(g.tensors) + (g.tensors == 1 ? " tensor, " : " tensors, ") + human_bytes(g.bytes) + ", " +
                               human_count(g.parameters) + " params: " + t);
  }
  line(s, "tokenizer", m.tokenizer_model.empty()
                           ? "(none)"
                           : m.tokenizer_model + (m.tokenizer_pre.empty() ? "" : " / pre " + m.tokenizer_pre) + ", " +
                                 std::to_string(m.n_tokens) + " tokens");
  if (m.fim.tokens.empty()) {
    line(s, "fim", "no FIM tokens found");
  } else {
    std::string t;
    for (const FimToken& f : m.fim.tokens) t += (t.empty() ? "" : ", ") + f.role + " " + std::to_string(f.id) + " " + f.text;
    line(s, "fim", t + " (from " + m.fim.source + "; prompt format " + m.fim.format + ")");
  }
  if (m.copy_strength > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "on, strength %g (wafer.copy_strength)", m.copy_strength);
    line(s, "copy predictor", buf);
  }
  {
    char buf[96];
    if (m.min_confidence > 0)
      std::snprintf(buf, sizeof buf, "%g (wafer.min_confidence; minConfidence auto uses it)", m.min_confidence);
    else
      std::snprintf(buf, sizeof buf, "none in the file (minConfidence auto uses %g)", kDefaultMinConfidence);
    line(s, "confidence gate", buf);
  }
  return s;
}

nlohmann::json info_json(const ModelReport& m) {
  using nlohmann::json;
  json j;
  j["file"] = m.path;
  j["file_size"] = m.file_size;
  j["gguf_version"] = m.gguf_version;
  j["architecture"] = m.architecture;
  if (m.config) {
    const ModelConfig& c = *m.config;
    j["supported"] = c.arch->supported;
    j["name"] = c.name;
    j["hparams"] = {{"n_layer", c.n_layer},
                    {"n_embd", c.n_embd},
                    {"n_head", c.n_head},
                    {"n_head_kv", c.n_head_kv},
                    {"head_dim_k", c.head_dim_k},
                    {"head_dim_v", c.head_dim_v},
                    {"n_ff", c.n_ff},
                    {"n_vocab", c.n_vocab},
                    {"n_rot", c.n_rot},
                    {"context_length", c.context_length},
                    {"rope_layout", c.arch->rope == RopeLayout::NeoX ? "neox" : "normal"},
                    {"rope_freq_base", c.rope_freq_base},
                    {"rope_scaling", {{"type", c.rope_scaling.type},
                                      {"factor", c.rope_scaling.factor},
                                      {"original_context", c.rope_scaling.original_context}}},
                    {"norm_eps", c.norm_eps},
                    {"tied_output", c.tied_output}};
  } else {
    j["supported"] = false;
    j["hparams"] = nullptr;
    j["hparams_error"] = m.config_error;
  }
  j["parameters"] = m.parameters;
  j["tensor_count"] = m.tensor_count;
  j["types"] = json::object();
  for (const auto& [name, u] : m.types) j["types"][name] = {{"tensors", u.tensors}, {"bytes", u.bytes}};
  j["groups"] = json::object();
  for (const TensorGroup& g : m.groups)
    j["groups"][g.name] = {{"tensors", g.tensors}, {"bytes", g.bytes}, {"parameters", g.parameters}, {"types", g.types}};
  j["tokenizer"] = {{"model", m.tokenizer_model}, {"pre", m.tokenizer_pre}, {"tokens", m.n_tokens}};
  json fim = json::array();
  for (const FimToken& f : m.fim.tokens) fim.push_back({{"role", f.role}, {"id", f.id}, {"text", f.text}});
  j["fim"] = {{"tokens", fim}, {"source", m.fim.source}, {"format", m.fim.format}};
  j["copy_strength"] = m.copy_strength;
  j["min_confidence"] = m.min_confidence > 0 ? json(m.min_confidence) : json(nullptr);
  return j;
}

}  // namespace wafer
