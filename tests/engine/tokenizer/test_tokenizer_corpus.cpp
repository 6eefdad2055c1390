// Replays the tokenizer fuzz corpus (tests/engine/corpus/tokenizer: seeds and every input
// that ever broke fuzz/fuzz_tokenizer.cpp) through the fuzz target's own entry point, which
// aborts on a broken invariant, so a regression fails the normal test suite.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "fuzz/fuzz_tokenizer.cpp"
#include "tests/support/fuzz_corpus.h"

TEST_CASE("tokenizer corpus: every seed and past crasher passes the fuzz checks", "[tokenizer][fuzz]") {
  namespace fs = std::filesystem;
  // The fuzz target finds the shared vocabularies through $WAFER_TESTDATA (absent: it runs
  // with the synthetic vocabulary only).
  setenv("WAFER_TESTDATA", wafer::test::testdata_dir().string().c_str(), 1);
  CHECK(wafer::test::replay_corpus(fs::path(__FILE__).parent_path().parent_path() / "corpus" / "tokenizer", LLVMFuzzerTestOneInput) >= 8);
}
