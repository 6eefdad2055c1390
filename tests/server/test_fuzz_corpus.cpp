// Replays the committed corpora of the server's fuzz targets (tests/server/corpus/: seeds
// from real traffic and every input that ever crashed a target) through the targets' own
// entry points, so a fixed crash stays fixed in the normal test suite — and under
// WAFER_SANITIZE=ON with ASan watching. Each target's entry point is renamed here so that
// they can live in one executable.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>

#include "tests/support/fuzz_corpus.h"

#define LLVMFuzzerTestOneInput fuzz_framing_one
#include "fuzz/fuzz_framing.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_lsp_one
#include "fuzz/fuzz_lsp.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_documents_one
#include "fuzz/fuzz_documents.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_settings_one
#include "fuzz/fuzz_settings.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_sse_one
#include "fuzz/fuzz_sse.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_trace_one
#include "fuzz/fuzz_trace.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_listen_token_one
#include "fuzz/fuzz_listen_token.cpp"
#undef LLVMFuzzerTestOneInput

namespace {

int replay(const std::string& name, const std::function<int(const uint8_t*, size_t)>& target) {
  return wafer::test::replay_corpus(std::filesystem::path(__FILE__).parent_path() / "corpus" / name, target);
}

}  // namespace

TEST_CASE("fuzz corpus: framing", "[fuzz]") { CHECK(replay("framing", fuzz_framing_one) >= 10); }
TEST_CASE("fuzz corpus: the daemon as a whole", "[fuzz]") { CHECK(replay("lsp", fuzz_lsp_one) >= 20); }
TEST_CASE("fuzz corpus: document edits against the reference model", "[fuzz]") {
  CHECK(replay("documents", fuzz_documents_one) >= 6);
}
TEST_CASE("fuzz corpus: settings and command lines", "[fuzz]") { CHECK(replay("settings", fuzz_settings_one) >= 10); }
TEST_CASE("fuzz corpus: remote servers' event streams", "[fuzz]") { CHECK(replay("sse", fuzz_sse_one) >= 6); }
TEST_CASE("fuzz corpus: bench traces", "[fuzz]") { CHECK(replay("trace", fuzz_trace_one) >= 5); }
TEST_CASE("fuzz corpus: the token line of a TCP client", "[fuzz]") {
  CHECK(replay("listen_token", fuzz_listen_token_one) >= 6);
}
