// The test helpers themselves: temp dirs are created and removed, files round-trip.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/support/testing.h"

TEST_CASE("TempDir is created empty and removed with its contents", "[support]") {
  std::filesystem::path kept;
  {
    wafer::test::TempDir d;
    kept = d.path();
    REQUIRE(std::filesystem::is_directory(kept));
    CHECK(std::filesystem::is_empty(kept));
    wafer::test::write_file(d / "a.txt", std::string("x\0y", 3));
    CHECK(wafer::test::read_file(d / "a.txt") == std::string("x\0y", 3));
  }
  CHECK_FALSE(std::filesystem::exists(kept));
}

TEST_CASE("shared test data is found next to the checkout, or the test is skipped", "[support]") {
  auto p = wafer::test::require_testdata("tokenizer/README.md");  // exits 77 (skip) when absent
  CHECK(std::filesystem::is_regular_file(p));
}
