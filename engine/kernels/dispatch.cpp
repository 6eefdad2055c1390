#include "engine/kernels/dispatch.h"

#include "engine/kernels/amx_check.h"
#include "engine/kernels/isa_tables.h"
#include "engine/runtime/cpu_features.h"
#include "engine/quant/float16.h"
#include "engine/quant/quant.h"

namespace wafer {

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

const char* to_string(AmxStatus status) {
  switch (status) {
    case AmxStatus::InUse: return "in use";
    case AmxStatus::NotOnCpu: return "not on this CPU";
    case AmxStatus::NoVnniKernels: return "not used: this CPU lacks the AVX-512 VNNI kernels it finishes with";
    case AmxStatus::TileStateRefused: return "the OS refused the tile state (ARCH_REQ_XCOMP_PERM)";
    case AmxStatus::DiffersFromVnni: return "its results differ from the AVX-512 VNNI kernel's, so it is not used";
    case AmxStatus::OutsideBound:
      return "its results are not within their bound of the AVX-512 VNNI kernel's, so it is not used";
    case AmxStatus::OutsideFp32Rounding: return "its results are not within FP32 rounding, so it is not used";
  }
  return "unknown";
}

#if defined(__x86_64__)
namespace {

template <class Fn>
void fill(Fn& field, Fn from) {
  if (!field) field = from;
}

// `table` with the fields it leaves null taken from `base` (isa_tables.h).
SimdKernels extend(SimdKernels table, const SimdKernels& base) {
  static_assert(sizeof(SimdKernels) == 14 * sizeof(void*), "a new field: fill it here");
  fill(table.matmul, base.matmul);
  fill(table.matmul_prefetch, base.matmul_prefetch);
  fill(table.matmul_prefetch_near, base.matmul_prefetch_near);
  fill(table.matmul_prefetch_l2, base.matmul_prefetch_l2);
  fill(table.quantize, base.quantize);
  fill(table.attend, base.attend);
  fill(table.attend_f16, base.attend_f16);
  fill(table.attend_q8, base.attend_q8);
  fill(table.attend_f16_tiles, base.attend_f16_tiles);
  fill(table.swiglu, base.swiglu);
  fill(table.add_rms_norm, base.add_rms_norm);
  fill(table.rope_neox, base.rope_neox);
  return table;
}

// A hardware AMX table, made on its first request, after its status allowed it: asking
// for any other table (--amx off) must not touch AMX. Prefill attention stays on the tiles
// only where its own check passed.
SimdKernels hardware_tiles(const SimdKernels& tiles) {
  SimdKernels k = extend(tiles, isa_tables::avx512);
  if (attend_tiles_state() != AmxStatus::InUse) k.attend_f16_tiles = nullptr;
  return k;
}

}  // namespace

const SimdKernels* simd_kernels(KernelIsa isa) {
  using namespace isa_tables;
  static const SimdKernels kAvx2Vnni = extend(avx2_vnni, avx2);
  static const SimdKernels kAvx2VnniEvex = extend(avx2_vnni_evex, avx2);
  static const SimdKernels kAmxModel = extend(amx_emulated, avx512_emulated);
  static const SimdKernels kAmxBf16Model = extend(amx_bf16_emulated, avx512_emulated);
  const CpuFeatures& cpu = cpu_features();
  switch (isa) {
    case KernelIsa::Avx2:
      return cpu.has_avx2_kernels() ? &avx2 : nullptr;
    case KernelIsa::Avx512:
      return cpu.has_avx512_kernels() ? &avx512 : nullptr;
    case KernelIsa::Avx2Vnni:
      return cpu.has_avx2_kernels() && cpu.avx_vnni ? &kAvx2Vnni : nullptr;
    case KernelIsa::Avx2VnniEvex:
      return cpu.has_avx2_kernels() && cpu.avx512f && cpu.avx512vl && cpu.avx512vnni ? &kAvx2VnniEvex : nullptr;
    case KernelIsa::Amx: {
      if (amx_state() != AmxStatus::InUse) return nullptr;
      static const SimdKernels kAmx = hardware_tiles(amx);
      return &kAmx;
    }
    case KernelIsa::AmxModel:
      return &kAmxModel;
    case KernelIsa::AmxBf16: {
      if (amx_bf16_state() != AmxStatus::InUse) return nullptr;
      static const SimdKernels kAmxBf16 = hardware_tiles(amx_bf16);
      return &kAmxBf16;
    }
    case KernelIsa::AmxBf16Model:
      return &kAmxBf16Model;
    case KernelIsa::Avx512Model:
      return &avx512_emulated;
    case KernelIsa::Neon:
    case KernelIsa::NeonDotprod:
      return nullptr;
  }
  return nullptr;
}

AmxStatus amx_state() {
  static const AmxStatus status = [] {
    const CpuFeatures& cpu = cpu_features();
    if (!cpu.amx_tile || !cpu.amx_int8) return AmxStatus::NotOnCpu;
    if (!cpu.has_avx512_kernels()) return AmxStatus::NoVnniKernels;
    if (!request_amx_permission()) return AmxStatus::TileStateRefused;
    if (!amx_agrees(isa_tables::amx.matmul, isa_tables::avx512.matmul)) return AmxStatus::DiffersFromVnni;
    return AmxStatus::InUse;
  }();
  return status;
}

AmxStatus amx_bf16_state() {
  static const AmxStatus status = [] {
    if (!cpu_features().amx_bf16) return AmxStatus::NotOnCpu;
    if (amx_state() != AmxStatus::InUse) return amx_state();  // it hands small batches to the int8 tiles
    if (!amx_bf16_close(isa_tables::amx_bf16.matmul, isa_tables::avx512.matmul)) return AmxStatus::OutsideBound;
    return AmxStatus::InUse;
  }();
  return status;
}

AmxStatus attend_tiles_state() {
  static const AmxStatus status = [] {
    if (!cpu_features().amx_bf16) return AmxStatus::NotOnCpu;
    if (amx_state() != AmxStatus::InUse) return amx_state();
    if (!amx_attend_close(isa_tables::amx.attend_f16_tiles)) return AmxStatus::OutsideFp32Rounding;
    return AmxStatus::InUse;
  }();
  return status;
}

#elif defined(__aarch64__)
const SimdKernels* simd_kernels(KernelIsa isa) {
  const CpuFeatures& cpu = cpu_features();
  switch (isa) {
    case KernelIsa::Neon:
      return cpu.has_neon_kernels() ? &isa_tables::neon : nullptr;
    case KernelIsa::NeonDotprod:
      return cpu.has_neon_dotprod_kernels() ? &isa_tables::neon_dotprod : nullptr;
    default:
      return nullptr;
  }
}

AmxStatus amx_state() { return AmxStatus::NotOnCpu; }
AmxStatus amx_bf16_state() { return AmxStatus::NotOnCpu; }
AmxStatus attend_tiles_state() { return AmxStatus::NotOnCpu; }

#else
const SimdKernels* simd_kernels(KernelIsa) { return nullptr; }
AmxStatus amx_state() { return AmxStatus::NotOnCpu; }
AmxStatus amx_bf16_state() { return AmxStatus::NotOnCpu; }
AmxStatus attend_tiles_state() { return AmxStatus::NotOnCpu; }
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
