// The one options parser: subcommands, flags, values, and clear errors.
#include <catch2/catch.hpp>

#include <vector>

#include "server/config/options.h"
#include "server/lsp/settings.h"

namespace {

wafer::Result<wafer::Options> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "wafer");
  return wafer::parse_options(static_cast<int>(args.size()), args.data());
}

}  // namespace

TEST_CASE("options: subcommand, flags and positional arguments", "[options]") {
  auto r = parse({"generate", "m.gguf", "--prompt", "def f(", "-n", "16", "--temp=0.5", "--threads", "2"});
  REQUIRE(r.ok());
  CHECK(r->command == "generate");
  CHECK(r->positional == std::vector<std::string>{"m.gguf"});
  CHECK(r->prompt == "def f(");
  CHECK(r->n_predict == 16);
  CHECK(r->temperature == Approx(0.5));
  CHECK(r->threads == 2);
}

TEST_CASE("options: --version and --help need no command", "[options]") {
  CHECK(parse({"--version"})->version);
  CHECK(parse({"--help"})->help);
  auto h = parse({"help", "tokenize"});
  REQUIRE(h.ok());
  CHECK(h->help);
  CHECK(h->command == "tokenize");
  CHECK(wafer::usage("tokenize").find("--ids") != std::string::npos);
  CHECK(wafer::usage("").find("lsp") != std::string::npos);
}

TEST_CASE("options: errors name the offending argument", "[options]") {
  auto unknown_cmd = parse({"frobnicate"});
  REQUIRE_FALSE(unknown_cmd.ok());
  CHECK(unknown_cmd.error().message.find("frobnicate") != std::string::npos);

  auto bad_flag = parse({"info", "--prompt", "x"});  // --prompt belongs to generate
  REQUIRE_FALSE(bad_flag.ok());
  CHECK(bad_flag.error().message.find("--prompt") != std::string::npos);

  auto bad_num = parse({"lsp", "--threads", "many"});
  REQUIRE_FALSE(bad_num.ok());
  CHECK(bad_num.error().message.find("--threads") != std::string::npos);

  auto missing = parse({"generate", "--prompt"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("missing value") != std::string::npos);

  auto no_value = parse({"tokenize", "--ids=1"});
  REQUIRE_FALSE(no_value.ok());
}

TEST_CASE("options: '--' ends flags and negative-looking numbers are positional", "[options]") {
  auto r = parse({"tokenize", "m.gguf", "--", "--ids"});
  REQUIRE(r.ok());
  CHECK_FALSE(r->ids);
  CHECK(r->positional == std::vector<std::string>{"m.gguf", "--ids"});
}

TEST_CASE("options: lsp accepts --stdio, which LSP clients append", "[options]") {
  // vscode-languageclient's TransportKind.stdio runs `wafer lsp ... --stdio`.
  auto r = parse({"lsp", "--model", "m.gguf", "--stdio"});
  REQUIRE(r.ok());
  CHECK(r->listen.empty());
  CHECK_FALSE(parse({"tokenize", "m.gguf", "--stdio"}).ok());  // only where it means something
}

TEST_CASE("options: --listen alone is the local socket, --allow-root repeats", "[options]") {
  CHECK(parse({"lsp", "--listen"})->listen == "local");
  CHECK(parse({"lsp", "--listen", "--model", "m.gguf"})->listen == "local");
  CHECK(parse({"lsp", "--listen", "127.0.0.1:0"})->listen == "127.0.0.1:0");
  CHECK(parse({"lsp", "--listen", "/run/w.sock"})->listen == "/run/w.sock");
  CHECK_FALSE(parse({"lsp", "--listen="}));  // not stdio by accident
  CHECK_FALSE(parse({"lsp", "--listen", ""}));
  auto r = parse({"lsp", "--allow-root", "/a", "--allow-root", "/b", "--max-index-files", "7", "--max-index-mib", "3"});
  REQUIRE(r);
  CHECK(r->allow_roots == std::vector<std::string>{"/a", "/b"});
  CHECK(r->max_index_files == 7);
  CHECK(r->max_index_mib == 3);
}

TEST_CASE("options: remote backend flags for lsp and bench", "[options]") {
  auto r = parse({"lsp", "--backend", "llama-server", "--backend-url", "http://gpu:8080", "--api-key-env", "K",
                  "--backend-timeout-ms", "3000", "--fim-template", "{prefix}<X>{suffix}"});
  REQUIRE(r);
  CHECK(r->backend == "llama-server");
  CHECK(r->backend_url == "http://gpu:8080");
  CHECK(r->api_key_env == "K");
  CHECK(r->backend_timeout_ms == 3000);
  CHECK(r->prompt_template == "{prefix}<X>{suffix}");
  auto b = parse({"bench", "replay", "s.py", "--backend=openai", "--backend-model", "m", "--api-key-file", "/k"});
  REQUIRE(b);
  CHECK(b->backend == "openai");
  CHECK(b->backend_model == "m");
  CHECK(b->api_key_file == "/k");
  CHECK(parse({"lsp"})->backend == "local");
  auto bad = parse({"lsp", "--backend", "tgi"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("--backend: expected local, llama-server or openai") == 0);
  CHECK_FALSE(parse({"generate", "--backend", "openai"}).ok());  // only where it means something
}

TEST_CASE("options: alternatives for invoked requests", "[options]") {
  auto d = parse({"lsp"});
  REQUIRE(d);
  CHECK(d->alternatives == 3);
  CHECK(d->alternatives_temperature == Approx(0.7));
  CHECK(d->alternatives_top_p == Approx(0.95));
  auto r = parse({"lsp", "--alternatives", "1", "--alternatives-temperature", "0.3", "--alternatives-top-p=0.5"});
  REQUIRE(r);
  CHECK(r->alternatives == 1);
  CHECK(r->alternatives_temperature == Approx(0.3));
  CHECK(r->alternatives_top_p == Approx(0.5));
  CHECK_FALSE(parse({"lsp", "--alternatives", "0"}));
  CHECK_FALSE(parse({"lsp", "--alternatives", "11"}));
  CHECK_FALSE(parse({"lsp", "--alternatives-temperature", "0"}));  // 0 would repeat the greedy one
  CHECK_FALSE(parse({"lsp", "--alternatives-top-p", "1.5"}));
}

TEST_CASE("options: decoding ahead of the cursor", "[options]") {
  CHECK(parse({"lsp"})->ahead_tokens == 48);
  auto r = parse({"lsp", "--ahead-tokens", "0"});
  REQUIRE(r);
  CHECK(r->ahead_tokens == 0);
  CHECK_FALSE(parse({"lsp", "--ahead-tokens", "-1"}));
  CHECK_FALSE(parse({"lsp", "--ahead-tokens", "5000"}));
}

TEST_CASE("options: --kv-type", "[options]") {
  CHECK(parse({"lsp"})->kv_type == "f16");
  auto f32 = parse({"generate", "--kv-type", "f32"});
  REQUIRE(f32);
  CHECK(f32->kv_type == "f32");
  CHECK(parse({"lsp", "--kv-type", "q8_0"})->kv_type == "q8_0");
  auto bad = parse({"lsp", "--kv-type", "f8"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "--kv-type: unknown KV cache type 'f8' (f32, f16 or q8_0)");
  CHECK_FALSE(parse({"tokenize", "--kv-type", "f32"}));  // not an engine run
}

TEST_CASE("options: token healing on or off", "[options]") {
  CHECK(parse({"lsp"})->token_healing);
  auto off = parse({"lsp", "--token-healing", "off"});
  REQUIRE(off);
  CHECK_FALSE(off->token_healing);
  auto on = parse({"bench", "--token-healing=on"});
  REQUIRE(on);
  CHECK(on->token_healing);
  auto bad = parse({"lsp", "--token-healing", "yes"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("--token-healing") != std::string::npos);
  CHECK_FALSE(parse({"tokenize", "--token-healing", "off"}));  // not an engine run
}

TEST_CASE("options: warm-up on or off", "[options]") {
  CHECK(parse({"lsp"})->warm);
  auto off = parse({"lsp", "--warm", "off"});
  REQUIRE(off);
  CHECK_FALSE(off->warm);
  auto bad = parse({"lsp", "--warm", "1"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("--warm: expected on or off") == 0);
  CHECK_FALSE(parse({"bench", "--warm", "off"}));  // an lsp option
}

TEST_CASE("options: --amx off reaches the engine options", "[options]") {
  CHECK(engine_options(*parse({"lsp"})).amx);  // on by default: used where the CPU has it
  for (const char* cmd : {"lsp", "generate", "bench"}) {
    auto off = parse({cmd, "--amx", "off"});
    REQUIRE(off);
    CHECK_FALSE(engine_options(*off).amx);
  }
  auto bad = parse({"lsp", "--amx", "auto"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("--amx: expected on or off") == 0);
}

TEST_CASE("options: --early-prefill on by default, off by flag", "[options]") {
  CHECK(parse({"lsp"})->early_prefill);
  auto off = parse({"lsp", "--early-prefill", "off"});
  REQUIRE(off);
  CHECK_FALSE(off->early_prefill);
  auto bench = parse({"bench", "--early-prefill", "off"});  // passed on to the wafer lsp target
  REQUIRE(bench);
  CHECK_FALSE(bench->early_prefill);
  CHECK_FALSE(parse({"generate", "--early-prefill", "off"}));  // no debounce there
  CHECK_FALSE(parse({"lsp", "--early-prefill", "1"}));
}

TEST_CASE("options: --chunk-reuse 32 by default, 0 turns it off, bench passes it on", "[options]") {
  CHECK(parse({"lsp"})->chunk_reuse == 32);
  CHECK(engine_options(*parse({"lsp"})).chunk_reuse_min == 32);
  CHECK(engine_options(*parse({"lsp", "--chunk-reuse", "0"})).chunk_reuse_min == 0);
  auto bench = parse({"bench", "replay", "f.py", "--chunk-reuse", "0"});
  REQUIRE(bench);
  CHECK(bench->chunk_reuse == 0);
  CHECK_FALSE(parse({"lsp", "--chunk-reuse", "-1"}));
}

TEST_CASE("options: --mlock on reaches the engine options", "[options]") {
  CHECK_FALSE(engine_options(*parse({"lsp"})).lock_memory);
  auto on = parse({"lsp", "--mlock", "on"});
  REQUIRE(on);
  CHECK(engine_options(*on).lock_memory);
  CHECK_FALSE(parse({"lsp", "--mlock", "yes"}));
}

TEST_CASE("options: --min-confidence auto, a probability, or refused", "[options]") {
  CHECK(parse({"lsp"})->min_confidence == -1);
  CHECK(parse({"lsp", "--min-confidence", "auto"})->min_confidence == -1);
  CHECK(parse({"lsp", "--min-confidence", "0.8"})->min_confidence == 0.8);
  CHECK(parse({"lsp", "--min-confidence", "0"})->min_confidence == 0);
  CHECK_FALSE(parse({"lsp", "--min-confidence", "-1"}));
  CHECK_FALSE(parse({"lsp", "--min-confidence", "1.5"}));
  CHECK_FALSE(parse({"lsp", "--min-confidence", "sure"}));
}
