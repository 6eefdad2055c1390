// Byte-level BPE (GPT-2 style): pre-tokenize, then inside each word repeatedly merge the
// adjacent pair with the lowest merge rank (ties: leftmost), exactly as llama.cpp does.
// Merging works on symbol ids, not strings, and whole-word results are cached.
#include <algorithm>

#include "engine/tokenizer/tokenizer_impl.h"
#include "engine/tokenizer/unicode.h"

namespace wafer {
namespace {

constexpr size_t kWordCacheLimit = 1 << 16;  // entries; the cache is dropped when full

struct Symbol {
  int32_t id;  // -1 once merged into its left neighbour
  int32_t prev, next;
};

struct Candidate {
  int32_t rank, left, right, left_id, right_id, result;
};

// Min-heap order: lowest rank first, then leftmost.
struct Later {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;
  }
};

}  // namespace

Status Tokenizer::Impl::build_bpe(const std::vector<std::string>& merges) {
  const int32_t n_vocab = int32_t(text.size());
  std::unordered_map<std::string, int32_t> synthetic_ids;
  auto symbol = [&](const std::string& s) -> int32_t {
    if (TokenId id = find(s); id != kNoToken) return id;
    auto [it, inserted] = synthetic_ids.emplace(s, n_vocab + int32_t(bpe.synthetic_text.size()));
    if (inserted) bpe.synthetic_text.push_back(s);
    return it->second;
  };
  for (int b = 0; b < 256; ++b) bpe.byte_symbol[b] = symbol(std::string(byte_to_bpe_char(uint8_t(b))));

  bpe.reserve(merges.size());
  bpe.n_merges = merges.size();
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string& m = merges[rank];
    // llama.cpp splits at the first space after the first byte; a merge without one
    // becomes the (never matching) pair of empty strings.
    size_t sp = m.find(' ', 1);
    if (sp == std::string::npos) continue;
    std::string left = m.substr(0, sp), right = m.substr(sp + 1);
    if (left.empty() || right.empty()) continue;
    int32_t l = symbol(left), r = symbol(right);
    int32_t result = symbol(left + right);
    bpe.insert(BpeMerges::key(l, r), int32_t(rank), result);
  }
  return {};
}

void Tokenizer::Impl::bpe_encode(std::string_view input, std::vector<TokenId>& out) const {
  thread_local std::vector<std::string_view> words;
  thread_local std::vector<Symbol> syms;
  thread_local std::vector<Candidate> heap;
  thread_local std::string encoded;
  words.clear();
  pretokenize(pre.kind, input, words);
  const int32_t n_vocab = int32_t(text.size());

  auto emit_symbol = [&](int32_t id, std::vector<TokenId>& dst) {
    if (id < n_vocab) {
      dst.push_back(id);
      return;
    }
    // A merge result missing from the vocabulary: fall back to its bytes.
    const std::string& s = bpe.synthetic_text[id - n_vocab];
    for (size_t i = 0; i < s.size();) {
      size_t len;
      uint32_t cp = decode_utf8(s.data() + i, s.size() - i, len);
      int b = cp == kInvalidCodepoint ? -1 : bpe_char_to_byte(cp);
      if (b >= 0 && bpe.byte_symbol[b] < n_vocab) dst.push_back(bpe.byte_symbol[b]);
      else if (special.unk != kNoToken) dst.push_back(special.unk);
      i += len;
    }
  };

  for (std::string_view word : words) {
    if (word.size() == 1 && bpe.byte_symbol[uint8_t(word[0])] < n_vocab) {  // no merge possible
      out.push_back(bpe.byte_symbol[uint8_t(word[0])]);
      continue;
    }
    if (auto it = word_cache.find(word); it != word_cache.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      continue;
    }
    std::vector<TokenId> ids;
    if (pre.ignore_merges) {
      encoded.clear();
      for (char c : word) encoded.append(byte_to_bpe_char(uint8_t(c)));
      if (TokenId id = find(encoded); id != kNoToken) ids.push_back(id);
    }
    if (ids.empty()) {
      const int32_t n = int32_t(word.size());
      syms.resize(n);
      for (int32_t i = 0; i < n; ++i) syms[i] = Symbol{bpe.byte_symbol[uint8_t(word[i])], i - 1, i + 1 < n ? i + 1 : -1};
      heap.clear();
      auto consider = [&](int32_t l, int32_t r) {
        if (l < 0 || r < 0) return;
        const BpeMerges::Slot* m = bpe.find(BpeMerges::key(syms[l].id, syms[r].id));
        if (!m) return;
        heap.push_back(Candidate{m->rank, l, r, syms[l].id, syms[r].id, m->result});
        std::push_heap(heap.begin(), heap.end(), Later{});
      };
      for (int32_t i = 1; i < n; ++i) consider(i - 1, i);
      while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), Later{});
        Candidate c = heap.back();
        heap.pop_back();
        Symbol& l = syms[c.left];
        Symbol& r = syms[c.right];
        if (l.id != c.left_id || r.id != c.right_id || l.next != c.right) continue;  // stale
        l.id = c.result;
        r.id = -1;
        l.next = r.next;
        if (r.next >= 0) syms[r.next].prev = c.left;
        consider(l.prev, c.left);
        consider(c.left, l.next);
      }
      for (int32_t i = 0; i >= 0 && i < n; i = syms[i].next) emit_symbol(syms[i].id, ids);
    }
    out.insert(out.end(), ids.begin(), ids.end());
    if (word_cache.size() >= kWordCacheLimit) word_cache.clear();
    word_cache.emplace(std::string(word), std::move(ids));
  }
}

}  // namespace wafer
