// initializationOptions / didChangeConfiguration overlaid on the command-line options.
#include <catch2/catch.hpp>

#include "server/lsp/settings.h"
#include "server/service/service_options.h"

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
  REQUIRE(apply_settings(o, json::parse(R"({"fimFormat":"starcoder-spm"})")));
  CHECK(engine_options(o).fim_format == "starcoder-spm");
  REQUIRE(apply_settings(o, nullptr));
  REQUIRE(apply_settings(o, json::array()));  // [] as "no settings"
  CHECK(o.threads == 3);
  CHECK_FALSE(apply_settings(o, json::array({1})));
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
  Status f = apply_settings(o, json::parse(R"({"fimFormat":"qwen3"})"));
  REQUIRE_FALSE(f);
  CHECK(f.error().message.find("fimFormat: unknown FIM template 'qwen3'") == 0);
  CHECK_FALSE(apply_settings(o, json::parse(R"({"fimFormat":1})")));
  CHECK(o.fim_format == "auto");
}

TEST_CASE("settings: alternatives and their sampling", "[settings]") {
  Options o;
  REQUIRE(apply_settings(o, json::parse(R"({"alternatives":5,"alternativesTemperature":1.2,"alternativesTopP":0.9})")));
  CHECK(o.alternatives == 5);
  CHECK(o.alternatives_temperature == Approx(1.2));
  CHECK(o.alternatives_top_p == Approx(0.9));
  CHECK_FALSE(engine_changed(Options{}, o));  // no reload: the next request uses them
  Status s = apply_settings(o, json::parse(R"({"alternativesTopP":0})"));
  REQUIRE_FALSE(s);
  CHECK(s.error().message.find("alternativesTopP") == 0);
  CHECK_FALSE(apply_settings(o, json::parse(R"({"alternatives":0})")));
  CHECK_FALSE(apply_settings(o, json::parse(R"({"alternativesTemperature":"hot"})")));
  CHECK(o.alternatives == 5);
  REQUIRE(apply_settings(o, json::parse(R"({"aheadTokens":0})")));
  CHECK(o.ahead_tokens == 0);
  CHECK_FALSE(apply_settings(o, json::parse(R"({"aheadTokens":-4})")));
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
  Options d;
  d.fim_format = "qwen-spm";
  CHECK(engine_changed(a, d));
  Options e;
  e.token_healing = false;
  CHECK(engine_changed(a, e));
}

TEST_CASE("settings: tokenHealing turns token healing off and on", "[settings]") {
  Options o;
  CHECK(engine_options(o).token_healing);  // on by default
  REQUIRE(apply_settings(o, json::parse(R"({"tokenHealing":false})")));
  CHECK_FALSE(engine_options(o).token_healing);
  REQUIRE(apply_settings(o, json::parse(R"({"wafer":{"tokenHealing":true}})")));
  CHECK(engine_options(o).token_healing);
  Status bad = apply_settings(o, json::parse(R"({"tokenHealing":"off"})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("tokenHealing: expected a boolean") == 0);
  CHECK(o.token_healing);
}

TEST_CASE("settings: kvType chooses the KV cache's elements and reloads the engine", "[settings]") {
  Options o;
  CHECK(engine_options(o).kv_type == "f16");  // the default
  Options before = o;
  REQUIRE(apply_settings(o, json::parse(R"({"kvType":"f32"})")));
  CHECK(engine_options(o).kv_type == "f32");
  CHECK(engine_changed(before, o));
  Status bad = apply_settings(o, json::parse(R"({"kvType":"q4"})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "kvType: unknown KV cache type 'q4' (f32, f16 or q8_0)");
  CHECK_FALSE(apply_settings(o, json::parse(R"({"kvType":16})")));
  CHECK(o.kv_type == "f32");  // a refused setting keeps the old value
}

TEST_CASE("settings: remote backend keys, a change of backend re-creates it", "[settings]") {
  Options o;
  Options before = o;
  REQUIRE(apply_settings(o, json::parse(R"({"backend":"openai","backendUrl":"https://gpu:8000/v1","backendModel":"coder",
      "apiKeyEnv":"MY_KEY","apiKeyFile":"/k","backendTimeoutMs":2500,"fimTemplate":"<PRE> {prefix} <SUF>{suffix} <MID>"})")));
  CHECK(o.backend == "openai");
  CHECK(o.backend_url == "https://gpu:8000/v1");
  CHECK(o.backend_model == "coder");
  CHECK(o.api_key_env == "MY_KEY");
  CHECK(o.api_key_file == "/k");
  CHECK(o.backend_timeout_ms == 2500);
  CHECK(o.prompt_template == "<PRE> {prefix} <SUF>{suffix} <MID>");
  CHECK(engine_changed(before, o));
  Options url_only = before;
  url_only.backend_url = "http://other";
  CHECK(engine_changed(before, url_only));
  Status bad = apply_settings(o, json::parse(R"({"backend":"tgi"})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("backend: expected") == 0);
  CHECK(o.backend == "openai");  // unchanged
  CHECK_FALSE(apply_settings(o, json::parse(R"({"backendUrl":8080})")));
  CHECK_FALSE(apply_settings(o, json::parse(R"({"backendTimeoutMs":5})")));
}

TEST_CASE("settings: mlock locks the weights and reloads the engine", "[settings]") {
  Options o;
  Options next = o;
  REQUIRE(apply_settings(next, json::parse(R"({"mlock":true})")));
  CHECK(engine_options(next).lock_memory);
  CHECK(engine_changed(o, next));
  Status bad = apply_settings(next, json::parse(R"({"mlock":"on"})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("mlock: expected a boolean") == 0);
}

TEST_CASE("settings: amx false keeps the engine off the AMX tiles and reloads it", "[settings]") {
  Options o;
  Options next = o;
  REQUIRE(apply_settings(next, json::parse(R"({"amx":false})")));
  CHECK_FALSE(engine_options(next).amx);
  CHECK(engine_changed(o, next));
  Status bad = apply_settings(next, json::parse(R"({"amx":"off"})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("amx: expected a boolean") == 0);
}

TEST_CASE("settings: earlyPrefill turns the prefill during the debounce off without a reload", "[settings]") {
  Options o;
  Options next = o;
  REQUIRE(apply_settings(next, json::parse(R"({"earlyPrefill":false})")));
  CHECK_FALSE(next.early_prefill);
  CHECK_FALSE(engine_changed(o, next));
  CHECK_FALSE(apply_settings(next, json::parse(R"({"earlyPrefill":0})")));
}

TEST_CASE("settings: warm turns the warm-up off and on", "[settings]") {
  Options o;
  CHECK(o.warm);
  REQUIRE(apply_settings(o, json::parse(R"({"warm":false})")));
  CHECK_FALSE(o.warm);
  REQUIRE(apply_settings(o, json::parse(R"({"wafer":{"warm":true}})")));
  CHECK(o.warm);
  Status bad = apply_settings(o, json::parse(R"({"warm":1})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("warm: expected a boolean") == 0);
  CHECK(o.warm);
}

TEST_CASE("settings: exclude and completeExcludedFiles reach the service's options without a reload", "[settings]") {
  Options o;
  CHECK(o.exclude.empty());
  CHECK(o.complete_excluded_files);
  Options next = o;
  REQUIRE(apply_settings(next, json::parse(R"({"exclude":["*.secret.py","drafts/"],"completeExcludedFiles":false})")));
  CHECK(next.exclude == std::vector<std::string>{"*.secret.py", "drafts/"});
  CHECK_FALSE(engine_changed(o, next));
  const ServiceOptions s = service_options(next);
  CHECK(s.exclusion.patterns == next.exclude);
  CHECK_FALSE(s.exclusion.complete_excluded);
  CHECK_FALSE(apply_settings(next, json::parse(R"({"exclude":"*.py"})")));  // a list, not a string
}
