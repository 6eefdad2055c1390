// initializationOptions / didChangeConfiguration overlaid on the command-line options.
#include <catch2/catch.hpp>

#include "server/settings.h"

using namespace wafer;
using json = nlohmann::json;

TEST_CASE("settings: keys overlay the options and win over flags", "[settings]") {
  Options o;
  o.model = "flag.gguf";
  o.debounce_ms = 75;
  REQUIRE(apply_settings(o, json::parse(R"({"model":"init.gguf","debounceMs":10,"maxTokens":32,"enabledLanguages":["python"]})")));
  CHECK(o.model == "init.gguf");
  CHECK(o.debounce_ms == 10);
  CHECK(o.max_tokens == 32);
  CHECK(language_enabled(o, "python"));
  CHECK_FALSE(language_enabled(o, "rust"));
  REQUIRE(apply_settings(o, json::parse(R"({"wafer":{"threads":3,"contextLength":2048,"chunkReuse":32}})")));
  CHECK(o.threads == 3);
  CHECK(engine_options(o).context_length == 2048);
  CHECK(engine_options(o).chunk_reuse_min == 32);
  REQUIRE(apply_settings(o, nullptr));
}

TEST_CASE("settings: a bad value names the key and changes nothing", "[settings]") {
  Options o;
  Status s = apply_settings(o, json::parse(R"({"maxTokens":16,"debounceMs":"fast"})"));
  REQUIRE_FALSE(s);
  CHECK(s.error().message.find("debounceMs") == 0);
  CHECK(o.max_tokens == 64);
  CHECK_FALSE(apply_settings(o, json::parse(R"({"enabledLanguages":[1]})")));
  CHECK_FALSE(apply_settings(o, json::parse(R"({"model":7})")));
  CHECK_FALSE(apply_settings(o, json::parse(R"({"threads":-1})")));
  CHECK_FALSE(apply_settings(o, json::parse("[1]")));
}

TEST_CASE("settings: only engine settings require a reload", "[settings]") {
  Options a, b;
  b.debounce_ms = 1;
  CHECK_FALSE(engine_changed(a, b));
  b.model = "m.gguf";
  CHECK(engine_changed(a, b));
  Options c;
  c.chunk_reuse = 16;
  CHECK(engine_changed(a, c));
}
