#include "tests/support/lsp_client.h"

#include <stdexcept>
#include <thread>

namespace wafer::test {

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return ms > 0 ? static_cast<int>(ms) : 0;
}

}  // namespace

Subprocess::Subprocess(const std::vector<std::string>& argv) {
  std::string error;
  if (!child_.start(argv, dir_ / "stderr", error)) throw std::runtime_error(error);
}

Subprocess::~Subprocess() = default;  // the child is killed if it still runs

bool Subprocess::write(std::string_view bytes) { return child_.write(bytes); }

void Subprocess::close_stdin() { child_.close_stdin(); }

void Subprocess::close_stdout() { child_.close_stdout(); }

std::optional<std::string> Subprocess::read_some(int timeout_ms) {
  std::string out;
  if (child_.read(timeout_ms, out) < 0) return std::nullopt;
  return out;
}

int Subprocess::wait(int timeout_ms) { return child_.wait(timeout_ms); }

std::string Subprocess::stderr_text() const {
  try {
    return read_file(dir_ / "stderr");
  } catch (const std::exception&) {
    return {};
  }
}

LspClient::LspClient(const std::vector<std::string>& args) : proc_([&] {
  std::vector<std::string> argv{wafer_binary().string(), "lsp"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}()) {}

void LspClient::send(const json& message) {
  std::string body = message.dump();
  proc_.write("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
}

void LspClient::notify(const std::string& method, json params) {
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

int64_t LspClient::send_request(const std::string& method, json params) {
  int64_t id = next_id_++;
  json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  send(m);
  return id;
}

json LspClient::request(const std::string& method, json params, int timeout_ms) {
  int64_t id = send_request(method, std::move(params));
  std::optional<json> r = wait_for_response(id, timeout_ms);
  if (!r) throw std::runtime_error("no response to " + method);
  return *r;
}

std::optional<json> LspClient::next(int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    // A complete frame in the buffer?
    size_t end = buffer_.find("\r\n\r\n");
    if (end != std::string::npos) {
      size_t cl = buffer_.find("Content-Length: ");
      if (cl == std::string::npos || cl > end) throw std::runtime_error("bad frame from server: " + buffer_.substr(0, end));
      size_t n = std::stoul(buffer_.substr(cl + 16, end - cl - 16));
      if (buffer_.size() >= end + 4 + n) {
        json m = json::parse(buffer_.substr(end + 4, n));
        buffer_.erase(0, end + 4 + n);
        received_.push_back(m);
        return m;
      }
    }
    int left = remaining_ms(deadline);
    if (left == 0) return std::nullopt;
    std::optional<std::string> bytes = proc_.read_some(left);
    if (!bytes) return std::nullopt;
    buffer_ += *bytes;
  }
}

std::optional<json> LspClient::wait_for(const std::function<bool(const json&)>& pred, int timeout_ms) {
  for (auto it = responses_.begin(); it != responses_.end(); ++it) {
    if (!pred(*it)) continue;
    json m = std::move(*it);
    responses_.erase(it);
    return m;
  }
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::optional<json> m = next(remaining_ms(deadline));
    if (!m) return std::nullopt;
    if (pred(*m)) return m;
    if (!m->contains("method") && m->contains("id")) responses_.push_back(std::move(*m));
  }
}

std::optional<json> LspClient::wait_for_response(int64_t id, int timeout_ms) {
  return wait_for([id](const json& m) { return !m.contains("method") && m.value("id", json()) == id; }, timeout_ms);
}

json LspClient::initialize(json capabilities, json initialization_options) {
  json params = {{"processId", nullptr}, {"capabilities", std::move(capabilities)}};
  if (!initialization_options.is_null()) params["initializationOptions"] = std::move(initialization_options);
  json r = request("initialize", params);
  notify("initialized", json::object());
  return r;
}

int LspClient::shutdown_and_exit(int timeout_ms) {
  request("shutdown", nullptr, timeout_ms);
  send({{"jsonrpc", "2.0"}, {"method", "exit"}});
  return proc_.wait(timeout_ms);
}

json inline_completion_params(const std::string& uri, int line, int character, int trigger_kind, json partial_token) {
  json p = {{"textDocument", {{"uri", uri}}},
            {"position", {{"line", line}, {"character", character}}},
            {"context", {{"triggerKind", trigger_kind}}}};
  if (!partial_token.is_null()) p["partialResultToken"] = std::move(partial_token);
  return p;
}

bool json_matches(const json& expected, const json& actual) {
  if (expected.is_object()) {
    if (!actual.is_object()) return false;
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      auto a = actual.find(it.key());
      if (a == actual.end() || !json_matches(it.value(), *a)) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) return false;
    for (size_t i = 0; i < expected.size(); ++i)
      if (!json_matches(expected[i], actual[i])) return false;
    return true;
  }
  return expected == actual;
}

json wait_for_index(LspClient& client, int64_t after) {
  json s;
  for (int i = 0; i < 500; ++i) {
    s = client.request("wafer/stats", nullptr)["result"]["workspace_index"];
    if (s.contains("generation") && s["generation"].get<int64_t>() > after) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return s;
}

}  // namespace wafer::test
