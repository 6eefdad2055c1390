#include "engine/decode/session_pool.h"

#include <algorithm>

namespace wafer {

SessionPool::SessionPool(const Model& model, ThreadPool& pool, int n_ctx, int max_sessions, KvType kv_type)
    : model_(&model), pool_(&pool), n_ctx_(n_ctx), max_sessions_(std::max(1, max_sessions)), kv_type_(kv_type) {}

bool SessionPool::contains(const std::string& key) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
}

Result<Session*> SessionPool::acquire(const std::string& key) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
  if (it != entries_.end()) {
    entries_.splice(entries_.begin(), entries_, it);
    return entries_.front().session.get();
  }
  if (static_cast<int>(entries_.size()) >= max_sessions_) {
    entries_.splice(entries_.begin(), entries_, std::prev(entries_.end()));
    Entry& e = entries_.front();
    e.key = key;
    e.session->truncate(0);
    return e.session.get();
  }
  auto s = Session::create(*model_, *pool_, n_ctx_, kv_type_);
  if (!s) return s.error();
  entries_.push_front(Entry{key, std::make_unique<Session>(std::move(*s))});
  return entries_.front().session.get();
}

}  // namespace wafer
