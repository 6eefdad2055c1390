#include "engine/model/model.h"

#include <string>
#include <vector>

#include "engine/base/path_utf8.h"
#include "engine/model/arch.h"
#include "engine/model/requantize.h"
#include "engine/runtime/memory_lock.h"
#include "engine/quant/quant.h"
#include "engine/quant/quant_repack.h"

namespace wafer {
namespace {

std::string shape_string(const GgufTensor& t) {
  std::string s = "[";
  for (uint32_t i = 0; i < t.n_dims; ++i) s += (i ? ", " : "") + std::to_string(t.ne[i]);
  return s + "]";
}

Error tensor_error(const std::string& name, const std::string& why) {
  return make_error("model: tensor '" + name + "' " + why);
}

// Checks shape and type of one tensor against its spec.
Status check_tensor(const GgufTensor& t, const WeightSpec& spec, const ModelConfig& c, const std::string& name) {
  const uint64_t ne0 = resolve_dim(spec.ne0, c), ne1 = resolve_dim(spec.ne1, c);
  const bool shape_ok = t.ne[0] == ne0 && t.ne[1] == ne1 && t.ne[2] == 1 && t.ne[3] == 1;
  if (!shape_ok)
    return tensor_error(name, "has shape " + shape_string(t) + ", expected [" + std::to_string(ne0) +
                                  (spec.ne1 == Dim::kNone ? "" : ", " + std::to_string(ne1)) + "]");
  if (!quant::is_supported_weight_type(t.type))
    return tensor_error(name, "has unsupported type " + std::string(tensor_type_name(t.type)));
  if (!row_bytes(t.type, t.ne[0]) || !row_bytes(quant::vec_dot_type(t.type), t.ne[0]))
    return tensor_error(name, "rows of " + std::to_string(t.ne[0]) + " are not whole " +
                                  std::string(tensor_type_name(t.type)) + " blocks");
  return {};
}

kernels::MatrixView view_of(const GgufTensor& t) {
  kernels::MatrixView v;
  v.type = t.type;
  v.cols = static_cast<int64_t>(t.ne[0]);
  v.rows = static_cast<int64_t>(t.ne[1]);
  v.row_bytes = *row_bytes(t.type, t.ne[0]);
  v.data = t.data;
  return v;
}

std::vector<float> read_vector(const GgufTensor& t) {
  std::vector<float> out(t.ne[0]);
  quant::dequantize_row(t.type, t.data, out.data(), static_cast<int64_t>(t.ne[0]));
  return out;
}

// Packs a weight matrix for the backend, first requantized when asked and smaller.
Result<kernels::PackedMatrix> pack_weight(const kernels::MatrixView& w, const kernels::Backend& backend,
                                          ThreadPool* pool, const ModelLoadOptions& options, int& requantized) {
  if (!requantize_shrinks(w.type, options.requantize_to, w.cols)) return backend.pack(w, pool);
  auto q = requantize(w, options.requantize_to, pool);
  if (!q) return q.error();
  ++requantized;
  auto p = backend.pack(q->view, pool);
  if (!p) return p.error();
  if (p->layout == 0) p->owned = q->owned;  // the kernel reads the requantized rows themselves
  return p;
}

}  // namespace

Result<std::unique_ptr<Model>> Model::load(const std::filesystem::path& path, const kernels::Backend& backend,
                                           ThreadPool* pool, const ModelLoadOptions& options) {
  auto file = GgufFile::open(path);
  if (!file) return file.error();
  auto model = bind(std::move(*file), backend, pool, options);
  if (!model) return make_error(utf8_from_path(path) + ": " + model.error().message);
  return model;
}

Result<std::unique_ptr<Model>> Model::bind(GgufFile file, const kernels::Backend& backend, ThreadPool* pool,
                                           const ModelLoadOptions& options) {
  std::unique_ptr<Model> m(new Model(std::move(file)));
  auto config = read_model_config(m->file_);
  if (!config) return config.error();
  m->config_ = *config;
  m->backend_ = &backend;
  const ModelConfig& c = m->config_;
  if (!c.arch->supported || c.arch->norm != NormKind::RmsNorm || c.arch->ffn != FfnKind::SwiGlu)
    return make_error("model: architecture '" + std::string(c.arch->name) + "' is not supported for inference yet");
  if (c.rope_scaling.type != "none" && c.rope_scaling.type != "linear")
    return make_error("model: rope scaling '" + c.rope_scaling.type + "' is not supported");
  m->layers_.resize(c.n_layer);

  for (const WeightSpec& spec : transformer_weights()) {
    const int copies = spec.per_layer ? static_cast<int>(c.n_layer) : 1;
    for (int layer = 0; layer < copies; ++layer) {
      const std::string name = weight_name(spec, layer);
      const GgufTensor* t = m->file_.tensor(name);
      if (!t) {
        if (spec.presence == Presence::kOptional) continue;
        if (spec.presence == Presence::kIfQkvBias && !c.arch->qkv_bias) continue;
        return tensor_error(name, "is missing");
      }
      if (spec.presence == Presence::kIfQkvBias && !c.arch->qkv_bias) continue;  // not used
      if (Status s = check_tensor(*t, spec, c, name); !s) return s.error();

      kernels::PackedMatrix packed;
      std::vector<float> vec;
      if (spec.matrix) {
        auto p = pack_weight(view_of(*t), backend, pool, options, m->requantized_);
        if (!p) return tensor_error(name, p.error().message);
        packed = std::move(*p);
        // Copied into memory of its own: the file's pages need not stay resident (read
        // while packing, they would double the process's resident size).
        if (packed.data != t->data) m->file_.release(*t);
      } else if (spec.ne1 == Dim::kNone) {
        vec = read_vector(*t);
      }
      LayerWeights& L = m->layers_[static_cast<size_t>(layer)];
      switch (spec.role) {
        case WeightRole::kTokenEmbd: m->token_embd_ = view_of(*t); break;
        case WeightRole::kOutputNorm: m->output_norm_ = std::move(vec); break;
        case WeightRole::kOutput:
          m->output_ = std::move(packed);
          m->output_rows_ = view_of(*t);
          break;
        case WeightRole::kAttnNorm: L.attn_norm = std::move(vec); break;
        case WeightRole::kAttnQ: L.wq = std::move(packed); break;
        case WeightRole::kAttnK: L.wk = std::move(packed); break;
        case WeightRole::kAttnV: L.wv = std::move(packed); break;
        case WeightRole::kAttnQBias: L.bq = std::move(vec); break;
        case WeightRole::kAttnKBias: L.bk = std::move(vec); break;
        case WeightRole::kAttnVBias: L.bv = std::move(vec); break;
        case WeightRole::kAttnOut: L.wo = std::move(packed); break;
        case WeightRole::kFfnNorm: L.ffn_norm = std::move(vec); break;
        case WeightRole::kFfnGate: L.w_gate = std::move(packed); break;
        case WeightRole::kFfnUp: L.w_up = std::move(packed); break;
        case WeightRole::kFfnDown: L.w_down = std::move(packed); break;
      }
    }
  }
  if (!m->output_.data) {  // tied: the logits reuse the embedding matrix
    m->output_rows_ = m->token_embd_;
    auto p = pack_weight(m->token_embd_, backend, pool, options, m->requantized_);
    if (!p) return tensor_error("token_embd.weight", p.error().message + " (as the tied output)");
    m->output_ = std::move(*p);
    // The embedding rows are read from the file one token at a time: only those come back.
    if (m->output_.data != m->token_embd_.data) m->file_.release(*m->file_.tensor("token_embd.weight"));
  }
  return m;
}

Result<uint64_t> Model::lock_in_ram() const {
  std::vector<ByteRange> ranges;
  auto add = [&](const kernels::PackedMatrix& w) {
    const size_t bytes = w.layout == 0 ? static_cast<size_t>(w.view.rows) * w.view.row_bytes
                                       : packed_bytes(w.view.type, w.view.rows, w.view.cols);
    ranges.push_back({w.data, bytes});
  };
  for (const LayerWeights& L : layers_)
    for (const kernels::PackedMatrix* w : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down}) add(*w);
  add(output_);
  ranges.push_back({token_embd_.data, static_cast<size_t>(token_embd_.rows) * token_embd_.row_bytes});
  return ::wafer::lock_in_ram(ranges);
}

namespace {

// Row `r` of a matrix as the file stores it, dequantized.
void dequantize_row_of(const kernels::MatrixView& m, int32_t r, float* out) {
  quant::dequantize_row(m.type, m.data + static_cast<size_t>(r) * m.row_bytes, out, m.cols);
}

}  // namespace

void Model::output_row(int32_t token, float* out) const { dequantize_row_of(output_rows_, token, out); }

void Model::embed(int32_t token, float* out) const { dequantize_row_of(token_embd_, token, out); }

}  // namespace wafer
