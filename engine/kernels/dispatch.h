// The engine's SIMD kernels, one table per instruction set, chosen once by CPUID:
//  - matmul: repacked weights (repack.h) times a batch of quantized activation rows,
//    y[t][r] = dot(weight row r, activation row t);
//  - attend: the query heads of one key/value head over its cached keys and values;
//  - swiglu: silu(gate) * up, elementwise;
//  - add_rms_norm and rope_neox: the residual add with RMS norm, and NeoX RoPE.
// One matmul serves decode (one token: a matrix-vector product, bound by how fast the
// weights stream from memory) and prefill (many tokens: each weight block is unpacked once and applied to a tile of up to
// 8 tokens, so the int8 arithmetic, not memory, sets the pace).
//
// Activations are quantized exactly as llama.cpp quantizes them (quant.h: Q8_0 for
// Q8_0/Q4_0/Q5_0 weights, Q8_K for the K-quants), so every block's integer sum equals the
// scalar reference's; only the order of the float accumulation of block results differs.
//
// The kernels exist once per instruction set (kernels/avx2, kernels/avx512, kernels/neon),
// each file compiled with its own flags; best_simd_kernels() picks one by the detected CPU
// features (runtime/cpu_features.h), once. A build has only its own architecture's kernels:
// simd_kernels() is nullptr for the other architecture's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/quant/quant_repack.h"
#include "engine/quant/tensor_types.h"

namespace wafer {

// A batch of activation rows in the vec_dot format of a weight type, plus the per-block
// values the kernels need for Q8_0 (float scale and the sum of the 32 quants, which
// corrects for weights stored with an unsigned offset). Views into caller memory.
struct QuantizedActs {
  TensorType type = TensorType::Q8_0;  // Q8_0 or Q8_K
  int64_t cols = 0;
  int n_tokens = 0;
  const uint8_t* rows = nullptr;  // token t's ggml blocks at rows + t * row_bytes
  size_t row_bytes = 0;
  const float* d = nullptr;        // Q8_0 only: n_tokens x blocks, token-major
  const int32_t* sums = nullptr;   // Q8_0 only: same shape

  int64_t blocks() const { return type == TensorType::Q8_K ? cols / 256 : cols / 32; }
};

// Bytes of the buffer quantize_acts() needs for n_tokens rows of `cols` (0 when the weight
// type is not packable or cols not a whole number of blocks). 64-byte aligned pieces.
size_t quantized_acts_bytes(TensorType weight_type, int64_t cols, int n_tokens);

// Quantizes n_tokens float rows (row t at x + t * x_stride) for a matmul with weights of
// `weight_type`, into `buffer` (quantized_acts_bytes large, 64-byte aligned).
QuantizedActs quantize_acts(TensorType weight_type, const float* x, int64_t x_stride, int n_tokens,
                            int64_t cols, void* buffer);

// The same in two steps, so threads can share the work: the view of a buffer laid out for
// n_tokens rows, then rows [t_begin, t_end) quantized into it (the scalar reference;
// SimdKernels::quantize is its vectorized twin).
QuantizedActs acts_view(TensorType weight_type, int n_tokens, int64_t cols, void* buffer);
void quantize_act_rows(const QuantizedActs& view, const float* x, int64_t x_stride, int t_begin, int t_end);

// Wraps rows that are already ggml Q8_0 / Q8_K blocks (contiguous, n_tokens rows); the
// Q8_0 side values are written into `aux` (quantized_acts_bytes large).
QuantizedActs wrap_quantized_acts(TensorType act_type, const void* rows, int n_tokens, int64_t cols,
                                  void* aux);

// Avx2Vnni: AVX2 with AVX-VNNI (vpdpbusd on 256-bit vectors; Intel Alder Lake and later
// client cores, AMD Zen 5); Avx2VnniEvex: the same code with the EVEX encoding of those
// instructions, which AVX-512 VNNI CPUs run: for the tests, never chosen to compute.
// Amx: the AVX-512 VNNI kernels, with AMX tiles (TDPBSSD) for the prefill matmuls of
// Q8_0/Q4_0/Q5_0 weights (kernels/amx; Intel Sapphire Rapids and later Xeons), bit for bit
// the AVX-512 kernel's results; AmxBf16: the same with BF16 tiles (TDPBF16PS) for batches
// of 32 tokens or more, faster and within a stated bound of them (amx_bf16_kernels.h),
// chosen only when asked for; AmxModel and AmxBf16Model: those tile kernels on software
// models of the tile and vector instructions, and
// Avx512Model the AVX-512 VNNI kernels on the model of the vectors (kernels/emulated): for the
// tests on any x86 CPU, never chosen to compute.
// Neon: AArch64 Advanced SIMD without the dot product (SMULL + SADALP); NeonDotprod: with
// the ARMv8.2 dot product (SDOT). Both quantize activations with the scalar reference.
enum class KernelIsa {
  Avx2,
  Avx512,
  Avx2Vnni,
  Avx2VnniEvex,
  Amx,
  AmxModel,
  Avx512Model,
  AmxBf16,
  AmxBf16Model,
  Neon,
  NeonDotprod
};

// y[t * y_stride + r] for every token t of x and every row r of panels
// [panel_begin, panel_end) of w (rows past w.rows are not written).
using PackedMatmulFn = void (*)(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                int64_t panel_begin, int64_t panel_end);

// For the n_q query heads h that share one key/value head (n_q = 1 without grouped-query
// attention): out[h * out_stride + 0..dv) = sum_p softmax_p(scale * q_h . keys[p]) *
// values[p] over p < n_pos, q_h = q + h * q_stride. keys are in KvCache's layout:
// transposed blocks of 16 positions, dimension i of key p at keys[(p / 16 * dk + i) * 16 +
// p % 16], ceil(n_pos / 16) whole blocks (the padding is read and ignored); values are
// n_pos rows of dv floats; dk and dv multiples of 16; scratch holds
// attend_scratch_floats(n_q, n_pos, dv) floats. The keys and values are read once for all
// n_q heads. n_pos_each, unless nullptr: query h attends to its first n_pos_each[h] <= n_pos
// positions only (several tokens of a prefill under the causal mask), its result bit for
// bit the one it gets alone with that n_pos.
using AttendFn = void (*)(const float* q, int64_t q_stride, int n_q, const float* keys, const float* values,
                          int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,
                          const int* n_pos_each);
// The same over an F16 cache (IEEE halves, widened exactly to float as they are read).
using AttendF16Fn = void (*)(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,
                             int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,
                             const int* n_pos_each);
// The same over a cache with Q8_0 keys (KvCache::keys_q8 blocks) and F16 values, the n_q
// queries quantized to ggml Q8_0 blocks (quant::quantize_row_q8_0; head h's dk / 32 blocks
// at q + h * dk / 32 * 34): int8 dot products for the scores. dk a multiple of 32, at most
// 512.
using AttendQ8Fn = void (*)(const uint8_t* q, int n_q, const uint8_t* keys, const uint16_t* values, int n_pos, int dk,
                            int dv, float scale, float* scratch, float* out, int64_t out_stride);
constexpr size_t attend_scratch_floats(int n_q, int n_pos, [[maybe_unused]] int dv) {
  return static_cast<size_t>(n_q) * static_cast<size_t>(n_pos);  // the scores
}
// g[i] = g[i] / (1 + e^-g[i]) * u[i].
using SwigluFn = void (*)(float* g, const float* u, int64_t n);
// x += add (add may be nullptr), then y = rms_norm(x) * w unless y is nullptr
// (ops::rms_norm within float rounding).
using AddRmsNormFn = void (*)(float* x, const float* add, const float* w, float* y, int64_t n, float eps);
// NeoX RoPE of n_heads heads (head h at x + h * stride): dimensions i and i + n_rot / 2
// rotated by cos_t[i], sin_t[i] (ops::rope_rotate with neox = true, to float rounding).
using RopeNeoxFn = void (*)(float* x, int n_heads, int64_t stride, int n_rot, const float* cos_t,
                            const float* sin_t);
// quantize_act_rows, vectorized: bytes and side values identical to it for every input.
using QuantizeActsFn = void (*)(const QuantizedActs& view, const float* x, int64_t x_stride, int t_begin,
                                int t_end);

// SimdKernels::matmul_prefetch, matmul_prefetch_near and matmul_prefetch_l2 differ from
// matmul only for K-quant weights and batches of up to kPrefetchMaxTokens tokens (decode,
// and verifying a draft as long as the default longest one), for Q8_0, Q4_0 and Q5_0
// weights and one token, and for Q8_0 and Q4_0 and up to kRowsBatchMax tokens: there they
// also prefetch the weights ahead of the block being read, far (non-temporal, 8 KB ahead),
// near (into L1, 1 KB ahead) or l2 (into L2, 4 KB ahead). Which of the four is fastest
// depends on the machine, and on one machine may differ between one token and a batch; a
// prefill (more tokens) reuses each panel across its token tiles and never prefetches.
enum DecodePrefetch : int { kPrefetchNone = 0, kPrefetchFar = 1, kPrefetchNear = 2, kPrefetchL2 = 3 };
inline constexpr int kPrefetchKinds = 4;
// Batches of 2 to kRowsBatchMax tokens of Q8_0 and Q4_0 weights stream the weights as one
// token does (packed_kernels.h, legacy_rows_batch), and prefetch alike: up to the default
// longest draft (EngineOptions::max_draft, 8) and the token before it. The K-quants'
// tiles prefetch for the same batches.
inline constexpr int kRowsBatchMax = 9;
inline constexpr int kPrefetchMaxTokens = kRowsBatchMax;
constexpr bool prefetch_applies(TensorType type, int n_tokens) {
  if (n_tokens == 1 && type == TensorType::Q5_0) return true;
  return n_tokens <= kPrefetchMaxTokens &&
         (type == TensorType::Q8_0 || type == TensorType::Q4_0 || type == TensorType::Q4_K ||
          type == TensorType::Q5_K || type == TensorType::Q6_K);
}

// One instruction set's kernels. Each per-ISA file fills its table from the shared
// templates (simd/make_kernels.h) by field name; dispatch.cpp completes the tables that
// extend another (AVX-VNNI takes AVX2's float kernels, AMX the AVX-512 VNNI kernels) and
// hands them out. Every field but attend_f16_tiles is set in every table handed out.
struct SimdKernels {
  KernelIsa isa;
  const char* name;  // "avx2", "avx512-vnni", "avx2-vnni", "avx2-vnni-evex", "avx512-vnni+amx", "amx-model",
                     // "avx512-model", "neon", "neon-dotprod"
  PackedMatmulFn matmul = nullptr;
  // The same results, with software prefetch where prefetch_applies(), far and near:
  // faster on some machines, slower on others (packed_kernels.h); the backend picks one of
  // the three by timing.
  PackedMatmulFn matmul_prefetch = nullptr;
  PackedMatmulFn matmul_prefetch_near = nullptr;
  PackedMatmulFn matmul_prefetch_l2 = nullptr;
  QuantizeActsFn quantize = nullptr;
  AttendFn attend = nullptr;
  AttendF16Fn attend_f16 = nullptr;
  AttendQ8Fn attend_q8 = nullptr;
  // attend_f16 for prefill batches on the AMX BF16 tiles (kernels/amx/amx_attend_kernels.h),
  // or nullptr: to FP32 rounding, not bit for bit, the same as attend_f16; each query's
  // result depends on that query alone, whatever the batch around it.
  AttendF16Fn attend_f16_tiles = nullptr;
  SwigluFn swiglu = nullptr;
  AddRmsNormFn add_rms_norm = nullptr;
  RopeNeoxFn rope_neox = nullptr;
};
// The head shapes attend_f16_tiles computes on the tiles (it hands others to attend_f16,
// which then needs attend_f16's scratch).
constexpr bool tiles_attend_shape(int dk, int dv) { return dk % 32 == 0 && dv % 64 == 0 && dk <= 256 && dv <= 256; }

// The kernels for an instruction set, or nullptr when this CPU (or this build) lacks it.
const SimdKernels* simd_kernels(KernelIsa isa);

// The fastest kernels this CPU runs, or nullptr when none does (an x86 CPU without AVX2:
// the engine then computes on the ggml layout with the scalar reference). amx = false
// leaves AMX out; amx_bf16 = true prefers the BF16 tiles (AmxBf16) where they pass their check.
const SimdKernels* best_simd_kernels(bool amx = true, bool amx_bf16 = false);

// Whether the AMX tiles can be used, and if not why. The permission request and the
// checks run once, on the first call of each function.
enum class AmxStatus {
  InUse,
  NotOnCpu,             // no AMX-TILE and AMX-INT8 (or no AMX-BF16), or not an x86-64 build
  NoVnniKernels,        // AMX without the AVX-512 VNNI kernels the tile kernels finish with
  TileStateRefused,     // Linux refused the tile state (arch_prctl ARCH_REQ_XCOMP_PERM)
  DiffersFromVnni,      // the int8 tiles' results are not the AVX-512 VNNI kernel's bits
  OutsideBound,         // the BF16 tiles' results are outside their bound (amx_check.h)
  OutsideFp32Rounding,  // attention on the tiles is not within FP32 rounding (amx_check.h)
};
// The sentence shown to users ("in use", "not on this CPU", ...).
const char* to_string(AmxStatus status);

// The int8 tiles (KernelIsa::Amx): checked bit for bit against the AVX-512 VNNI kernel.
AmxStatus amx_state();
// The BF16 tiles (KernelIsa::AmxBf16): NotOnCpu without AMX-BF16, else the int8 tiles'
// status unless InUse (small batches go to them), else checked against the AVX-512 VNNI
// kernel within the bound the kernel states (amx_check.h).
AmxStatus amx_bf16_state();
// Prefill attention on the BF16 tiles (attend_f16_tiles of the AMX tables): as
// amx_bf16_state(), checked against attention in double precision (amx_check.h).
AmxStatus attend_tiles_state();

}  // namespace wafer
