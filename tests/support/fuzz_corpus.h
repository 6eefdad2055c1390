// Replays a committed fuzz corpus folder (seeds and past crashers) through a fuzz target's
// entry point inside a Catch2 test: every file must come back with 0 (a crash or a broken
// invariant aborts the test executable, which fails the test).
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>

#include "tests/support/testing.h"

namespace wafer::test {

// Returns how many inputs were replayed (README.md files are skipped).
inline int replay_corpus(const std::filesystem::path& dir, const std::function<int(const uint8_t*, size_t)>& target) {
  REQUIRE(std::filesystem::is_directory(dir));
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".md") continue;
    std::string bytes = read_file(e.path());
    INFO(e.path().filename().string());
    CHECK(target(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) == 0);
    ++files;
  }
  return files;
}

}  // namespace wafer::test
