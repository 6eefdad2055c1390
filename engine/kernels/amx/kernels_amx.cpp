// The AMX prefill matmul (amx_kernels.h) on the hardware tiles (TileHw), compiled with the
// AVX-512 flags (the tile instructions are inline assembly and need none): chosen only
// where CPUID reports AMX-TILE and AMX-INT8, Linux grants the tile state and a check at
// first use finds it bit-identical to the AVX-512 VNNI kernel (dispatch.cpp), to which it
// hands what the tiles do not take. The same code on software models of the tiles and the
// vectors, for the tests on any x86 CPU: kernels/model/kernels_model.cpp.
#include "engine/kernels/amx/amx_kernels.h"
#include "engine/kernels/amx/tiles_hw.h"
#include "engine/kernels/avx512/traits_avx512.h"

namespace wafer {

namespace kernels_avx512 {
void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end);
}

namespace kernels_amx {
void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end) {
  simd::AmxImpl<Avx512Traits, amx::TileHw>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                   kernels_avx512::packed_matmul);
}
}  // namespace kernels_amx

}  // namespace wafer
