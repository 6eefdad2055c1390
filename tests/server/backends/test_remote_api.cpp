// The remote servers' wire formats: endpoint URLs, request bodies, response chunks, the
// incremental server-sent-events reader and error bodies.
#include "server/backends/remote_api.h"

#include <catch2/catch.hpp>

using namespace wafer;
using json = nlohmann::json;

TEST_CASE("remote api: endpoint URLs") {
  CHECK(endpoint_url("http://h:1", RemoteApi::kLlamaCpp) == "http://h:1/infill");
  CHECK(endpoint_url("https://h/base/", RemoteApi::kLlamaCpp) == "https://h/base/infill");
  CHECK(endpoint_url("http://h:1/v1/", RemoteApi::kOpenAi) == "http://h:1/v1/completions");
  CHECK(endpoint_url("http://h:1/api/v1/completions", RemoteApi::kOpenAi) == "http://h:1/api/v1/completions");
}

TEST_CASE("remote api: llama.cpp /infill body") {
  RemoteRequest r;
  r.prefix = "def f(";
  r.suffix = "\n";
  r.extra = {{"lib/util.py", "def helper(x):\n    return x\n"}, {"", "lonely chunk"}};
  r.max_tokens = 32;
  r.n_indent = 4;
  r.max_predict_ms = 250;
  json b = llama_infill_body(r);
  CHECK(b["input_prefix"] == "def f(");
  CHECK(b["input_suffix"] == "\n");
  REQUIRE(b["input_extra"].size() == 2);
  CHECK(b["input_extra"][0] == json({{"filename", "lib/util.py"}, {"text", "def helper(x):\n    return x\n"}}));
  CHECK(b["input_extra"][1] == json({{"filename", ""}, {"text", "lonely chunk"}}));
  CHECK(b["n_predict"] == 32);
  CHECK(b["cache_prompt"] == true);
  CHECK(b["stream"] == true);
  CHECK(b["n_indent"] == 4);
  CHECK(b["t_max_predict_ms"] == 250);
  CHECK(!b.contains("stop"));
  r.n_indent = -1;
  r.max_predict_ms = 0;
  r.stop = {"\n\n"};
  json c = llama_infill_body(r);
  CHECK(!c.contains("n_indent"));
  CHECK(!c.contains("t_max_predict_ms"));
  CHECK(c["stop"] == json::array({"\n\n"}));
}

TEST_CASE("remote api: OpenAI /v1/completions body") {
  RemoteRequest r;
  r.prompt = "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>";
  r.max_tokens = 16;
  r.stop = {"\n\n", "<|endoftext|>"};
  json b = openai_completion_body(r);
  CHECK(b["prompt"] == r.prompt);
  CHECK(b["max_tokens"] == 16);
  CHECK(b["temperature"] == 0);
  CHECK(b["stream"] == true);
  CHECK(b["stop"].size() == 2);
  CHECK(!b.contains("model"));
  r.model = "qwen2.5-coder-7b";
  CHECK(openai_completion_body(r)["model"] == "qwen2.5-coder-7b");
}

TEST_CASE("remote api: response chunks") {
  RemoteChunk k = parse_remote_chunk(json::parse(R"({"content":"x","stop":true,"timings":{"prompt_n":5,"predicted_n":2,"cache_n":7}})"),
                                     RemoteApi::kLlamaCpp);
  CHECK(k.text == "x");
  CHECK(k.last);
  CHECK(k.tokens_prefilled == 5);
  CHECK(k.tokens_generated == 2);
  CHECK(k.tokens_reused == 7);
  CHECK(!parse_remote_chunk(json::parse(R"({"content":"y","stop":false})"), RemoteApi::kLlamaCpp).last);
  RemoteChunk o = parse_remote_chunk(json::parse(R"({"choices":[{"text":"z","finish_reason":null}]})"), RemoteApi::kOpenAi);
  CHECK(o.text == "z");
  CHECK(!o.last);
  RemoteChunk f = parse_remote_chunk(
      json::parse(R"({"choices":[{"text":"","finish_reason":"length"}],"usage":{"prompt_tokens":10,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":6}}})"),
      RemoteApi::kOpenAi);
  CHECK(f.last);
  CHECK(f.tokens_reused == 6);
  CHECK(f.tokens_prefilled == 4);
  CHECK(f.tokens_generated == 4);
  CHECK(parse_remote_chunk(json("text"), RemoteApi::kLlamaCpp).text.empty());
}

TEST_CASE("remote api: server-sent events split anywhere") {
  const std::string stream =
      ": keep-alive comment\r\n\r\n"
      "data: {\"content\":\"a\"}\r\n\r\n"
      "event: message\ndata: {\"content\":\"b\"}\n\n"
      "data: first\ndata: second\n\n"
      "data: [DONE]\n\n";
  const std::vector<std::string> want = {R"({"content":"a"})", R"({"content":"b"})", "first\nsecond", "[DONE]"};
  for (size_t step : {size_t(1), size_t(3), size_t(7), stream.size()}) {
    SseReader r;
    std::vector<std::string> got;
    for (size_t i = 0; i < stream.size(); i += step)
      for (SseEvent& e : r.feed(std::string_view(stream).substr(i, step))) {
        CHECK(!e.error);
        got.push_back(std::move(e.data));
      }
    INFO("step " << step);
    CHECK(got == want);
    CHECK(r.pending() == 0);
  }
  SseReader err;
  auto e = err.feed("error: {\"code\":500,\"message\":\"slot failed\"}\n\n");
  REQUIRE(e.size() == 1);
  CHECK(e[0].error);
  CHECK(remote_error_message(e[0].data) == "slot failed");
  SseReader cut;
  CHECK(cut.feed("data: {\"content\":").empty());
  CHECK(cut.pending() > 0);  // a stream that ends here was cut short
}

TEST_CASE("remote api: error bodies") {
  CHECK(remote_error_message(R"({"error":{"code":400,"message":"bad prompt","type":"invalid_request_error"}})") == "bad prompt");
  CHECK(remote_error_message(R"({"error":"model not found"})") == "model not found");
  CHECK(remote_error_message(R"({"detail":"Not Found"})") == "Not Found");
  CHECK(remote_error_message("Bad Gateway\n") == "Bad Gateway");
  CHECK(remote_error_message(std::string(500, 'x')).size() == 203);
  CHECK(remote_fim_unsupported(501, ""));
  CHECK(remote_fim_unsupported(400, R"({"error":{"message":"Infill is not supported by this model","type":"not_supported_error"}})"));
  CHECK(!remote_fim_unsupported(500, R"({"error":{"message":"boom","type":"server_error"}})"));
}

TEST_CASE("remote api: URLs in messages hide credentials") {
  CHECK(redact_url("https://user:pa55@gpu:8080/v1/completions") == "https://***@gpu:8080/v1/completions");
  CHECK(redact_url("http://gpu:8080/infill") == "http://gpu:8080/infill");
  CHECK(redact_url("http://gpu/infill?who=a@b") == "http://gpu/infill?who=a@b");
}
