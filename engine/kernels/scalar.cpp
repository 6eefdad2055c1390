// The scalar reference backend: weights stay in the GGUF layout, activations are converted
// to the weight type's vec_dot type exactly as llama.cpp's CPU backend does (quant.h), and
// every output is one quant.h dot product. Threads split the output rows.
#include <string>

#include "engine/kernels/kernels.h"
#include "engine/quant/quant.h"

namespace wafer::kernels {

namespace {

// Fills x's converted copy for format f (plain rows of f.type), threads splitting the rows.
const ActivationSet::Converted& convert(ActivationSet& x, const ActivationFormat& f,
                                        ThreadPool& pool) {
  ActivationSet::Converted& c = x.slot(f);
  if (c.valid) return c;
  c.row_bytes = *row_bytes(f.type, static_cast<uint64_t>(x.cols()));
  const size_t need = c.row_bytes * static_cast<size_t>(x.rows());
  if (c.bytes.size() < need) c.bytes.resize(need);
  const int threads = x.rows() > 1 ? pool.size() : 1;
  auto work = [&](int t) {
    const Slice s = thread_slice(x.rows(), t, threads);
    for (int64_t i = s.begin; i < s.end; ++i)
      quant::quantize_activations(f.type, x.floats() + i * x.stride(), c.bytes.data() + i * c.row_bytes,
                                  x.cols());
  };
  if (threads > 1)
    pool.run(work);
  else
    work(0);
  c.valid = true;
  return c;
}

class ScalarBackend final : public Backend {
 public:
  std::string_view name() const override { return "scalar"; }

  Result<PackedMatrix> pack(const MatrixView& w, ThreadPool* /*pool*/) const override {
    if (!quant::is_supported_weight_type(w.type))
      return make_error("unsupported weight type " + std::string(tensor_type_name(w.type)));
    const TensorType act = quant::vec_dot_type(w.type);
    if (!row_bytes(act, static_cast<uint64_t>(w.cols)) || !row_bytes(w.type, static_cast<uint64_t>(w.cols)))
      return make_error("row length " + std::to_string(w.cols) + " is not a whole number of " +
                        std::string(tensor_type_name(w.type)) + " blocks");
    PackedMatrix p;
    p.view = w;
    p.act = ActivationFormat{act, 0};
    p.data = w.data;
    return p;
  }

  void matmul(const PackedMatrix& w, ActivationSet& x, float* out, int64_t out_stride,
              ThreadPool& pool) const override {
    const ActivationSet::Converted& a = convert(x, w.act, pool);
    const quant::VecDotFn dot = quant::vec_dot_fn(w.view.type);
    const int threads = pool.size();
    pool.run([&](int t) {
      const Slice rows = thread_slice(w.view.rows, t, threads, 4);
      for (int64_t r = rows.begin; r < rows.end; ++r) {
        const uint8_t* row = w.data + r * w.view.row_bytes;
        for (int i = 0; i < x.rows(); ++i)
          out[i * out_stride + r] = dot(w.view.cols, row, a.bytes.data() + i * a.row_bytes);
      }
    });
  }
};

}  // namespace

const Backend& scalar_backend() {
  static const ScalarBackend backend;
  return backend;
}

}  // namespace wafer::kernels
