#include "engine/runtime/cpu_features.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/testing.h"

using namespace wafer;

namespace {

// The flags the kernel reports for the first CPU in /proc/cpuinfo (empty if unreadable):
// the line `key` ("flags" on x86, "Features" on AArch64).
std::set<std::string> proc_flags(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

}  // namespace

TEST_CASE("CPUID agrees with the flags Linux reports") {
#if !defined(__x86_64__)
  test::skip_test("not an x86-64 build");
#endif
  const CpuFeatures& f = cpu_features();
  auto flags = proc_flags("flags");
  if (flags.empty()) test::skip_test("no flags line in /proc/cpuinfo to compare with");
  CHECK(f.avx2 == (flags.count("avx2") == 1));
  CHECK(f.fma == (flags.count("fma") == 1));
  CHECK(f.f16c == (flags.count("f16c") == 1));
  CHECK(f.avx512f == (flags.count("avx512f") == 1));
  CHECK(f.avx512bw == (flags.count("avx512bw") == 1));
  CHECK(f.avx512vl == (flags.count("avx512vl") == 1));
  CHECK(f.avx512vnni == (flags.count("avx512_vnni") == 1));
  CHECK(f.avx_vnni == (flags.count("avx_vnni") == 1));
  CHECK(f.amx_tile == (flags.count("amx_tile") == 1));
}

// qemu-user shows the host's /proc/cpuinfo, which has no Features line: skipped there.
TEST_CASE("the AArch64 features agree with the ones Linux reports") {
#if !defined(__aarch64__) || !defined(__linux__)
  test::skip_test("not an AArch64 Linux build");
#endif
  const CpuFeatures& f = cpu_features();
  auto flags = proc_flags("Features");
  if (flags.empty()) test::skip_test("no Features line in /proc/cpuinfo to compare with");
  CHECK(f.neon == (flags.count("asimd") == 1));
  CHECK(f.dotprod == (flags.count("asimddp") == 1));
  CHECK(f.i8mm == (flags.count("i8mm") == 1));
  CHECK(f.sve == (flags.count("sve") == 1));
  CHECK(f.bf16 == (flags.count("bf16") == 1));
  CHECK(f.fp16 == (flags.count("asimdhp") == 1));
}

TEST_CASE("cores, caches and the kernel families are consistent") {
  const CpuFeatures& f = cpu_features();
  REQUIRE(f.physical_cores >= 1);
  REQUIRE(f.core_cpus.size() == f.physical_cores);
  REQUIRE(f.logical_cpus >= f.physical_cores);
  if (f.has_avx512_kernels()) REQUIRE(f.has_avx2_kernels());
  if (f.has_neon_dotprod_kernels()) REQUIRE(f.has_neon_kernels());
#if defined(__aarch64__)
  REQUIRE(f.neon);  // part of the AArch64 base architecture
#else
  REQUIRE_FALSE(f.neon);
#endif
  if (f.l2_bytes) REQUIRE(f.l2_bytes >= f.l1d_bytes);
  std::string text = describe(f);
  REQUIRE(text.find("cores: " + std::to_string(f.physical_cores)) != std::string::npos);
  REQUIRE(&cpu_features() == &f);  // detected once
  if (!f.amx_tile) REQUIRE_FALSE(request_amx_permission());
}
