#include "engine/decode/speculation/draft_model.h"

#include <algorithm>
#include <chrono>

#include "engine/decode/chunk_reuse.h"
#include "engine/decode/sampler.h"

namespace wafer {

Result<DraftModel> DraftModel::create(const Model& model, ThreadPool& pool, int n_ctx, KvType kv_type, int max_draft,
                                      int chunk_reuse_min, int64_t vocab_head) {
  auto session = Session::create(model, pool, n_ctx, kv_type);
  if (!session) return session.error();
  const auto vocab = static_cast<int64_t>(model.config().n_vocab);
  return DraftModel(std::move(*session), max_draft, chunk_reuse_min, vocab_head >= vocab ? 0 : vocab_head);
}

void DraftModel::note_extra_ids(std::span<const int32_t> history) {
  std::vector<int32_t>& extra = subset_.extra;
  extra.clear();
  for (int32_t t : history)
    if (t >= subset_.head) extra.push_back(t);
  std::sort(extra.begin(), extra.end());
  extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
}

Status DraftModel::catch_up(std::span<const int32_t> history, const std::atomic<bool>* interrupt) {
  // Roll back to the longest common prefix with the history, then run the rest of it (at
  // least the last token, for the logits that follow it), moving the spans found further
  // on in the cache instead of running them.
  caught_up_ = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const Session::Reuse reuse = session_.begin_reuse(history, chunk_reuse_min_);
  if (reuse.up_to_date) return {};
  const std::vector<ReusedChunk>& chunks = reuse.chunks;
  size_t pos = reuse.common;
  for (size_t i = 0;; ++i) {
    const size_t end = i < chunks.size() ? static_cast<size_t>(chunks[i].prompt_pos) : history.size();
    if (end > pos) {
      const LogitsFor logits = end == history.size() ? LogitsFor::kLast : LogitsFor::kNone;
      if (Status s = session_.eval(history.subspan(pos, end - pos), logits, interrupt); !s) return s;
      caught_up_ += static_cast<int>(end - pos);
    }
    if (i == chunks.size()) break;
    if (Status s = session_.place_stashed(i); !s) return s;
    pos = end + static_cast<size_t>(chunks[i].n);
  }
  if (caught_up_ >= kTimedCatchUp) {  // the machine and the depth change: recent ones count most
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double per_token = ms / caught_up_;
    catch_up_ms_per_token_ = catch_up_ms_per_token_ < 0 ? per_token : 0.7 * catch_up_ms_per_token_ + 0.3 * per_token;
  }
  return {};
}

int DraftModel::catch_up_size(std::span<const int32_t> history) const {
  if (history.empty()) return 0;
  const Session::Reuse plan = session_.plan_reuse(history, chunk_reuse_min_);
  if (plan.up_to_date) return 0;
  int n = static_cast<int>(history.size() - plan.common);
  for (const ReusedChunk& c : plan.chunks) n -= c.n;
  return n;
}

void DraftModel::note_request_tokens(int n) {
  if (n < 0) return;
  request_tokens_ = request_tokens_ < 0 ? n : 0.8 * request_tokens_ + 0.2 * n;
}

bool DraftModel::catch_up_pays(std::span<const int32_t> history, int generated, int max_tokens) const {
  if (history.empty()) return true;
  const int n = catch_up_size(history);
  if (n < kTimedCatchUp) return true;
  const double saving = length_.saving_per_token_ms();
  if (catch_up_ms_per_token_ < 0 || saving < 0) return n < kUnmeasuredCatchUp;
  double left = std::max(0, max_tokens - generated);
  if (request_tokens_ >= 0) left = std::min(left, std::max(1.0, request_tokens_ - generated));
  return n * catch_up_ms_per_token_ <= left * saving;
}

Status DraftModel::prefill(std::span<const int32_t> history, const std::atomic<bool>* interrupt) {
  if (history.empty()) return {};
  // With a vocabulary head, the draft proposes only what it scores: the frequent ids and
  // those of the history (identifiers repeat); the model verifies either way.
  if (subset_.head > 0) note_extra_ids(history);
  session_.set_output_subset(subset_.head > 0 ? &subset_ : nullptr);
  return catch_up(history, interrupt);
}

Result<std::vector<int32_t>> DraftModel::propose(std::span<const int32_t> history, int limit,
                                                 const std::atomic<bool>* interrupt, const EndsGeneration* ends) {
  std::vector<int32_t> draft;
  if (history.empty()) return draft;
  // The draft's cache ends up holding the history and all but the last drafted token.
  const int room = session_.context_size() - static_cast<int>(history.size()) + 1;
  const int want = std::min({length_.get(), limit, room});
  if (want <= 0) return draft;

  if (Status s = prefill(history, interrupt); !s) return s.error();

  const size_t n_vocab = session_.logits().size();
  for (int i = 0; i < want; ++i) {
    const int32_t t = greedy_token(std::span<const float>(session_.logits().data(), n_vocab));
    draft.push_back(t);
    if (i + 1 == want || (ends && (*ends)(t))) break;
    if (Status s = session_.eval(std::span<const int32_t>(&t, 1), LogitsFor::kLast, interrupt); !s) return s.error();
  }
  return draft;
}

}  // namespace wafer
