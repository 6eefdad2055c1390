#include "engine/runtime/cpu_features.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

using namespace wafer;

namespace {

// The flags the kernel reports for the first CPU in /proc/cpuinfo (empty if unreadable).
std::set<std::string> proc_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

}  // namespace

TEST_CASE("CPUID agrees with the flags Linux reports") {
  const CpuFeatures& f = cpu_features();
  auto flags = proc_flags();
  if (flags.empty()) {
    WARN("no /proc/cpuinfo flags to compare with");
    return;
  }
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

TEST_CASE("cores, caches and the kernel families are consistent") {
  const CpuFeatures& f = cpu_features();
  REQUIRE(f.physical_cores >= 1);
  REQUIRE(f.core_cpus.size() == f.physical_cores);
  REQUIRE(f.logical_cpus >= f.physical_cores);
  if (f.has_avx512_kernels()) REQUIRE(f.has_avx2_kernels());
  if (f.l2_bytes) REQUIRE(f.l2_bytes >= f.l1d_bytes);
  std::string text = describe(f);
  REQUIRE(text.find("cores: " + std::to_string(f.physical_cores)) != std::string::npos);
  REQUIRE(&cpu_features() == &f);  // detected once
  if (!f.amx_tile) REQUIRE_FALSE(request_amx_permission());
}
