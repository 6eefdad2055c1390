#include "engine/decode/session.h"

#include <algorithm>
#include <chrono>

namespace wafer {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Session::Session(const Model& model, ThreadPool& pool, KvCache kv)
    : model_(&model), kv_(std::move(kv)), forward_(model, pool) {}

Result<Session> Session::create(const Model& model, ThreadPool& pool, int n_ctx, KvType kv_type) {
  auto kv = KvCache::create(model.config(), n_ctx, kv_type);
  if (!kv) return kv.error();
  return Session(model, pool, std::move(*kv));
}

void Session::truncate(int n) {
  kv_.truncate(n);
  tokens_.resize(static_cast<size_t>(kv_.size()));
  if (logits_at_ > static_cast<int64_t>(tokens_.size())) logits_at_ = -1;
}

Status Session::eval(std::span<const int32_t> tokens, LogitsFor which, const std::atomic<bool>* interrupt) {
  const size_t before = tokens_.size();
  Status s = forward_.run(tokens, kv_, which, logits_, interrupt);
  // On failure some chunks may be in the cache already (an interrupt): track those.
  const int64_t got = std::clamp<int64_t>(int64_t{kv_.size()} - static_cast<int64_t>(before), 0,
                                          static_cast<int64_t>(tokens.size()));
  tokens_.insert(tokens_.end(), tokens.begin(), tokens.begin() + got);
  logits_at_ = s && which == LogitsFor::kLast && !tokens.empty() ? static_cast<int64_t>(tokens_.size()) : -1;
  return s;
}

void Session::stash(std::span<const ReusedChunk> chunks) {
  stashed_.assign(chunks.begin(), chunks.end());
  stashed_tokens_.clear();
  stash_offset_.clear();
  size_t floats = 0;
  for (const ReusedChunk& c : chunks) {
    stash_offset_.push_back(floats);
    floats += kv_.range_floats(c.n);
    stashed_tokens_.emplace_back(tokens_.begin() + c.cache_pos, tokens_.begin() + c.cache_pos + c.n);
  }
  if (stash_.size() < floats) stash_.resize(floats);
  for (size_t i = 0; i < chunks.size(); ++i) kv_.read_range(chunks[i].cache_pos, chunks[i].n, stash_.data() + stash_offset_[i]);
}

Status Session::place_stashed(size_t i) {
  if (i >= stashed_.size()) return make_error("chunk reuse: no stashed chunk " + std::to_string(i));
  const ReusedChunk& c = stashed_[i];
  if (kv_.size() != c.prompt_pos) return make_error("chunk reuse: the cache is not at the chunk's position");
  if (Status s = kv_.check_room(c.n); !s) return s;
  kv_.write_range(c.prompt_pos, c.n, stash_.data() + stash_offset_[i]);
  forward_.shift_keys(kv_, c.prompt_pos, c.n, c.prompt_pos - c.cache_pos);
  kv_.append(c.n);
  tokens_.insert(tokens_.end(), stashed_tokens_[i].begin(), stashed_tokens_[i].end());
  return {};
}

Session::Reuse Session::plan_reuse(std::span<const int32_t> prompt, int chunk_reuse_min) const {
  Reuse r;
  while (r.common < tokens_.size() && r.common < prompt.size() && tokens_[r.common] == prompt[r.common]) ++r.common;
  if (r.common == prompt.size() && tokens_.size() == prompt.size() && logits_follow_cache()) {
    r.up_to_date = true;
    return r;
  }
  r.common = std::min(r.common, prompt.size() - 1);
  r.chunks = plan_chunk_reuse(tokens_, prompt, static_cast<int>(r.common), chunk_reuse_min);
  return r;
}

Session::Reuse Session::begin_reuse(std::span<const int32_t> prompt, int chunk_reuse_min) {
  Reuse r = plan_reuse(prompt, chunk_reuse_min);
  if (r.up_to_date) return r;
  if (!r.chunks.empty()) stash(r.chunks);
  truncate(static_cast<int>(r.common));
  return r;
}

Result<GenerateResult> Session::generate(std::span<const int32_t> prompt, const GenerateParams& params,
                                         const TokenCallback& on_token) {
  GenerateResult r;
  r.prompt_tokens = static_cast<int>(prompt.size());
  if (prompt.empty()) return make_error("generate: empty prompt");
  if (prompt.size() > static_cast<size_t>(kv_.capacity()))
    return make_error("generate: the prompt of " + std::to_string(prompt.size()) +
                      " tokens does not fit the context of " + std::to_string(kv_.capacity()) + " tokens");
  const auto t0 = std::chrono::steady_clock::now();

  // Reuse the common prefix; at least one prompt token is evaluated to get fresh logits.
  size_t common = 0;
  while (common < tokens_.size() && common < prompt.size() && tokens_[common] == prompt[common]) ++common;
  common = std::min(common, prompt.size() - 1);
  truncate(static_cast<int>(common));
  r.reused_tokens = static_cast<int>(common);
  if (Status s = eval(prompt.subspan(common)); !s) return s.error();
  r.prompt_ms = ms_since(t0);

  const auto t1 = std::chrono::steady_clock::now();
  Sampler sampler(params.sampling);
  for (int32_t t : prompt) sampler.accept(t);
  const size_t vocab = model_->config().n_vocab;
  r.stop = StopReason::kMaxTokens;
  while (static_cast<int>(r.tokens.size()) < params.max_tokens) {
    const int32_t token = sampler.sample(std::span<const float>(logits_.data(), vocab));
    if (std::find(params.stop_tokens.begin(), params.stop_tokens.end(), token) != params.stop_tokens.end()) {
      r.stop = StopReason::kEndOfText;
      break;
    }
    sampler.accept(token);
    r.tokens.push_back(token);
    if (params.token_text) r.text += params.token_text(token);
    const bool go_on = !on_token || on_token(token);
    bool stop_string = false;
    for (const std::string& s : params.stop_strings) {
      const size_t at = s.empty() ? std::string::npos : r.text.find(s);
      if (at != std::string::npos) {
        r.text.resize(at);
        stop_string = true;
      }
    }
    if (stop_string) {
      r.stop = StopReason::kStopString;
      break;
    }
    if (!go_on) {
      r.stop = StopReason::kStopCallback;
      break;
    }
    if (static_cast<int>(r.tokens.size()) >= params.max_tokens) break;
    if (kv_.size() >= kv_.capacity()) {
      r.stop = StopReason::kBudget;  // context full
      break;
    }
    if (Status s = eval(std::span<const int32_t>(&token, 1)); !s) return s.error();
  }
  r.decode_ms = ms_since(t1);
  return r;
}

}  // namespace wafer
