// Large buffers on transparent huge pages: 2 MiB-aligned anonymous mappings advised with
// MADV_HUGEPAGE before first touch. Streams over them are not cut every 4 KiB, where the
// hardware prefetcher stops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace wafer {

inline constexpr size_t kHugePage = size_t{2} << 20;

// A zero-filled mapping of at least `bytes` bytes (rounded up to 2 MiB), 2 MiB aligned,
// unmapped by the returned pointer's deleter; nullptr when the OS refuses.
std::shared_ptr<uint8_t> map_huge(size_t bytes);
// The raw pair, for allocators: map_huge_raw returns nullptr on failure; unmap_huge takes
// the same byte count.
void* map_huge_raw(size_t bytes);
void unmap_huge(void* p, size_t bytes);

// A std::allocator for big vectors (the KV cache, the forward pass's activations):
// allocations of 512 KiB or more come from map_huge_raw (rounded up to 2 MiB), smaller ones
// from operator new. Not only streams gain: a prefill's matmul writes each token's outputs
// a row apart (3.5 KB for a 896-wide row), so on 4 KiB pages a tile of 8 tokens stores to
// 8 pages, on one huge page (the 512-token q output is 1.8 MB) to one.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kThreshold = kHugePage / 4;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kThreshold) return static_cast<T*>(::operator new(bytes));
    void* p = map_huge_raw(bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
    if (bytes < kThreshold) ::operator delete(p);
    else unmap_huge(p, bytes);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
};

}  // namespace wafer
