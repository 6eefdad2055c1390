// The AMX kernel (engine/kernels/amx/amx_kernels.h) with its tile instructions taken out,
// for bench_kernels --isa amx-vector-half: the panel unpacking and the per-block float work
// run as on an AMX machine, the tile loads and products do nothing, and each tile store
// writes its 1 KB of zeros as TILESTORED would. On a CPU without AMX this times the half of
// the kernel that runs on the vector unit: an upper bound of its speed where the tile unit
// keeps up with it (TDPBSSD itself is a tile-unit instruction; a product of 16 x 16 x 32
// bytes is 16 cycles or fewer on Sapphire Rapids). Compiled with the AVX-512 flags.
#include <cstdint>
#include <cstring>

#include "engine/kernels/amx/amx_kernels.h"
#include "engine/kernels/avx512/traits_avx512.h"
#include "engine/kernels/dispatch.h"
#include "engine/kernels/isa_tables.h"

namespace wafer {

namespace {

struct TileStoresOnly {
  static void load_config(const amx::TileConfig&) {}
  static void release() {}
  template <int T>
  static void zero() {}
  template <int T>
  static void load(const void*, int64_t) {}
  template <int T>
  static void store(void* base, int64_t stride) {  // 16 rows of 64 bytes, as the kernel configures C
    for (int r = 0; r < 16; ++r) std::memset(static_cast<uint8_t*>(base) + r * stride, 0, 64);
  }
  template <int C, int A, int B>
  static void dp_ss() {}
};

}  // namespace

namespace bench {
void amx_vector_half_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                            int64_t panel_begin, int64_t panel_end) {
  simd::AmxImpl<Avx512Traits, TileStoresOnly>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                      isa_tables::avx512.matmul);
}
}  // namespace bench

}  // namespace wafer
