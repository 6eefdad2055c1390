// JSON-RPC 2.0 as LSP uses it: parsing one message body, building replies, and an
// Endpoint that dispatches requests and notifications to handlers with the guarantee of
// exactly one reply per request (a Reply that is dropped unanswered sends an internal
// error), answers $/cancelRequest, and matches responses to the server's own requests.
// It knows nothing of LSP methods beyond $/cancelRequest.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wafer::jsonrpc {

using json = nlohmann::json;

enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
  kRequestCancelled = -32800,
  kContentModified = -32801,
  kRequestFailed = -32803,
};

struct Error {
  int code = kInternalError;
  std::string message;
};

// Thrown by parameter readers (protocol.h) and caught by the Endpoint, which turns it into
// a -32602 reply naming the field. Exceptions stop at the Endpoint.
struct InvalidParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Message {
  enum class Kind { kRequest, kNotification, kResponse } kind = Kind::kNotification;
  json id;  // number or string (kRequest, kResponse)
  std::string method;
  json params;  // null when absent
  json result;
  std::optional<Error> error;  // kResponse with an error
};

// Parses one message body. On failure returns the error to reply with, and the id to use
// (null when it cannot be read). A body that is not valid UTF-8 is repaired (bad bytes
// become U+FFFD) rather than rejected. Batches (JSON arrays) are rejected: LSP does not use them.
struct ParseResult {
  std::optional<Message> message;
  Error error;
  json error_id;  // id for the error reply
  bool repaired_utf8 = false;  // invalid UTF-8 was replaced with U+FFFD before parsing
};
ParseResult parse_message(std::string_view body);

json make_result(const json& id, json result);
json make_error(const json& id, const Error& error);
json make_notification(std::string_view method, json params);
json make_request(const json& id, std::string_view method, json params);

// Compact JSON text; invalid UTF-8 in strings is replaced (never throws).
std::string serialize(const json& message);

class Endpoint;

// The one reply to a request. Move-only; calling it twice is ignored, destroying it
// unanswered replies -32603. Safe to keep after the Endpoint is gone (it then does nothing).
class Reply {
 public:
  Reply() = default;
  Reply(Reply&&) noexcept = default;
  Reply& operator=(Reply&&) noexcept;
  ~Reply();

  void result(json value);
  void error(Error error);
  bool answered() const { return !state_; }
  // Called once if the client sends $/cancelRequest for this request before the reply.
  void on_cancel(std::function<void()> hook);
  const json& id() const;

 private:
  friend class Endpoint;
  struct State;
  explicit Reply(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

class Endpoint {
 public:
  using Send = std::function<void(std::string body)>;
  using RequestHandler = std::function<void(const json& params, Reply reply)>;
  using NotificationHandler = std::function<void(const json& params)>;
  // May veto a message before dispatch (server not initialized, shut down): return an
  // error for requests, or any error to drop a notification.
  using Gate = std::function<std::optional<Error>(const Message&)>;
  using Log = std::function<void(const std::string&)>;

  Endpoint(Send send, Log log);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  void on_request(std::string method, RequestHandler handler);
  void on_notification(std::string method, NotificationHandler handler);
  void set_gate(Gate gate) { gate_ = std::move(gate); }

  // One framed body from the transport, or a framing error to answer with -32700.
  void receive(std::string_view body);
  void framing_error(const std::string& message);

  void notify(std::string_view method, json params);
  void call(std::string_view method, json params, std::function<void(const json& result, const Error* error)> on_reply);

  size_t pending_requests() const;

 private:
  friend class Reply;
  struct Shared;
  void dispatch(Message& m);
  std::shared_ptr<Shared> shared_;
  std::map<std::string, RequestHandler, std::less<>> requests_;
  std::map<std::string, NotificationHandler, std::less<>> notifications_;
  Gate gate_;
  int64_t next_call_id_ = 1;
  std::map<int64_t, std::function<void(const json&, const Error*)>> calls_;
};

}  // namespace wafer::jsonrpc
