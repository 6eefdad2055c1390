#include "engine/runtime/float_mode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace wafer {

#if defined(__x86_64__) || defined(__i386__)
namespace {
constexpr unsigned kFtz = 0x8000;  // MXCSR bit 15: flush-to-zero
constexpr unsigned kDaz = 0x0040;  // MXCSR bit 6: denormals-are-zero
}  // namespace

void flush_denormals_in_this_thread() { _mm_setcsr(_mm_getcsr() | kFtz | kDaz); }
void keep_denormals_in_this_thread() { _mm_setcsr(_mm_getcsr() & ~(kFtz | kDaz)); }
bool denormals_flushed_in_this_thread() { return (_mm_getcsr() & (kFtz | kDaz)) == (kFtz | kDaz); }

#elif defined(__aarch64__)
namespace {
constexpr unsigned long kFz = 1ul << 24;  // FPCR.FZ: flush denormal inputs and outputs to zero
unsigned long read_fpcr() {
  unsigned long v;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
  return v;
}
}  // namespace

void flush_denormals_in_this_thread() {
  unsigned long v = read_fpcr() | kFz;
  __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
}
void keep_denormals_in_this_thread() {
  unsigned long v = read_fpcr() & ~kFz;
  __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
}
bool denormals_flushed_in_this_thread() { return (read_fpcr() & kFz) != 0; }

#else
void flush_denormals_in_this_thread() {}
void keep_denormals_in_this_thread() {}
bool denormals_flushed_in_this_thread() { return false; }
#endif

}  // namespace wafer
