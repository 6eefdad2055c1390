// The AMX tile instructions as the kernels (amx_kernels.h) call them, for the hardware:
// inline assembly, so the file needs no -mamx flags and GCC knows exactly what memory
// each instruction touches. GCC 12's own intrinsics do not: _tile_loadconfig tells the
// compiler it reads 8 bytes of the 64-byte configuration (so the stores filling the rest
// can be dropped, and the tile loads then fault), and _tile_loadd has no memory operand
// at all (so stores to the buffer it reads may be moved after it). Here the configuration
// is a 64-byte memory operand and every load and store clobbers memory.
//
// Tile numbers are template arguments because they are encoded in the instruction.
// Runs only where CPUID reports AMX-TILE and AMX-INT8 and Linux granted the tile state
// (request_amx_permission); TileModel (tile_model.h) is its software twin for the tests.
#pragma once

#include <cstdint>

#include "engine/kernels/amx/tile_config.h"

namespace wafer::amx {

#define WAFER_TMM_CASES(T, FMT, ...)                                   \
  if constexpr ((T) == 0) __asm__ volatile(FMT("0") __VA_ARGS__);      \
  else if constexpr ((T) == 1) __asm__ volatile(FMT("1") __VA_ARGS__); \
  else if constexpr ((T) == 2) __asm__ volatile(FMT("2") __VA_ARGS__); \
  else if constexpr ((T) == 3) __asm__ volatile(FMT("3") __VA_ARGS__); \
  else if constexpr ((T) == 4) __asm__ volatile(FMT("4") __VA_ARGS__); \
  else if constexpr ((T) == 5) __asm__ volatile(FMT("5") __VA_ARGS__); \
  else if constexpr ((T) == 6) __asm__ volatile(FMT("6") __VA_ARGS__); \
  else if constexpr ((T) == 7) __asm__ volatile(FMT("7") __VA_ARGS__); \
  else static_assert((T) >= 0 && (T) < 8, "palette 1 has tiles 0..7")

#define WAFER_TILEZERO(n) "tilezero %%tmm" n
#define WAFER_TILELOADD(n) "tileloadd (%0,%1,1), %%tmm" n
#define WAFER_TILESTORED(n) "tilestored %%tmm" n ", (%0,%1,1)"

struct TileHw {
  static constexpr const char* kName = "amx";

  static void load_config(const TileConfig& c) { __asm__ volatile("ldtilecfg %0" : : "m"(c) : "memory"); }
  static void release() { __asm__ volatile("tilerelease" : : : "memory"); }

  template <int T>
  static void zero() {
    WAFER_TMM_CASES(T, WAFER_TILEZERO, : : : "memory");
  }
  // Rows of tile T from base + r * stride (the configured rows and bytes per row).
  template <int T>
  static void load(const void* base, int64_t stride) {
    WAFER_TMM_CASES(T, WAFER_TILELOADD, : : "r"(base), "r"(stride) : "memory");
  }
  template <int T>
  static void store(void* base, int64_t stride) {
    WAFER_TMM_CASES(T, WAFER_TILESTORED, : : "r"(base), "r"(stride) : "memory");
  }
  // Tile C (int32) += signed bytes of tile A times signed bytes of tile B (TDPBSSD). Only
  // the pairings the kernels use are spelled out (AT&T order: B, A, C).
  template <int C, int A, int B>
  static void dp_ss() {
    if constexpr (C == 0 && A == 2 && B == 4) __asm__ volatile("tdpbssd %%tmm4, %%tmm2, %%tmm0" : : : "memory");
    else if constexpr (C == 1 && A == 3 && B == 5) __asm__ volatile("tdpbssd %%tmm5, %%tmm3, %%tmm1" : : : "memory");
    else static_assert(C < 0, "spell out this tile pairing");
  }
  // Tile C (fp32) += pairs of BF16 in tile A times pairs of BF16 in tile B (TDPBF16PS), for
  // C in 0..3, A in 4..5, B in 6..7: the pairings the BF16 kernels use.
  template <int C, int A, int B>
  static void dp_bf16() {
#define WAFER_DPBF16(c, a, b) \
  else if constexpr (C == c && A == a && B == b) __asm__ volatile("tdpbf16ps %%tmm" #b ", %%tmm" #a ", %%tmm" #c : : : "memory");
#define WAFER_DPBF16_C(c) WAFER_DPBF16(c, 4, 6) WAFER_DPBF16(c, 4, 7) WAFER_DPBF16(c, 5, 6) WAFER_DPBF16(c, 5, 7)
    if constexpr (C < 0) static_assert(C >= 0);  // heads the chain of `else if`s below
    WAFER_DPBF16_C(0) WAFER_DPBF16_C(1) WAFER_DPBF16_C(2) WAFER_DPBF16_C(3)
    else static_assert(C < 0, "spell out this tile pairing");
#undef WAFER_DPBF16_C
#undef WAFER_DPBF16
  }
};

#undef WAFER_TILEZERO
#undef WAFER_TILELOADD
#undef WAFER_TILESTORED
#undef WAFER_TMM_CASES

}  // namespace wafer::amx
