// The matmul kernel interface: a weight matrix times a batch of activation vectors.
//
// This is the one place the forward pass touches weights, so per-ISA backends (scalar here;
// AVX2, AVX-512/VNNI, AMX) plug in behind it without the model code changing:
//
//   load:     PackedMatrix w = backend.pack(view, &pool)   once per weight, at load
//   forward:  ActivationSet x; x.reset(buffer, n, cols)    whenever `buffer` is rewritten
//             backend.matmul(w, x, out, pool)              out (n x w.rows) = x * w^T
//
// - pack() may repack a matrix into the layout its kernel reads (e.g. several rows'
//   blocks interleaved) and own the bytes; the scalar backend keeps the GGUF layout and
//   points into the mapped file.
// - Activations are converted to the format the kernel wants (ActivationFormat: the weight
//   type's vec_dot type, plus a backend-specific layout id for interleaved activation
//   blocks) lazily, once per format: the Q, K and V matmuls of a layer read one converted
//   copy. Buffers grow to their high-water mark and are then reused: nothing is allocated
//   per token once warm.
// - n (tokens in the batch) is a parameter of every call, so batched prefill (GEMM) and
//   single-token decode (GEMV) are the same call; a backend picks its loop order per n.
// - Threads: matmul splits output rows across the pool (thread_slice), so each thread owns
//   the same rows of every matrix on every call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "engine/base/result.h"
#include "engine/kernels/dispatch.h"
#include "engine/quant/tensor_types.h"
#include "engine/runtime/threadpool.h"

namespace wafer::kernels {

// A weight matrix as stored in a GGUF: `rows` rows (output features) of `cols` elements
// (input features), each row `row_bytes` long, rows contiguous.
struct MatrixView {
  TensorType type = TensorType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t row_bytes = 0;
  const uint8_t* data = nullptr;
};

// What a backend wants activations converted to before multiplying.
struct ActivationFormat {
  TensorType type = TensorType::F32;  // F32, F16, BF16, Q8_0, Q8_1 or Q8_K
  int layout = 0;                     // 0: plain rows; other values are backend-defined
  bool operator==(const ActivationFormat&) const = default;
};

// A weight matrix in the layout a backend chose at load.
struct PackedMatrix {
  MatrixView view;                       // shape and type as in the file
  ActivationFormat act;                  // what its matmul reads
  int layout = 0;                        // 0: GGUF row-major blocks (data == view.data)
  const uint8_t* data = nullptr;         // the bytes the kernel reads
  std::shared_ptr<const uint8_t> owned;  // repacked storage, if any
};

// One activation batch (n rows of cols floats) and its converted copies, one per format.
class ActivationSet {
 public:
  // Points at new contents: a batch of n rows, row i at x + i * stride (stride >= cols).
  // Invalidates every converted copy.
  void reset(const float* x, int n, int64_t cols, int64_t stride);
  void reset(const float* x, int n, int64_t cols) { reset(x, n, cols, cols); }

  const float* floats() const { return x_; }
  int rows() const { return n_; }
  int64_t cols() const { return cols_; }
  int64_t stride() const { return stride_; }

  // A converted copy: row i of format f at data + i * row_bytes.
  struct Converted {
    ActivationFormat format;
    size_t row_bytes = 0;
    std::vector<uint8_t> bytes;
    bool valid = false;
  };
  // The slot for format f (created empty the first time). Backends fill it.
  Converted& slot(const ActivationFormat& f);

 private:
  const float* x_ = nullptr;
  int n_ = 0;
  int64_t cols_ = 0;
  int64_t stride_ = 0;
  std::vector<Converted> converted_;
};

// One output of matmul_many: out[t * stride + r] = dot(row r of *w, activation t).
struct MatmulJob {
  const PackedMatrix* w;
  float* out;
  int64_t stride;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;

  // Prepares a weight for matmul. Fails (naming nothing: the caller adds the tensor name)
  // for a type this backend cannot multiply. With a pool, a repacking backend has each
  // thread repack the rows it will own in matmul (thread_slice over the same pool size):
  // the load takes 1/threads of the time, and each slice is first written by its owner.
  virtual Result<PackedMatrix> pack(const MatrixView& w, ThreadPool* pool) const = 0;
  Result<PackedMatrix> pack(const MatrixView& w) const { return pack(w, nullptr); }

  // out[t * out_stride + r] = dot(row r of w, activation t) for t < x.rows(), r < w.rows.
  // x.cols() must equal w.view.cols.
  virtual void matmul(const PackedMatrix& w, ActivationSet& x, float* out, int64_t out_stride,
                      ThreadPool& pool) const = 0;

  // Several matrices over the same activations (the Q, K and V projections; gate and up).
  // A backend may run them as one parallel step (one barrier instead of one per matrix,
  // each thread still owning the same rows of every matrix); this default runs them one
  // after the other. Results are those of matmul() for each job.
  virtual void matmul_many(std::span<const MatmulJob> jobs, ActivationSet& x, ThreadPool& pool) const {
    for (const MatmulJob& j : jobs) matmul(*j.w, x, j.out, j.stride, pool);
  }

  // The SIMD float kernels (attention, SwiGLU) that go with this backend, or nullptr for
  // the scalar reference (the forward pass then uses its own scalar loops).
  virtual const SimdKernels* simd() const { return nullptr; }

  // What this backend tuned by measuring itself while running (one line for benchmarks
  // and `wafer/stats`), or "" when nothing.
  virtual std::string tuning() const { return ""; }
};

// The scalar reference backend (kernels/scalar.cpp): GGUF layout, llama.cpp's activation
// rounding, quant.h dot products. Always available; every other backend is tested against it.
const Backend& scalar_backend();

// The SIMD backend for an instruction set (kernels/simd_backend.cpp): packable weights
// repacked into 16-row panels, the rest through the scalar backend. nullptr when this CPU
// lacks the instruction set.
const Backend* simd_backend(KernelIsa isa);

// The best backend for this CPU, chosen once by CPUID (AVX-512 VNNI with AMX tiles for
// prefill, AVX-512 VNNI, AVX2 with AVX-VNNI, AVX2, else scalar). amx = false: never AMX
// (EngineOptions::amx).
const Backend& default_backend(bool amx = true, bool amx_bf16 = false);

}  // namespace wafer::kernels
