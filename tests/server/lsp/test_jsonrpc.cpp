// JSON-RPC parsing, error codes, exactly-one-reply and $/cancelRequest.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "server/lsp/jsonrpc.h"

using namespace wafer::jsonrpc;

namespace {

struct Harness {
  std::vector<json> sent;
  std::vector<std::string> logs;
  Endpoint ep{[this](std::string body) { sent.push_back(json::parse(body)); },
              [this](const std::string& m) { logs.push_back(m); }};
  json last() const { return sent.empty() ? json() : sent.back(); }
};

int error_code(const json& reply) { return reply.at("error").at("code").get<int>(); }

}  // namespace

TEST_CASE("jsonrpc: parse requests / notifications and responses", "[jsonrpc]") {
  auto r = parse_message(R"({"jsonrpc":"2.0","id":7,"method":"m","params":{"a":1}})");
  REQUIRE(r.message);
  CHECK(r.message->kind == Message::Kind::kRequest);
  CHECK(r.message->id == 7);
  CHECK(r.message->params["a"] == 1);
  auto n = parse_message(R"({"jsonrpc":"2.0","method":"n"})");
  REQUIRE(n.message);
  CHECK(n.message->kind == Message::Kind::kNotification);
  CHECK(n.message->params.is_null());
  auto s = parse_message(R"({"jsonrpc":"2.0","id":"x","result":null})");
  REQUIRE(s.message);
  CHECK(s.message->kind == Message::Kind::kResponse);
}

TEST_CASE("jsonrpc: malformed messages get the spec's error codes", "[jsonrpc]") {
  CHECK(parse_message("{not json").error.code == kParseError);
  CHECK(parse_message("").error.code == kParseError);
  auto batch = parse_message(R"([{"jsonrpc":"2.0","id":1,"method":"m"}])");
  CHECK(batch.error.code == kInvalidRequest);
  CHECK(batch.error.message.find("batch") != std::string::npos);
  CHECK(parse_message("42").error.code == kInvalidRequest);
  auto no_version = parse_message(R"({"id":3,"method":"m"})");
  CHECK(no_version.error.code == kInvalidRequest);
  CHECK(no_version.error_id == 3);
  CHECK(parse_message(R"({"jsonrpc":"2.0","id":1,"method":5})").error.code == kInvalidRequest);
  CHECK(parse_message(R"({"jsonrpc":"2.0","id":[1],"method":"m"})").error.code == kInvalidRequest);
  CHECK(parse_message(R"({"jsonrpc":"2.0","id":1,"method":"m","params":"x"})").error.code == kInvalidRequest);
}

TEST_CASE("jsonrpc: invalid UTF-8 in a body is repaired / not rejected", "[jsonrpc]") {
  auto r = parse_message("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"t\":\"a\xFF\"}}");
  REQUIRE(r.message);
  CHECK(r.repaired_utf8);
  CHECK(r.message->params["t"] == "a\xEF\xBF\xBD");
}

TEST_CASE("jsonrpc: serialize never throws on invalid UTF-8", "[jsonrpc]") {
  json j = {{"t", std::string("a\xFF")}};
  CHECK(serialize(j) == "{\"t\":\"a\xEF\xBF\xBD\"}");
}

TEST_CASE("jsonrpc: endpoint replies once / method-not-found / invalid params", "[jsonrpc]") {
  Harness h;
  h.ep.on_request("echo", [](const json& p, Reply r) { r.result(p); r.result("twice"); });
  h.ep.on_request("typed", [](const json& p, Reply r) {
    if (!p.is_object() || !p.contains("n") || !p["n"].is_number()) throw InvalidParams("n: expected a number");
    r.result(p["n"]);
  });
  h.ep.on_request("drop", [](const json&, Reply) {});
  h.ep.receive(R"({"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":1}})");
  REQUIRE(h.sent.size() == 1);
  CHECK(h.last()["result"]["x"] == 1);
  h.ep.receive(R"({"jsonrpc":"2.0","id":2,"method":"nope"})");
  CHECK(error_code(h.last()) == kMethodNotFound);
  CHECK(h.last()["id"] == 2);
  h.ep.receive(R"({"jsonrpc":"2.0","id":3,"method":"typed","params":{"n":"str"}})");
  CHECK(error_code(h.last()) == kInvalidParams);
  CHECK(h.last()["error"]["message"] == "invalid params: n: expected a number");
  size_t before = h.sent.size();
  h.ep.receive(R"({"jsonrpc":"2.0","id":4,"method":"drop"})");
  REQUIRE(h.sent.size() == before + 1);  // a dropped reply still answers
  CHECK(error_code(h.last()) == kInternalError);
  h.ep.receive(R"({"jsonrpc":"2.0","method":"unknown/notification"})");
  CHECK(h.sent.size() == before + 1);  // notifications are never answered
  h.ep.receive("{oops");
  CHECK(error_code(h.last()) == kParseError);
  CHECK(h.last()["id"].is_null());
  CHECK(h.ep.pending_requests() == 0);
}

TEST_CASE("jsonrpc: $/cancelRequest runs the hook once, unknown ids are ignored", "[jsonrpc]") {
  Harness h;
  Reply kept;
  int cancels = 0;
  h.ep.on_request("slow", [&](const json&, Reply r) {
    r.on_cancel([&] { ++cancels; });
    kept = std::move(r);
  });
  h.ep.receive(R"({"jsonrpc":"2.0","id":"a","method":"slow"})");
  CHECK(h.sent.empty());
  CHECK(h.ep.pending_requests() == 1);
  h.ep.receive(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}})");
  CHECK(cancels == 1);
  kept.error({kRequestCancelled, "request cancelled"});
  REQUIRE(h.sent.size() == 1);
  CHECK(error_code(h.last()) == kRequestCancelled);
  CHECK(h.last()["id"] == "a");
  h.ep.receive(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}})");
  h.ep.receive(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}})");
  CHECK(cancels == 1);
  CHECK(h.sent.size() == 1);
}

TEST_CASE("jsonrpc: the gate vetoes requests with its error and drops notifications", "[jsonrpc]") {
  Harness h;
  int notified = 0;
  h.ep.on_notification("n", [&](const json&) { ++notified; });
  h.ep.on_request("r", [](const json&, Reply r) { r.result(1); });
  h.ep.set_gate([](const Message&) { return std::optional<Error>(Error{kServerNotInitialized, "not yet"}); });
  h.ep.receive(R"({"jsonrpc":"2.0","id":1,"method":"r"})");
  CHECK(error_code(h.last()) == kServerNotInitialized);
  h.ep.receive(R"({"jsonrpc":"2.0","method":"n"})");
  CHECK(notified == 0);
  CHECK(h.sent.size() == 1);
}

TEST_CASE("jsonrpc: responses to our own calls reach their callback", "[jsonrpc]") {
  Harness h;
  json got;
  h.ep.call("window/workDoneProgress/create", {{"token", "t"}}, [&](const json& result, const Error* e) {
    got = e ? json("error") : result;
  });
  REQUIRE(h.sent.size() == 1);
  json id = h.last()["id"];
  h.ep.receive(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", "ok"}}.dump());
  CHECK(got == "ok");
  h.ep.receive(R"({"jsonrpc":"2.0","id":12345,"result":null})");  // unknown: ignored
  CHECK(h.sent.size() == 1);
}
