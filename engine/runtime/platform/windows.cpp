// Windows: WaitOnAddress sleeps, thread affinity masks, topology and caches from
// GetLogicalProcessorInformationEx, VirtualAlloc/VirtualLock, read-only file views, and a
// vectored exception handler for in-page errors on them.
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <algorithm>
#include <memory>

#include "engine/runtime/platform.h"

namespace wafer::platform {
namespace {

std::string last_error_text() {
  const DWORD code = GetLastError();
  char* text = nullptr;
  const DWORD n = FormatMessageA(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                                 nullptr, code, MAKELANGID(LANG_NEUTRAL, SUBLANG_DEFAULT),
                                 reinterpret_cast<char*>(&text), 0, nullptr);
  std::string s = n ? std::string(text, n) : "error " + std::to_string(code);
  if (text) LocalFree(text);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '.')) s.pop_back();
  return s;
}

// The records of one relation, as a byte buffer walked by each record's Size.
std::unique_ptr<char[]> processor_info(LOGICAL_PROCESSOR_RELATIONSHIP relation, DWORD& bytes) {
  bytes = 0;
  GetLogicalProcessorInformationEx(relation, nullptr, &bytes);
  if (bytes == 0) return nullptr;
  auto buf = std::make_unique<char[]>(bytes);
  if (!GetLogicalProcessorInformationEx(relation, reinterpret_cast<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buf.get()),
                                        &bytes))
    return nullptr;
  return buf;
}

bool (*g_fault_handler)(uintptr_t) = nullptr;

LONG CALLBACK on_exception(EXCEPTION_POINTERS* info) {
  const EXCEPTION_RECORD* r = info->ExceptionRecord;
  // An in-page error: the file behind a view could not be read (gone, or a network drive
  // that went away). ExceptionInformation[1] is the address.
  if (r->ExceptionCode == EXCEPTION_IN_PAGE_ERROR && r->NumberParameters >= 2 && g_fault_handler &&
      g_fault_handler(static_cast<uintptr_t>(r->ExceptionInformation[1])))
    return EXCEPTION_CONTINUE_EXECUTION;
  return EXCEPTION_CONTINUE_SEARCH;
}

}  // namespace

void wait_on(std::atomic<uint32_t>* word, uint32_t expected) {
  WaitOnAddress(reinterpret_cast<volatile void*>(word), &expected, sizeof(expected), INFINITE);
}

void wake_all(std::atomic<uint32_t>* word) { WakeByAddressAll(reinterpret_cast<void*>(word)); }

void pin_current_thread(int cpu) {
  // Affinity masks cover one processor group (64 CPUs); beyond it, no pinning.
  if (cpu >= 0 && cpu < 64) SetThreadAffinityMask(GetCurrentThread(), DWORD_PTR{1} << cpu);
}

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  DWORD_PTR process = 0, system = 0;
  if (GetProcessAffinityMask(GetCurrentProcess(), &process, &system))
    for (int c = 0; c < 64; ++c)
      if (process & (DWORD_PTR{1} << c)) cpus.push_back(c);
  if (cpus.empty()) {
    SYSTEM_INFO si{};
    GetSystemInfo(&si);
    for (DWORD c = 0; c < std::max<DWORD>(1, si.dwNumberOfProcessors); ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

std::vector<int> one_cpu_per_core(const std::vector<int>& cpus) {
  DWORD bytes = 0;
  auto buf = processor_info(RelationProcessorCore, bytes);
  if (!buf) return cpus;
  std::vector<int> cores;
  for (DWORD at = 0; at < bytes;) {
    const auto* rec = reinterpret_cast<const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buf.get() + at);
    const GROUP_AFFINITY& g = rec->Processor.GroupMask[0];
    if (g.Group == 0)
      for (int c : cpus)
        if (c < 64 && (g.Mask & (KAFFINITY{1} << c))) {
          cores.push_back(c);  // the core's first allowed CPU
          break;
        }
    at += rec->Size;
  }
  std::sort(cores.begin(), cores.end());
  return cores.empty() ? cpus : cores;
}

bool cache_sizes(uint64_t& l1d, uint64_t& l2, uint64_t& l3) {
  DWORD bytes = 0;
  auto buf = processor_info(RelationCache, bytes);
  if (!buf) return false;
  uint64_t a = 0, b = 0, c = 0;
  for (DWORD at = 0; at < bytes;) {
    const auto* rec = reinterpret_cast<const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buf.get() + at);
    const CACHE_RELATIONSHIP& cache = rec->Cache;
    if (cache.Level == 1 && cache.Type == CacheData) a = cache.CacheSize;
    if (cache.Level == 2) b = cache.CacheSize;
    if (cache.Level == 3) c = cache.CacheSize;
    at += rec->Size;
  }
  if (b == 0) return false;
  l1d = a, l2 = b, l3 = c;
  return true;
}

// Windows enables the tile state itself where it supports it; it says so in the features
// of the extended state it saves (bits 17 and 18: the tile configuration and the tile data).
// XCR0, which CPU detection checked, is not enough: a Windows without AMX support under a
// kernel that has it (wine on Linux) sees the bits in XCR0 while the first tile instruction
// still faults.
bool request_amx_state() {
  constexpr DWORD64 kTileConfig = DWORD64{1} << 17, kTileData = DWORD64{1} << 18;
  const DWORD64 enabled = GetEnabledXStateFeatures();
  return (enabled & kTileConfig) && (enabled & kTileData);
}

size_t page_size() {
  SYSTEM_INFO si{};
  GetSystemInfo(&si);
  return si.dwPageSize;
}

void* map_pages(size_t bytes, size_t align) {
  if (bytes == 0) bytes = 1;
  SYSTEM_INFO si{};
  GetSystemInfo(&si);
  if (align <= si.dwAllocationGranularity)
    return VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  // A reservation cannot be trimmed: find an aligned address inside a larger one, release
  // it and take the aligned part (another thread may take it first: try again).
  for (int attempt = 0; attempt < 16; ++attempt) {
    void* probe = VirtualAlloc(nullptr, bytes + align, MEM_RESERVE, PAGE_NOACCESS);
    if (!probe) return nullptr;
    const auto aligned = (reinterpret_cast<uintptr_t>(probe) + align - 1) / align * align;
    VirtualFree(probe, 0, MEM_RELEASE);
    if (void* p = VirtualAlloc(reinterpret_cast<void*>(aligned), bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE))
      return p;
  }
  return nullptr;
}

void unmap_pages(void* p, size_t) {
  if (p) VirtualFree(p, 0, MEM_RELEASE);
}

// Large pages need the SeLockMemoryPrivilege, which a user's process does not hold.
void advise_huge_pages(void*, size_t) {}

const char* huge_pages_text() { return "normal pages (large pages need the SeLockMemoryPrivilege)"; }

bool lock_pages(const void* p, size_t bytes, std::string& error) {
  if (VirtualLock(const_cast<void*>(p), bytes)) return true;
  // VirtualLock is bounded by the minimum working set: raise it by the bytes and retry.
  SIZE_T lo = 0, hi = 0;
  if (GetProcessWorkingSetSize(GetCurrentProcess(), &lo, &hi) &&
      SetProcessWorkingSetSize(GetCurrentProcess(), lo + bytes, std::max(hi, lo + bytes) + bytes) &&
      VirtualLock(const_cast<void*>(p), bytes))
    return true;
  error = last_error_text() + " (VirtualLock; the process's minimum working set bounds it)";
  return false;
}

void unlock_pages(const void* p, size_t bytes) { VirtualUnlock(const_cast<void*>(p), bytes); }

void release_file_pages(const void* p, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(page_size());
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  // VirtualUnlock on pages that are not locked takes them out of the working set (and
  // fails with ERROR_NOT_LOCKED, which is the expected outcome here).
  if (end > begin) VirtualUnlock(reinterpret_cast<void*>(begin), end - begin);
}

bool map_file(const std::filesystem::path& path, FileView& view, std::string& error) {
  const DWORD attrs = GetFileAttributesW(path.c_str());
  if (attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY)) {
    error = "not a regular file";
    return false;
  }
  // FILE_SHARE_DELETE: the file may still be deleted or replaced (`wafer pull`) while we
  // hold it; the view keeps the old contents.
  HANDLE file = CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                            OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    // The common refusals in the same words as on the other systems.
    const DWORD code = GetLastError();
    if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) error = "No such file or directory";
    else if (code == ERROR_ACCESS_DENIED) error = "Permission denied";
    else if (code == ERROR_SHARING_VIOLATION || code == ERROR_LOCK_VIOLATION)
      error = "the file is locked by another process (close the program holding it, or use a copy)";
    else if (code == ERROR_BAD_NETPATH || code == ERROR_BAD_NET_NAME || code == ERROR_NETNAME_DELETED ||
             code == ERROR_NETWORK_UNREACHABLE || code == ERROR_HOST_UNREACHABLE || code == ERROR_UNEXP_NET_ERR ||
             code == ERROR_REM_NOT_LIST)
      error = "the network share is unreachable (" + last_error_text() + ")";
    else error = last_error_text();
    return false;
  }
  LARGE_INTEGER size{};
  if (GetFileType(file) != FILE_TYPE_DISK) {
    CloseHandle(file);
    error = "not a regular file";
    return false;
  }
  if (!GetFileSizeEx(file, &size)) {
    error = last_error_text();
    CloseHandle(file);
    return false;
  }
  view = {};
  if (size.QuadPart > 0) {
    HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (!mapping) {
      error = "CreateFileMapping: " + last_error_text();
      CloseHandle(file);
      return false;
    }
    void* addr = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    if (!addr) error = "MapViewOfFile: " + last_error_text();
    CloseHandle(mapping);  // the view keeps the mapping and the file open
    if (!addr) {
      CloseHandle(file);
      return false;
    }
    view = {addr, static_cast<size_t>(size.QuadPart)};
  }
  CloseHandle(file);
  return true;
}

void unmap_file(const FileView& view) {
  if (!view.data) return;
  // A view replaced by zero pages (replace_with_zero_pages) is plain memory now.
  if (!UnmapViewOfFile(view.data)) VirtualFree(const_cast<void*>(view.data), 0, MEM_RELEASE);
}

void install_mapping_fault_handler(bool (*handler)(uintptr_t)) {
  if (g_fault_handler) return;
  g_fault_handler = handler;
  AddVectoredExceptionHandler(1, on_exception);
}

bool replace_with_zero_pages(uintptr_t begin, size_t bytes) {
  auto* p = reinterpret_cast<void*>(begin);
  if (!UnmapViewOfFile(p)) return false;
  return VirtualAlloc(p, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READONLY) == p;
}

}  // namespace wafer::platform
