// Replays the GGUF fuzz corpus (tests/engine/corpus/gguf: seeds and every input that ever
// crashed fuzz/fuzz_gguf.cpp) through the fuzz target's own entry point, so a regression
// shows up in the normal test suite (and under WAFER_SANITIZE=ON, with ASan watching).
#include <catch2/catch.hpp>

#include <filesystem>

#include "engine/gguf/gguf.h"
#include "fuzz/fuzz_gguf.cpp"
#include "tests/support/testing.h"

TEST_CASE("gguf corpus: every seed and past crasher is handled", "[gguf][fuzz]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(__FILE__).parent_path().parent_path() / "corpus" / "gguf";
  REQUIRE(fs::is_directory(dir));
  int files = 0, seeds = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".md") continue;
    std::string bytes = wafer::test::read_file(e.path());
    INFO(e.path().filename().string());
    CHECK(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) == 0);
    auto f = wafer::GgufFile::parse(bytes.data(), bytes.size());
    if (e.path().filename().string().rfind("seed-", 0) == 0) {
      CHECK(f.ok());  // seeds are valid files, so the fuzzer starts from deep inside the format
      ++seeds;
    }
    ++files;
  }
  CHECK(seeds >= 3);
  CHECK(files >= seeds);
}
