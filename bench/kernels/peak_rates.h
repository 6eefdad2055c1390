// Per-core issue rates of the AVX-512 multiply-add instructions (peak_rates.cpp), in
// billions of multiply-adds per second: FP32 FMA (16 per instruction), VPDPBUSD (64 int8
// products) and VDPBF16PS (32 BF16 products; 0 when not measured).
#pragma once

namespace wafer::bench {

struct PeakRates {
  double fma_gmacs = 0, dpbusd_gmacs = 0, dpbf16_gmacs = 0;
};

// Only on a CPU with AVX-512 F and VNNI (and BF16 when `bf16`).
PeakRates measure_peak_rates_avx512(bool bf16);

}  // namespace wafer::bench
