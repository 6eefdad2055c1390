// SentencePiece-style BPE (llama.cpp's "SPM" vocabularies: LLaMA 1/2, CodeLlama, TinyLlama,
// Phi-3): spaces become ▁, a space is prepended at the start of text and after special
// tokens (add_space_prefix), then adjacent pieces are merged while their concatenation is a
// vocabulary entry, highest score first (ties: leftmost). Characters no token covers fall
// back to <0xNN> byte tokens.
#include <algorithm>
#include <cstdio>

#include "engine/tokenizer/tokenizer_impl.h"
#include "engine/tokenizer/unicode.h"

namespace wafer {
namespace {

struct Piece {
  uint32_t offset, length;  // length 0 once merged into its left neighbour
  int32_t prev, next;
};

struct Pair {
  float score;
  int32_t left, right;
  uint32_t length;
};

// Max-heap order: highest score first, then leftmost.
struct Lower {
  bool operator()(const Pair& a, const Pair& b) const {
    return a.score != b.score ? a.score < b.score : a.left > b.left;
  }
};

}  // namespace

void Tokenizer::Impl::build_spm() {
  // ASCII bytes that no multi-byte token contains never merge with a neighbour, so the
  // text can be cut there and each part merged on its own (same result as one global
  // queue, but the queues stay small: LLaMA's vocabulary has no token containing \n or \t).
  spm_barrier.fill(true);
  for (const std::string& t : text)
    if (t.size() >= 2)
      for (char c : t)
        if (uint8_t(c) < 128) spm_barrier[uint8_t(c)] = false;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    TokenId id = find(name);
    if (id == kNoToken) id = find(std::string(1, char(b)));  // llama.cpp's second choice
    spm_byte[b] = id;
  }
}

void Tokenizer::Impl::spm_encode(std::string_view input, bool prefix_space, std::vector<TokenId>& out) const {
  thread_local std::string escaped;
  escaped.clear();
  if (prefix_space) escaped.append("\xe2\x96\x81");
  for (char c : input) {
    if (c == ' ') escaped.append("\xe2\x96\x81");
    else escaped.push_back(c);
  }
  size_t start = 0;
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (uint8_t(escaped[i]) < 128 && spm_barrier[uint8_t(escaped[i])]) {
      if (i > start) spm_merge(std::string_view(escaped).substr(start, i - start), out);
      spm_merge(std::string_view(escaped).substr(i, 1), out);
      start = i + 1;
    }
  }
  if (start < escaped.size()) spm_merge(std::string_view(escaped).substr(start), out);
}

void Tokenizer::Impl::spm_merge(std::string_view s, std::vector<TokenId>& out) const {
  thread_local std::vector<Piece> pieces;
  thread_local std::vector<Pair> heap;
  pieces.clear();
  for (uint32_t off = 0; off < s.size();) {
    // One piece per UTF-8 character. llama.cpp trusts the lead byte even when the bytes
    // after it are not continuations, which can swallow part of an escaped space (▁) and
    // then decode it as "▁"; an invalid byte is a piece of its own here, so any byte
    // string round-trips. Valid UTF-8 splits identically.
    size_t len;
    decode_utf8(s.data() + off, s.size() - off, len);
    int32_t index = int32_t(pieces.size());
    pieces.push_back(Piece{off, uint32_t(len), index - 1, off + len < s.size() ? index + 1 : -1});
    off += uint32_t(len);
  }
  heap.clear();
  auto consider = [&](int32_t l, int32_t r) {
    if (l < 0 || r < 0) return;
    uint32_t length = pieces[l].length + pieces[r].length;
    TokenId id = find(s.substr(pieces[l].offset, length));
    if (id == kNoToken) return;
    heap.push_back(Pair{score[id], l, r, length});
    std::push_heap(heap.begin(), heap.end(), Lower{});
  };
  for (int32_t i = 1; i < int32_t(pieces.size()); ++i) consider(i - 1, i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), Lower{});
    Pair p = heap.back();
    heap.pop_back();
    Piece& l = pieces[p.left];
    Piece& r = pieces[p.right];
    if (l.length == 0 || r.length == 0 || l.length + r.length != p.length) continue;  // stale
    l.length += r.length;
    r.length = 0;
    l.next = r.next;
    if (r.next >= 0) pieces[r.next].prev = p.left;
    consider(l.prev, p.left);
    consider(p.left, l.next);
  }
  for (int32_t i = pieces.empty() ? -1 : 0; i >= 0; i = pieces[i].next) {
    std::string_view text_piece = s.substr(pieces[i].offset, pieces[i].length);
    if (TokenId id = find(text_piece); id != kNoToken) {
      out.push_back(id);
      continue;
    }
    for (char c : text_piece) {
      TokenId id = spm_byte[uint8_t(c)];
      if (id == kNoToken) id = special.unk;
      if (id != kNoToken) out.push_back(id);
    }
  }
}

}  // namespace wafer
