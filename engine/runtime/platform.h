// The operating-system services the runtime needs, behind one OS-neutral interface. Each
// OS has its own implementation under platform/ (CMake compiles only the current OS's):
//   posix.cpp    Linux and macOS: mmap, mlock, the SIGBUS handler, sysconf
//   linux.cpp    Linux: futex, thread affinity, sysfs topology and caches, MADV_HUGEPAGE,
//                the AMX permission (arch_prctl)
//   macos.cpp    macOS: C++20 atomic wait (the OS's wait-on-address), no affinity
//   windows.cpp  Windows: all of it (WaitOnAddress, MapViewOfFile, VirtualLock, ...)
// No file outside platform/ includes an OS header (tests/layout/check_platform.py).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace wafer::platform {

// Sleeps while *word == expected (may return early: callers re-check).
void wait_on(std::atomic<uint32_t>* word, uint32_t expected);
// Wakes every thread sleeping in wait_on(word, ...).
void wake_all(std::atomic<uint32_t>* word);

// The processor's spin-wait hint (x86 PAUSE, Arm YIELD).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

// Best effort: pins the calling thread to one CPU (a refusal, or an OS without affinity,
// only costs locality).
void pin_current_thread(int cpu);

// The CPUs this process may run on (their OS numbers), ascending; never empty.
std::vector<int> allowed_cpus();
// One CPU of each physical core among `cpus` (SMT siblings dropped); `cpus` itself where the
// OS does not say which CPUs share a core.
std::vector<int> one_cpu_per_core(const std::vector<int>& cpus);
// Cache sizes as the OS reports them; false when it does not (the caller then asks the CPU).
bool cache_sizes(uint64_t& l1d, uint64_t& l2, uint64_t& l3);

// The x86 AMX tile data state: asks the OS where that is a request (Linux arch_prctl);
// where the OS enables it itself (Windows) reports whether it did; false elsewhere.
bool request_amx_state();

// The size of a memory page.
size_t page_size();

// Zero-filled read-write memory of `bytes` bytes starting at a multiple of `align` (a power
// of two, at least the page size); nullptr when the OS refuses. Freed by unmap_pages with
// the same byte count.
void* map_pages(size_t bytes, size_t align);
void unmap_pages(void* p, size_t bytes);
// Asks for large pages over [p, p + bytes) where the OS takes that as advice without
// privileges (Linux transparent huge pages); elsewhere nothing.
void advise_huge_pages(void* p, size_t bytes);
// What advise_huge_pages does here, in words (`wafer info --residency`).
const char* huge_pages_text();

// Locks [p, p + bytes) into RAM; false with the OS's reason in `error` (which names the
// limit in force and how to raise it, where there is one).
bool lock_pages(const void* p, size_t bytes, std::string& error);
void unlock_pages(const void* p, size_t bytes);

// A whole regular file mapped read-only. `data` is nullptr for an empty file.
struct FileView {
  const void* data = nullptr;
  size_t bytes = 0;
};
// Maps `path`; false with a message in `error` ("not a regular file", the OS's reason).
// Another process may still delete or replace the file while it is mapped.
bool map_file(const std::filesystem::path& path, FileView& view, std::string& error);
void unmap_file(const FileView& view);
// Drops the whole pages inside [p, p + bytes) of a file view from this process's resident
// memory: the OS keeps the file's pages in its cache, and reading them again faults them
// back in (the same bytes). For weights once they are copied into memory of their own.
// Only for file views: on anonymous memory the kernel may discard the contents.
void release_file_pages(const void* p, size_t bytes);

// Faults on a mapped file that lost its pages (truncated or gone: SIGBUS on POSIX, an
// in-page error on Windows). The handler is called with the faulting address from the
// fault itself and returns whether it repaired it (then the faulting read is retried);
// otherwise the fault takes its default course. Installed once; later calls do nothing.
void install_mapping_fault_handler(bool (*handler)(uintptr_t address));
// Replaces [begin, begin + bytes) of a file view with zero-filled read-only pages at the
// same address (safe to call from the fault handler); unmap_file frees either kind.
bool replace_with_zero_pages(uintptr_t begin, size_t bytes);

}  // namespace wafer::platform
