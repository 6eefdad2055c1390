// A small pool of sessions (KV caches) keyed by the caller's session key, usually one per
// open document, so that switching files does not throw away the other file's cache.
// When the pool is full the least recently used session is taken over: its cache memory is
// reused for the new key (allocating a cache is a large zero-filled allocation).
#pragma once

#include <list>
#include <memory>
#include <string>

#include "engine/model/model.h"
#include "engine/base/result.h"
#include "engine/decode/session.h"
#include "engine/runtime/threadpool.h"

namespace wafer {

class SessionPool {
 public:
  // Up to max_sessions sessions (at least one) of n_ctx tokens each, their caches of kv_type.
  SessionPool(const Model& model, ThreadPool& pool, int n_ctx, int max_sessions, KvType kv_type = KvType::F32);

  // The session for `key`, now the most recently used. A new key gets a fresh session or
  // the least recently used one, emptied. Errors only when a cache cannot be allocated.
  Result<Session*> acquire(const std::string& key);

  int size() const { return static_cast<int>(entries_.size()); }
  int max_sessions() const { return max_sessions_; }
  bool contains(const std::string& key) const;

 private:
  struct Entry {
    std::string key;
    std::unique_ptr<Session> session;
  };
  const Model* model_;
  ThreadPool* pool_;
  int n_ctx_;
  int max_sessions_;
  KvType kv_type_;
  std::list<Entry> entries_;  // most recently used first
};

}  // namespace wafer
