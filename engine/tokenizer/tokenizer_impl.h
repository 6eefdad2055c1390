// Private state of wafer::Tokenizer, shared by the tokenizer_*.cpp files (not a public
// header: include engine/tokenizer/tokenizer.h instead).
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/tokenizer/tokenizer.h"

namespace wafer {

// Byte-level BPE merge table over "symbols": symbol ids below n_vocab are vocabulary
// tokens; ids from n_vocab on are strings that merges produce but the vocabulary lacks
// (kept so that merging behaves exactly as with strings; absent in well-formed files).
struct BpeMerges {
  // Open-addressing hash table (linear probing) of (left, right) -> (rank, result): one
  // cache line per lookup instead of a node chase; merging is the inner loop of BPE.
  struct Slot {
    uint64_t key;
    int32_t rank;
    int32_t result;
  };
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  std::vector<Slot> slots;
  uint64_t mask = 0;
  std::vector<std::string> synthetic_text;  // symbol n_vocab + i, in stand-in characters
  std::array<int32_t, 256> byte_symbol{};   // symbol of each single byte
  size_t n_merges = 0;

  static uint64_t key(int32_t left, int32_t right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }
  static uint64_t hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    return k ^ (k >> 33);
  }
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots.assign(cap, Slot{kEmpty, 0, 0});
    mask = cap - 1;
  }
  // Keeps the first insertion of a key (the lowest rank), like llama.cpp's emplace.
  void insert(uint64_t k, int32_t rank, int32_t result) {
    for (uint64_t i = hash(k) & mask;; i = (i + 1) & mask) {
      if (slots[i].key == k) return;
      if (slots[i].key == kEmpty) {
        slots[i] = Slot{k, rank, result};
        return;
      }
    }
  }
  const Slot* find(uint64_t k) const {
    for (uint64_t i = hash(k) & mask;; i = (i + 1) & mask) {
      if (slots[i].key == k) return &slots[i];
      if (slots[i].key == kEmpty) return nullptr;
    }
  }
};

// Hash for string keys that also accepts string_view (lookups without a copy).
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// A piece of the input after special-token partition: raw text, or one special token.
struct TextFragment {
  TokenId token;  // kNoToken: raw text [offset, offset + length)
  size_t offset;
  size_t length;
};

struct Tokenizer::Impl {
  TokenizerKind kind = TokenizerKind::ByteLevelBpe;
  std::string model, pre_name, model_name;
  PreTokenizer pre;
  std::vector<std::string> text;       // vocabulary entries
  std::vector<float> score;
  std::vector<uint32_t> attr;          // TokenAttr bits
  std::vector<std::string> bytes;      // decoded bytes of each token (special text included)
  std::unordered_map<std::string_view, TokenId> by_text;  // views into `text`
  SpecialTokens special;
  bool add_bos = false, add_eos = false, add_space_prefix = false;
  std::vector<TokenId> eog;            // ascending
  std::vector<TokenId> special_cache;  // CONTROL/USER_DEFINED/UNKNOWN, longest text first

  BpeMerges bpe;                        // byte-level BPE only
  std::array<TokenId, 256> spm_byte{};  // SPM byte fallback tokens (<0xNN>)
  std::array<bool, 128> spm_barrier{};  // SPM: ASCII bytes that never merge

  // Byte-level BPE results per pre-tokenized word: source code repeats its words.
  mutable std::mutex cache_mutex;
  mutable std::unordered_map<std::string, std::vector<TokenId>, StringHash, std::equal_to<>> word_cache;

  TokenId find(std::string_view s) const {
    auto it = by_text.find(s);
    return it == by_text.end() ? kNoToken : it->second;
  }

  // tokenizer_special.cpp
  void detect_special_tokens(const VocabData& data);
  void partition(std::string_view text, bool parse_special, std::vector<TextFragment>& out) const;
  // tokenizer_bpe.cpp
  Status build_bpe(const std::vector<std::string>& merges);
  void bpe_encode(std::string_view text, std::vector<TokenId>& out) const;
  // tokenizer_spm.cpp
  void build_spm();
  void spm_encode(std::string_view text, bool prefix_space, std::vector<TokenId>& out) const;
  void spm_merge(std::string_view escaped, std::vector<TokenId>& out) const;
};

}  // namespace wafer
