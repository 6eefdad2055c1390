#include "server/prompt/recent_chunks.h"

#include <algorithm>

#include "server/prompt/token_estimate.h"

namespace wafer {

void RecentChunks::edited(const Snapshot& s, size_t line) {
  if (active_ && active_->uri == s.uri) {
    const size_t lo = active_->first > kJoinLines ? active_->first - kJoinLines : 0;
    if (line >= lo && line <= active_->last + kJoinLines) {
      active_->first = std::min(active_->first, line);
      active_->last = std::max(active_->last, line);
      return;
    }
  }
  close_active();
  active_ = Region{s.uri, line, line};
}

void RecentChunks::close_active() {
  if (!active_) return;
  Region r = std::move(*active_);
  active_.reset();
  const std::shared_ptr<const Snapshot> s = snapshot_of_ ? snapshot_of_(r.uri) : nullptr;
  if (!s || s->line_count() == 0) return;
  size_t first = r.first > kMarginLines ? r.first - kMarginLines : 0;
  size_t last = std::min(s->line_count() - 1, r.last + kMarginLines);
  if (first > last) return;
  if (last - first + 1 > kMaxLines) first = last + 1 - kMaxLines;  // a long region: the lines up to its last edit
  const size_t begin = s->line_starts[first];
  const size_t end = last + 1 < s->line_count() ? s->line_starts[last + 1] : s->text.size();
  if (end - begin > kMaxBytes) return;
  std::string text = s->text.substr(begin, end - begin);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return;
  if (!text.empty() && text.back() != '\n') text += '\n';
  push(std::move(r.uri), std::move(text));
}

void RecentChunks::forget(const std::string& uri) {
  if (active_ && active_->uri == uri) active_.reset();
  if (std::erase_if(chunks_, [&](const Chunk& c) { return c.uri == uri; }) > 0) ++generation_;
}

void RecentChunks::push(std::string uri, std::string text) {
  // The same place again replaces its older chunk (a chunk that now contains it, or that it contains).
  std::erase_if(chunks_, [&](const Chunk& c) {
    return c.uri == uri && (c.text.find(text) != std::string::npos || text.find(c.text) != std::string::npos);
  });
  chunks_.push_back({std::move(uri), std::move(text)});
  while (chunks_.size() > kMaxChunks) chunks_.pop_front();
  ++generation_;
}

RecentChunks::Yank RecentChunks::yanked_lines(const Snapshot& s, size_t first, size_t last) {
  if (first > last || last >= s.line_count()) return Yank::kOutside;
  last = std::min(last, first + kMaxLines - 1);
  const size_t begin = s.line_starts[first];
  const size_t end = last + 1 < s.line_count() ? s.line_starts[last + 1] : s.text.size();
  return yanked_text(s.uri, std::string_view(s.text).substr(begin, end - begin));
}

RecentChunks::Yank RecentChunks::yanked_text(std::string uri, std::string_view text) {
  // Its first kMaxLines lines.
  size_t end = 0;
  for (size_t lines = 0; end < text.size() && lines < kMaxLines; ++lines) {
    const size_t nl = text.find('\n', end);
    end = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  text = text.substr(0, end);
  if (text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return Yank::kBlank;
  if (text.size() > kMaxBytes) return Yank::kTooLong;
  std::string chunk(text);
  if (chunk.back() != '\n') chunk += '\n';
  for (const Chunk& c : chunks_)
    if (c.text.find(chunk) != std::string::npos) return Yank::kAlreadyThere;
  push(std::move(uri), std::move(chunk));
  return Yank::kAdded;
}

std::vector<ContextFile> RecentChunks::for_prompt(std::string_view window, int budget_tokens,
                                                  const std::function<std::string(const std::string&)>& path_of) const {
  std::vector<ContextFile> out;
  if (budget_tokens <= 0) return out;
  // The newest chunks first into the budget, then shown oldest first.
  size_t used = 0;
  std::vector<const Chunk*> taken;
  for (auto it = chunks_.rbegin(); it != chunks_.rend(); ++it) {
    if (window.find(it->text) != std::string_view::npos) continue;  // the window shows it
    const std::string path = path_of(it->uri);
    const size_t cost = estimate_tokens(path) + estimate_tokens(it->text) + 2;
    if (used + cost > static_cast<size_t>(budget_tokens)) continue;
    used += cost;
    taken.push_back(&*it);
  }
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) out.push_back({path_of((*it)->uri), (*it)->text, "recent"});
  return out;
}

}  // namespace wafer
