#include "server/lsp/jsonrpc.h"

#include <exception>
#include <utility>

#include "server/document/utf8.h"

namespace wafer::jsonrpc {

struct Endpoint::Shared {
  Send send;
  Log log;
  // Requests awaiting their reply, by serialized id (so 1 and "1" differ).
  std::map<std::string, std::weak_ptr<Reply::State>> pending;
};

struct Reply::State {
  std::weak_ptr<Endpoint::Shared> endpoint;
  json id;
  std::string key;
  std::function<void()> cancel_hook;
  bool cancel_requested = false;

  void send(json message) {
    auto ep = endpoint.lock();
    if (!ep) return;
    ep->pending.erase(key);
    ep->send(serialize(message));
  }
};

namespace {

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

std::string describe_type(const json& v) { return v.type_name(); }

}  // namespace

ParseResult parse_message(std::string_view body) {
  ParseResult r;
  r.error_id = nullptr;
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() && !is_valid_utf8(body)) {
    // JSON-RPC text must be UTF-8; rather than drop a whole didOpen/didChange for one bad
    // byte (a Latin-1 file, a split sequence), repair it and say so.
    std::string repaired = sanitize_utf8(body);
    j = json::parse(repaired, nullptr, false);
    r.repaired_utf8 = !j.is_discarded();
  }
  if (j.is_discarded()) {
    r.error = {kParseError, body.empty() ? "parse error: empty message body"
                                         : "parse error: the message body is not valid JSON"};
    return r;
  }
  if (j.is_array()) {
    r.error = {kInvalidRequest, "batch messages are not supported by the Language Server Protocol"};
    return r;
  }
  if (!j.is_object()) {
    r.error = {kInvalidRequest, "invalid request: a message must be a JSON object, got " + describe_type(j)};
    return r;
  }
  auto id = j.find("id");
  bool has_id = id != j.end();
  if (has_id && valid_id(*id)) r.error_id = *id;
  auto version = j.find("jsonrpc");
  if (version == j.end() || *version != "2.0") {
    r.error = {kInvalidRequest, "invalid request: \"jsonrpc\" must be \"2.0\""};
    return r;
  }
  if (has_id && !valid_id(*id) && !id->is_null()) {
    r.error = {kInvalidRequest, "invalid request: \"id\" must be a number or a string, got " + describe_type(*id)};
    return r;
  }
  Message m;
  auto method = j.find("method");
  if (method == j.end()) {
    // A response to one of our requests.
    if (!has_id) {
      r.error = {kInvalidRequest, "invalid request: missing \"method\""};
      return r;
    }
    m.kind = Message::Kind::kResponse;
    m.id = *id;
    if (auto e = j.find("error"); e != j.end() && e->is_object()) {
      Error err;
      if (auto c = e->find("code"); c != e->end() && c->is_number_integer()) err.code = c->get<int>();
      if (auto msg = e->find("message"); msg != e->end() && msg->is_string()) err.message = msg->get<std::string>();
      m.error = err;
    } else if (auto res = j.find("result"); res != j.end()) {
      m.result = *res;
    }
    r.message = std::move(m);
    return r;
  }
  if (!method->is_string()) {
    r.error = {kInvalidRequest, "invalid request: \"method\" must be a string, got " + describe_type(*method)};
    return r;
  }
  if (has_id && id->is_null()) {
    r.error = {kInvalidRequest, "invalid request: \"id\" must not be null"};
    return r;
  }
  if (auto p = j.find("params"); p != j.end()) {
    if (!p->is_object() && !p->is_array() && !p->is_null()) {
      r.error = {kInvalidRequest, "invalid request: \"params\" must be an object or an array, got " + describe_type(*p)};
      return r;
    }
    m.params = *p;
  }
  m.kind = has_id ? Message::Kind::kRequest : Message::Kind::kNotification;
  if (has_id) m.id = *id;
  m.method = method->get<std::string>();
  r.message = std::move(m);
  return r;
}

json make_result(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json make_error(const json& id, const Error& error) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", error.code}, {"message", error.message}}}};
}

json make_notification(std::string_view method, json params) {
  json j{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) j["params"] = std::move(params);
  return j;
}

json make_request(const json& id, std::string_view method, json params) {
  json j = make_notification(method, std::move(params));
  j["id"] = id;
  return j;
}

std::string serialize(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

// --- Reply -----------------------------------------------------------------------------

Reply& Reply::operator=(Reply&& other) noexcept {
  if (this != &other) {
    if (state_) error({kInternalError, "request dropped without a reply"});
    state_ = std::move(other.state_);
  }
  return *this;
}

Reply::~Reply() {
  if (state_ && std::uncaught_exceptions() == 0) error({kInternalError, "internal error: the request was dropped without a reply"});
}

void Reply::result(json value) {
  if (!state_) return;
  auto s = std::move(state_);
  s->send(make_result(s->id, std::move(value)));
}

void Reply::error(Error e) {
  if (!state_) return;
  auto s = std::move(state_);
  s->send(make_error(s->id, e));
}

void Reply::on_cancel(std::function<void()> hook) {
  if (!state_) return;
  if (state_->cancel_requested) {
    hook();
    return;
  }
  state_->cancel_hook = std::move(hook);
}

const json& Reply::id() const {
  static const json null_id;
  return state_ ? state_->id : null_id;
}

// --- Endpoint --------------------------------------------------------------------------

Endpoint::Endpoint(Send send, Log log) : shared_(std::make_shared<Shared>()) {
  shared_->send = std::move(send);
  shared_->log = std::move(log);
}

Endpoint::~Endpoint() = default;

void Endpoint::on_request(std::string method, RequestHandler handler) { requests_[std::move(method)] = std::move(handler); }

void Endpoint::on_notification(std::string method, NotificationHandler handler) {
  notifications_[std::move(method)] = std::move(handler);
}

void Endpoint::framing_error(const std::string& message) {
  shared_->log("framing error: " + message);
  shared_->send(serialize(make_error(nullptr, {kParseError, "parse error: " + message})));
}

void Endpoint::receive(std::string_view body) {
  ParseResult parsed = parse_message(body);
  if (!parsed.message) {
    shared_->log("rejected message: " + parsed.error.message);
    shared_->send(serialize(make_error(parsed.error_id, parsed.error)));
    return;
  }
  if (parsed.repaired_utf8) shared_->log("a message contained invalid UTF-8; the bad bytes were replaced with U+FFFD");
  dispatch(*parsed.message);
}

void Endpoint::dispatch(Message& m) {
  if (m.kind == Message::Kind::kResponse) {
    if (m.id.is_number_integer()) {
      auto it = calls_.find(m.id.get<int64_t>());
      if (it != calls_.end()) {
        auto cb = std::move(it->second);
        calls_.erase(it);
        cb(m.result, m.error ? &*m.error : nullptr);
        return;
      }
    }
    shared_->log("ignored a response to an unknown request id " + serialize(m.id));
    return;
  }
  if (m.kind == Message::Kind::kNotification && m.method == "$/cancelRequest") {
    json id = m.params.is_object() ? m.params.value("id", json()) : json();
    auto it = shared_->pending.find(serialize(id));
    auto state = it == shared_->pending.end() ? nullptr : it->second.lock();
    if (!state) {
      // The spec allows the reply to have been sent already; nothing to do.
      shared_->log("$/cancelRequest for unknown or finished request " + serialize(id));
      return;
    }
    state->cancel_requested = true;
    if (state->cancel_hook) {
      auto hook = std::move(state->cancel_hook);
      hook();
    }
    return;
  }
  if (gate_) {
    if (std::optional<Error> veto = gate_(m)) {
      if (m.kind == Message::Kind::kRequest) {
        shared_->send(serialize(make_error(m.id, *veto)));
      } else {
        shared_->log("dropped notification " + m.method + ": " + veto->message);
      }
      return;
    }
  }
  if (m.kind == Message::Kind::kRequest) {
    auto state = std::make_shared<Reply::State>();
    state->endpoint = shared_;
    state->id = m.id;
    state->key = serialize(m.id);
    shared_->pending[state->key] = state;
    Reply reply(state);
    auto h = requests_.find(m.method);
    if (h == requests_.end()) {
      reply.error({kMethodNotFound, "method not found: " + m.method});
      return;
    }
    // A Reply destroyed while an exception unwinds stays pending (see ~Reply), so the
    // error reply below is the only one.
    auto reply_if_pending = [&](Error e) {
      if (!shared_->pending.count(state->key)) return;
      Reply again(state);
      again.error(std::move(e));
    };
    try {
      h->second(m.params, std::move(reply));
    } catch (const InvalidParams& e) {
      reply_if_pending({kInvalidParams, std::string("invalid params: ") + e.what()});
    } catch (const std::exception& e) {
      // A bug, not bad input; keep serving and say so.
      shared_->log("internal error in " + m.method + ": " + e.what());
      reply_if_pending({kInternalError, std::string("internal error: ") + e.what()});
    }
    return;
  }
  auto h = notifications_.find(m.method);
  if (h == notifications_.end()) {
    if (!m.method.starts_with("$/")) shared_->log("ignored unknown notification " + m.method);
    return;
  }
  try {
    h->second(m.params);
  } catch (const InvalidParams& e) {
    shared_->log("invalid params in " + m.method + ": " + e.what());
  } catch (const std::exception& e) {
    shared_->log("internal error in " + m.method + ": " + e.what());
  }
}

void Endpoint::notify(std::string_view method, json params) {
  shared_->send(serialize(make_notification(method, std::move(params))));
}

void Endpoint::call(std::string_view method, json params, std::function<void(const json&, const Error*)> on_reply) {
  int64_t id = next_call_id_++;
  calls_[id] = std::move(on_reply);
  shared_->send(serialize(make_request(id, method, std::move(params))));
}

size_t Endpoint::pending_requests() const {
  size_t n = 0;
  for (const auto& [key, weak] : shared_->pending) n += !weak.expired();
  return n;
}

}  // namespace wafer::jsonrpc
