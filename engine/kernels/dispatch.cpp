#include "engine/kernels/dispatch.h"

#include <cstring>

#include "engine/kernels/amx_check.h"
#include "engine/runtime/cpu_features.h"
#include "engine/quant/float16.h"
#include "engine/quant/quant.h"

namespace wafer {

// Defined in kernels/avx2/kernels_avx2.cpp, kernels/avx512/kernels_avx512.cpp and
// kernels/avxvnni/ (each compiled with its own -m flags; never called unless CPUID allows),
// or on AArch64 in kernels/neon/. The int8 kernels exist for every ISA; kernels/avxvnni has
// only those (its float kernels and quantizers are AVX2's); the NEON tables quantize with
// the scalar reference.
#define WAFER_DECLARE_INT8(ns)                                                                             \
  namespace ns {                                                                                           \
  void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,             \
                     int64_t panel_begin, int64_t panel_end);                                              \
  void packed_matmul_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,    \
                              int64_t panel_begin, int64_t panel_end);                                     \
  void packed_matmul_prefetch_near(const PackedMatrix& w, const QuantizedActs& x, float* y,                 \
                                   int64_t y_stride, int64_t panel_begin, int64_t panel_end);              \
  void attend_q8(const uint8_t* q, int n_q, const uint8_t* keys, const uint16_t* values, int n_pos, int dk,   \
                 int dv, float scale, float* scratch, float* out, int64_t out_stride);                       \
  }
#define WAFER_DECLARE_FLOAT(ns)                                                                            \
  namespace ns {                                                                                           \
  void attend(const float* q, int64_t q_stride, int n_q, const float* keys, const float* values, int n_pos,   \
              int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,                  \
              const int* n_pos_each);                                                                      \
  void attend_f16(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,   \
                  int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,    \
                  const int* n_pos_each);                                                                  \
  void swiglu(float* g, const float* u, int64_t n);                                                        \
  void add_rms_norm(float* x, const float* add, const float* w, float* y, int64_t n, float eps);            \
  void rope_neox(float* x, int n_heads, int64_t stride, int n_rot, const float* cos_t, const float* sin_t);   \
  void quantize_acts(const QuantizedActs& a, const float* x, int64_t x_stride, int t_begin, int t_end);       \
  }
#if defined(__x86_64__)
WAFER_DECLARE_INT8(kernels_avx2)
WAFER_DECLARE_FLOAT(kernels_avx2)
WAFER_DECLARE_INT8(kernels_avx512)
WAFER_DECLARE_FLOAT(kernels_avx512)
WAFER_DECLARE_INT8(kernels_avxvnni)
WAFER_DECLARE_INT8(kernels_avxvnni_evex)
namespace kernels_amx {
void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end);
void packed_matmul_bf16(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                        int64_t panel_begin, int64_t panel_end);
void packed_matmul_bf16_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                 int64_t panel_begin, int64_t panel_end);
void packed_matmul_bf16_prefetch_near(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                      int64_t panel_begin, int64_t panel_end);
void attend_f16_tiles(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,
                      int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,
                      const int* n_pos_each);
}
namespace kernels_amx_model {
void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end);
void packed_matmul_bf16(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                        int64_t panel_begin, int64_t panel_end);
void packed_matmul_bf16_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                 int64_t panel_begin, int64_t panel_end);
void packed_matmul_bf16_prefetch_near(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                      int64_t panel_begin, int64_t panel_end);
void attend_f16_tiles(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,
                      int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,
                      const int* n_pos_each);
}
WAFER_DECLARE_INT8(kernels_avx512_model)
namespace kernels_avx512_model {
void attend(const float* q, int64_t q_stride, int n_q, const float* keys, const float* values, int n_pos, int dk,
            int dv, float scale, float* scratch, float* out, int64_t out_stride, const int* n_pos_each);
void attend_f16(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values, int n_pos,
                int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride, const int* n_pos_each);
void swiglu(float* g, const float* u, int64_t n);
void add_rms_norm(float* x, const float* add, const float* w, float* y, int64_t n, float eps);
void rope_neox(float* x, int n_heads, int64_t stride, int n_rot, const float* cos_t, const float* sin_t);
}  // namespace kernels_avx512_model
#elif defined(__aarch64__)
#define WAFER_DECLARE_NEON(ns)                                                                             \
  WAFER_DECLARE_INT8(ns)                                                                                   \
  namespace ns {                                                                                           \
  void attend(const float* q, int64_t q_stride, int n_q, const float* keys, const float* values, int n_pos,   \
              int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,                  \
              const int* n_pos_each);                                                                      \
  void attend_f16(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,   \
                  int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,    \
                  const int* n_pos_each);                                                                  \
  void swiglu(float* g, const float* u, int64_t n);                                                        \
  void add_rms_norm(float* x, const float* add, const float* w, float* y, int64_t n, float eps);            \
  void rope_neox(float* x, int n_heads, int64_t stride, int n_rot, const float* cos_t, const float* sin_t);   \
  }
WAFER_DECLARE_NEON(kernels_neon)
WAFER_DECLARE_NEON(kernels_neon_dotprod)
#undef WAFER_DECLARE_NEON
#endif
#undef WAFER_DECLARE_INT8
#undef WAFER_DECLARE_FLOAT

namespace {

size_t round64(size_t n) { return (n + 63) & ~size_t{63}; }

struct ActsShape {
  TensorType type;
  size_t row_bytes;
  int64_t blocks;
};

bool acts_shape(TensorType act_type, int64_t cols, ActsShape* out) {
  if (act_type != TensorType::Q8_0 && act_type != TensorType::Q8_K) return false;
  auto rb = row_bytes(act_type, static_cast<uint64_t>(cols));
  if (!rb || cols <= 0) return false;
  *out = {act_type, *rb, act_type == TensorType::Q8_K ? cols / 256 : cols / 32};
  return true;
}

// The view of `buffer` for n_tokens rows: the rows, then (Q8_0) the scales and sums.
QuantizedActs layout(const ActsShape& s, const uint8_t* rows, int n_tokens, int64_t cols, uint8_t* aux) {
  QuantizedActs a;
  a.type = s.type;
  a.cols = cols;
  a.n_tokens = n_tokens;
  a.rows = rows;
  a.row_bytes = s.row_bytes;
  if (s.type == TensorType::Q8_0) {
    const size_t n = static_cast<size_t>(n_tokens) * static_cast<size_t>(s.blocks);
    a.d = reinterpret_cast<float*>(aux);
    a.sums = reinterpret_cast<int32_t*>(aux + round64(n * sizeof(float)));
  }
  return a;
}

// Fills the Q8_0 side values (float scale, sum of the quants) of rows [t_begin, t_end).
void fill_side_values(const QuantizedActs& a, int t_begin, int t_end) {
  if (a.type != TensorType::Q8_0) return;
  const int64_t nb = a.cols / quant::kQK;
  auto* d = const_cast<float*>(a.d);
  auto* sums = const_cast<int32_t*>(a.sums);
  for (int t = t_begin; t < t_end; ++t) {
    const auto* blocks = reinterpret_cast<const quant::BlockQ8_0*>(a.rows + static_cast<size_t>(t) * a.row_bytes);
    for (int64_t b = 0; b < nb; ++b) {
      int32_t sum = 0;
      for (int j = 0; j < quant::kQK; ++j) sum += blocks[b].qs[j];
      d[t * nb + b] = f16_to_f32(blocks[b].d);
      sums[t * nb + b] = sum;
    }
  }
}

}  // namespace

size_t quantized_acts_bytes(TensorType weight_type, int64_t cols, int n_tokens) {
  ActsShape s;
  if (!is_packable(weight_type) || !acts_shape(quant::vec_dot_type(weight_type), cols, &s) || n_tokens < 0)
    return 0;
  size_t n = static_cast<size_t>(n_tokens);
  size_t bytes = round64(n * s.row_bytes);
  if (s.type == TensorType::Q8_0) {
    bytes += round64(n * static_cast<size_t>(s.blocks) * sizeof(float));
    bytes += round64(n * static_cast<size_t>(s.blocks) * sizeof(int32_t));
  }
  return bytes;
}

QuantizedActs acts_view(TensorType weight_type, int n_tokens, int64_t cols, void* buffer) {
  ActsShape s;
  if (!acts_shape(quant::vec_dot_type(weight_type), cols, &s)) return {};
  auto* rows = static_cast<uint8_t*>(buffer);
  return layout(s, rows, n_tokens, cols, rows + round64(static_cast<size_t>(n_tokens) * s.row_bytes));
}

void quantize_act_rows(const QuantizedActs& view, const float* x, int64_t x_stride, int t_begin, int t_end) {
  for (int t = t_begin; t < t_end; ++t)
    quant::quantize_activations(view.type, x + t * x_stride, const_cast<uint8_t*>(view.rows) + t * view.row_bytes,
                                view.cols);
  fill_side_values(view, t_begin, t_end);
}

QuantizedActs quantize_acts(TensorType weight_type, const float* x, int64_t x_stride, int n_tokens,
                            int64_t cols, void* buffer) {
  QuantizedActs view = acts_view(weight_type, n_tokens, cols, buffer);
  if (view.rows) quantize_act_rows(view, x, x_stride, 0, n_tokens);
  return view;
}

QuantizedActs wrap_quantized_acts(TensorType act_type, const void* rows, int n_tokens, int64_t cols, void* aux) {
  ActsShape s;
  if (!acts_shape(act_type, cols, &s)) return {};
  QuantizedActs a = layout(s, static_cast<const uint8_t*>(rows), n_tokens, cols, static_cast<uint8_t*>(aux));
  fill_side_values(a, 0, n_tokens);
  return a;
}

#if defined(__x86_64__)
namespace {
constexpr const char* kAmxInUse = "in use";
}  // namespace

const SimdKernels* simd_kernels(KernelIsa isa) {
  static const SimdKernels kAvx2{KernelIsa::Avx2,       "avx2",
                                 kernels_avx2::packed_matmul, kernels_avx2::packed_matmul_prefetch,
                                 kernels_avx2::packed_matmul_prefetch_near,
                                 kernels_avx2::attend,
                                 kernels_avx2::attend_f16,    kernels_avx2::swiglu,
                                 kernels_avx2::quantize_acts, kernels_avx2::attend_q8,
                                 nullptr,                     kernels_avx2::add_rms_norm,
                                 kernels_avx2::rope_neox};
  static const SimdKernels kAvx512{KernelIsa::Avx512,            "avx512-vnni",
                                   kernels_avx512::packed_matmul, kernels_avx512::packed_matmul_prefetch,
                                   kernels_avx512::packed_matmul_prefetch_near,
                                   kernels_avx512::attend,
                                   kernels_avx512::attend_f16,    kernels_avx512::swiglu,
                                   kernels_avx512::quantize_acts, kernels_avx512::attend_q8,
                                   nullptr,                       kernels_avx512::add_rms_norm,
                                   kernels_avx512::rope_neox};
  // The AVX-VNNI tables: their own int8 kernels, AVX2's float kernels and quantizers.
  const auto with_avx2_float = [](KernelIsa isa, const char* name, PackedMatmulFn matmul, PackedMatmulFn prefetch,
                                  PackedMatmulFn prefetch_near, AttendQ8Fn attend_q8) {
    return SimdKernels{isa,
                       name,
                       matmul,
                       prefetch,
                       prefetch_near,
                       kernels_avx2::attend,
                       kernels_avx2::attend_f16,
                       kernels_avx2::swiglu,
                       kernels_avx2::quantize_acts,
                       attend_q8,
                       nullptr,
                       kernels_avx2::add_rms_norm,
                       kernels_avx2::rope_neox};
  };
  static const SimdKernels kAvx2Vnni =
      with_avx2_float(KernelIsa::Avx2Vnni, "avx2-vnni", kernels_avxvnni::packed_matmul,
                      kernels_avxvnni::packed_matmul_prefetch, kernels_avxvnni::packed_matmul_prefetch_near,
                      kernels_avxvnni::attend_q8);
  static const SimdKernels kAvx2VnniEvex =
      with_avx2_float(KernelIsa::Avx2VnniEvex, "avx2-vnni-evex", kernels_avxvnni_evex::packed_matmul,
                      kernels_avxvnni_evex::packed_matmul_prefetch,
                      kernels_avxvnni_evex::packed_matmul_prefetch_near, kernels_avxvnni_evex::attend_q8);
  // The AVX-512 VNNI kernels on the software model of the vectors; activations quantized
  // by the scalar reference (the AVX-512 quantizer is written in intrinsics).
  static const SimdKernels kAvx512Model{KernelIsa::Avx512Model,
                                        "avx512-model",
                                        kernels_avx512_model::packed_matmul,
                                        kernels_avx512_model::packed_matmul_prefetch,
                                        kernels_avx512_model::packed_matmul_prefetch_near,
                                        kernels_avx512_model::attend,
                                        kernels_avx512_model::attend_f16,
                                        kernels_avx512_model::swiglu,
                                        quantize_act_rows,
                                        kernels_avx512_model::attend_q8,
                                        nullptr,
                                        kernels_avx512_model::add_rms_norm,
                                        kernels_avx512_model::rope_neox};
  // The AMX tables: the AVX-512 table (or its model) with the tile matmul (which hands
  // decode and the K-quants to the AVX-512 kernel).
  // With AMX-BF16, prefill attention on the tiles too (attend_tiles_status).
  const auto with_tiles = [](const SimdKernels& base, KernelIsa isa, const char* name, PackedMatmulFn matmul,
                             AttendF16Fn attend_tiles, PackedMatmulFn prefetch = nullptr,
                             PackedMatmulFn prefetch_near = nullptr) {
    SimdKernels k = base;
    k.isa = isa;
    k.name = name;
    k.matmul = matmul;
    if (prefetch) k.matmul_prefetch = prefetch;  // else the base's twins, which give the int8 tiles' bits
    if (prefetch_near) k.matmul_prefetch_near = prefetch_near;
    k.attend_f16_tiles = attend_tiles;
    return k;
  };
  // The hardware tables are made on their first request, after amx_status() allowed them:
  // asking for any other table (--amx off) must not touch AMX.
  const auto hw_attend = [] {
    return std::strcmp(attend_tiles_status(), kAmxInUse) == 0 ? kernels_amx::attend_f16_tiles : nullptr;
  };
  static const SimdKernels kAmxModel = with_tiles(kAvx512Model, KernelIsa::AmxModel, "amx-model",
                                                  kernels_amx_model::packed_matmul, kernels_amx_model::attend_f16_tiles);
  static const SimdKernels kAmxBf16Model =
      with_tiles(kAvx512Model, KernelIsa::AmxBf16Model, "amx-bf16-model", kernels_amx_model::packed_matmul_bf16,
                 kernels_amx_model::attend_f16_tiles, kernels_amx_model::packed_matmul_bf16_prefetch,
                 kernels_amx_model::packed_matmul_bf16_prefetch_near);
  const CpuFeatures& cpu = cpu_features();
  switch (isa) {
    case KernelIsa::Avx2:
      return cpu.has_avx2_kernels() ? &kAvx2 : nullptr;
    case KernelIsa::Avx512:
      return cpu.has_avx512_kernels() ? &kAvx512 : nullptr;
    case KernelIsa::Avx2Vnni:
      return cpu.has_avx2_kernels() && cpu.avx_vnni ? &kAvx2Vnni : nullptr;
    case KernelIsa::Avx2VnniEvex:
      return cpu.has_avx2_kernels() && cpu.avx512f && cpu.avx512vl && cpu.avx512vnni ? &kAvx2VnniEvex : nullptr;
    case KernelIsa::Amx: {
      if (std::strcmp(amx_status(), kAmxInUse) != 0) return nullptr;
      static const SimdKernels kAmx =
          with_tiles(kAvx512, KernelIsa::Amx, "avx512-vnni+amx", kernels_amx::packed_matmul, hw_attend());
      return &kAmx;
    }
    case KernelIsa::AmxModel:
      return &kAmxModel;
    case KernelIsa::AmxBf16: {
      if (std::strcmp(amx_bf16_status(), kAmxInUse) != 0) return nullptr;
      static const SimdKernels kAmxBf16 =
          with_tiles(kAvx512, KernelIsa::AmxBf16, "avx512-vnni+amx-bf16", kernels_amx::packed_matmul_bf16,
                     hw_attend(), kernels_amx::packed_matmul_bf16_prefetch,
                     kernels_amx::packed_matmul_bf16_prefetch_near);
      return &kAmxBf16;
    }
    case KernelIsa::AmxBf16Model:
      return &kAmxBf16Model;
    case KernelIsa::Avx512Model:
      return &kAvx512Model;
    case KernelIsa::Neon:
    case KernelIsa::NeonDotprod:
      return nullptr;
  }
  return nullptr;
}

const char* amx_status() {
  static const char* const status = [] {
    const CpuFeatures& cpu = cpu_features();
    if (!cpu.amx_tile || !cpu.amx_int8) return "not on this CPU";
    if (!cpu.has_avx512_kernels()) return "not used: this CPU lacks the AVX-512 VNNI kernels it finishes with";
    if (!request_amx_permission()) return "Linux refused the tile state (arch_prctl ARCH_REQ_XCOMP_PERM)";
    if (!amx_agrees(kernels_amx::packed_matmul, kernels_avx512::packed_matmul))
      return "its results differ from the AVX-512 VNNI kernel's, so it is not used";
    return kAmxInUse;
  }();
  return status;
}

const char* amx_bf16_status() {
  static const char* const status = [] {
    if (!cpu_features().amx_bf16) return "not on this CPU";
    if (std::strcmp(amx_status(), kAmxInUse) != 0) return amx_status();  // it hands small batches to the int8 tiles
    if (!amx_bf16_close(kernels_amx::packed_matmul_bf16, kernels_avx512::packed_matmul))
      return "its results are not within their bound of the AVX-512 VNNI kernel's, so it is not used";
    return kAmxInUse;
  }();
  return status;
}

const char* attend_tiles_status() {
  static const char* const status = [] {
    if (!cpu_features().amx_bf16) return "not on this CPU";
    if (std::strcmp(amx_status(), kAmxInUse) != 0) return amx_status();
    if (!amx_attend_close(kernels_amx::attend_f16_tiles))
      return "its results are not within FP32 rounding, so it is not used";
    return kAmxInUse;
  }();
  return status;
}

#elif defined(__aarch64__)
const SimdKernels* simd_kernels(KernelIsa isa) {
  const auto table = [](KernelIsa i, const char* name, PackedMatmulFn matmul, PackedMatmulFn prefetch,
                        PackedMatmulFn prefetch_near, AttendFn attend, AttendF16Fn attend_f16, SwigluFn swiglu,
                        AttendQ8Fn attend_q8, AddRmsNormFn add_rms_norm, RopeNeoxFn rope_neox) {
    return SimdKernels{i,      name,       matmul, prefetch,          prefetch_near, attend,       attend_f16,
                       swiglu, quantize_act_rows, attend_q8, nullptr, add_rms_norm, rope_neox};
  };
  static const SimdKernels kNeon =
      table(KernelIsa::Neon, "neon", kernels_neon::packed_matmul, kernels_neon::packed_matmul_prefetch,
            kernels_neon::packed_matmul_prefetch_near, kernels_neon::attend, kernels_neon::attend_f16,
            kernels_neon::swiglu, kernels_neon::attend_q8, kernels_neon::add_rms_norm, kernels_neon::rope_neox);
  static const SimdKernels kNeonDotprod = table(
      KernelIsa::NeonDotprod, "neon-dotprod", kernels_neon_dotprod::packed_matmul,
      kernels_neon_dotprod::packed_matmul_prefetch, kernels_neon_dotprod::packed_matmul_prefetch_near,
      kernels_neon_dotprod::attend, kernels_neon_dotprod::attend_f16, kernels_neon_dotprod::swiglu,
      kernels_neon_dotprod::attend_q8, kernels_neon_dotprod::add_rms_norm, kernels_neon_dotprod::rope_neox);
  const CpuFeatures& cpu = cpu_features();
  switch (isa) {
    case KernelIsa::Neon:
      return cpu.has_neon_kernels() ? &kNeon : nullptr;
    case KernelIsa::NeonDotprod:
      return cpu.has_neon_dotprod_kernels() ? &kNeonDotprod : nullptr;
    default:
      return nullptr;
  }
}

const char* amx_status() { return "not on this CPU"; }
const char* amx_bf16_status() { return "not on this CPU"; }
const char* attend_tiles_status() { return "not on this CPU"; }

#else
const SimdKernels* simd_kernels(KernelIsa) { return nullptr; }
const char* amx_status() { return "not on this CPU"; }
const char* amx_bf16_status() { return "not on this CPU"; }
const char* attend_tiles_status() { return "not on this CPU"; }
#endif

const SimdKernels* best_simd_kernels(bool amx, bool amx_bf16) {
  if (amx && amx_bf16)
    if (const SimdKernels* k = simd_kernels(KernelIsa::AmxBf16)) return k;
  if (amx)
    if (const SimdKernels* k = simd_kernels(KernelIsa::Amx)) return k;
  for (KernelIsa isa : {KernelIsa::Avx512, KernelIsa::Avx2Vnni, KernelIsa::Avx2, KernelIsa::NeonDotprod, KernelIsa::Neon})
    if (const SimdKernels* k = simd_kernels(isa)) return k;
  return nullptr;
}

}  // namespace wafer
