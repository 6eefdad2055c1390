// Special tokens: which ids are BOS/EOS/EOT/FIM/end-of-generation (metadata first, then the
// names llama.cpp recognises), and the partition of input text around special tokens.
#include <algorithm>
#include <bitset>
#include <cctype>
#include <initializer_list>
#include <memory>

#include "engine/tokenizer/tokenizer_impl.h"

namespace wafer {
namespace {

using Names = std::initializer_list<std::string_view>;

// Token texts llama.cpp uses to find tokens the metadata does not name. A token found this
// way is promoted to CONTROL (so user text cannot produce it unless parse_special).
const Names kEotNames = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                         "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>",
                         "<end_of_utterance>"};
const Names kEomNames = {"<|eom_id|>"};
const Names kFimPreNames = {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>",
                            "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"};
const Names kFimSufNames = {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>",
                            "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"};
const Names kFimMidNames = {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>",
                            "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"};
const Names kFimPadNames = {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"};
const Names kFimRepNames = {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"};
const Names kFimSepNames = {"<|file_sep|>"};
const Names kEogNames = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>",
                         "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>",
                         "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>",
                         "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~["};

bool c_isspace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

void Tokenizer::Impl::detect_special_tokens(const VocabData& data) {
  const size_t n = text.size();
  const bool spm = kind == TokenizerKind::SentencePiece;
  // llama.cpp's defaults before metadata: SPM <unk>=0 <s>=1 </s>=2; BPE 11 (GPT-2 era).
  special = SpecialTokens{};
  if (spm) {
    special.unk = 0;
    special.bos = 1;
    special.eos = 2;
  } else {
    special.bos = 11;
    special.eos = 11;
  }
  auto in_range = [&](TokenId& id) {
    if (id != kNoToken && (id < 0 || size_t(id) >= n)) id = kNoToken;
  };
  in_range(special.unk);
  in_range(special.bos);
  in_range(special.eos);
  // Metadata ids win when they are inside the vocabulary.
  auto take = [&](const std::optional<int64_t>& v, TokenId& id) {
    if (v && *v >= 0 && uint64_t(*v) < n) id = TokenId(*v);
  };
  take(data.bos, special.bos);
  take(data.eos, special.eos);
  take(data.eot, special.eot);
  take(data.eom, special.eom);
  take(data.unk, special.unk);
  take(data.sep, special.sep);
  take(data.pad, special.pad);
  take(data.mask, special.mask);
  take(data.fim_pre, special.fim_pre);
  take(data.fim_suf, special.fim_suf);
  take(data.fim_mid, special.fim_mid);
  take(data.fim_pad, special.fim_pad);
  take(data.fim_rep, special.fim_rep);
  take(data.fim_sep, special.fim_sep);

  add_space_prefix = data.add_space_prefix.value_or(spm);
  add_bos = data.add_bos.value_or(spm ? true : pre.add_bos);
  add_eos = data.add_eos.value_or(false);
  if (add_bos && special.bos == kNoToken) add_bos = false;
  if (add_eos && special.eos == kNoToken) add_eos = false;

  // Find unnamed special tokens by their text; when several names of a list exist, the
  // lowest id wins (llama.cpp walks a hash map, so its choice is arbitrary there).
  auto find_by_name = [&](TokenId& id, Names names) {
    if (id != kNoToken) return;
    for (std::string_view name : names) {
      TokenId t = find(name);
      if (t != kNoToken && (id == kNoToken || t < id)) id = t;
    }
    if (id != kNoToken) attr[id] |= kAttrControl;
  };
  find_by_name(special.eot, kEotNames);
  find_by_name(special.eom, kEomNames);
  find_by_name(special.fim_pre, kFimPreNames);
  find_by_name(special.fim_suf, kFimSufNames);
  find_by_name(special.fim_mid, kFimMidNames);
  find_by_name(special.fim_pad, kFimPadNames);
  find_by_name(special.fim_rep, kFimRepNames);
  find_by_name(special.fim_sep, kFimSepNames);
  // Control tokens named "unused" are unused.
  for (size_t i = 0; i < n; ++i)
    if ((attr[i] & kAttrControl) && text[i].find("unused") != std::string::npos) attr[i] |= kAttrUnused;

  // End of generation.
  eog.clear();
  for (TokenId id : {special.fim_pad, special.fim_rep, special.fim_sep})
    if (id != kNoToken) eog.push_back(id);
  for (std::string_view name : kEogNames) {
    if (TokenId id = find(name); id != kNoToken) {
      eog.push_back(id);
      attr[id] |= kAttrControl;
    }
  }
  // gpt-oss renders these as text (llama.cpp's workaround).
  for (std::string_view name : {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"})
    if (TokenId id = find(name); id != kNoToken) attr[id] = kAttrUserDefined;
  for (TokenId id : {special.eos, special.eot, special.eom})
    if (id != kNoToken) eog.push_back(id);
  std::sort(eog.begin(), eog.end());
  eog.erase(std::unique(eog.begin(), eog.end()), eog.end());

  special_cache.clear();
  for (size_t i = 0; i < n; ++i)
    if (attr[i] & (kAttrControl | kAttrUserDefined | kAttrUnknown)) special_cache.push_back(TokenId(i));
  std::stable_sort(special_cache.begin(), special_cache.end(),
                   [&](TokenId a, TokenId b) { return text[a].size() > text[b].size(); });

  // Phi-3 strips the white space after its special tokens (llama.cpp keys this on the name).
  std::string lower = model_name;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("phi-3") != std::string::npos || lower.find("phi3") != std::string::npos) {
    for (TokenId id : special_cache) attr[id] |= kAttrRstrip;
    if (TokenId id = find("</s>"); id != kNoToken) attr[id] |= kAttrRstrip;
    for (std::string_view s : {"<unk>", "<s>", "<|endoftext|>"})
      if (TokenId id = find(s); id != kNoToken) attr[id] &= ~uint32_t(kAttrRstrip);
  }
}

// Splits `s` around special tokens the way llama.cpp does: longest token texts first, each
// split out of every remaining raw fragment at all its (non-overlapping, leftmost-first)
// occurrences. CONTROL and UNKNOWN tokens take part only with parse_special.
void Tokenizer::Impl::partition(std::string_view s, bool parse_special, std::vector<TextFragment>& out) const {
  out.assign(1, TextFragment{kNoToken, 0, s.size()});
  if (special_cache.empty()) return;

  // Which bytes and byte pairs occur: a token with a missing pair cannot occur, and
  // checking that is much cheaper than searching for it (vocabularies have hundreds).
  auto pairs = std::make_unique<std::bitset<65536>>();
  std::bitset<256> bytes;
  for (size_t i = 0; i < s.size(); ++i) {
    bytes.set(uint8_t(s[i]));
    if (i + 1 < s.size()) pairs->set(uint8_t(s[i]) << 8 | uint8_t(s[i + 1]));
  }
  auto may_occur = [&](std::string_view t) {
    if (t.size() > s.size()) return false;
    if (t.size() == 1) return bytes.test(uint8_t(t[0]));
    for (size_t i = 0; i + 1 < t.size(); ++i)
      if (!pairs->test(uint8_t(t[i]) << 8 | uint8_t(t[i + 1]))) return false;
    return true;
  };

  std::vector<TextFragment> next;
  for (TokenId id : special_cache) {
    const uint32_t a = attr[id];
    if (!parse_special && (a & (kAttrControl | kAttrUnknown))) continue;
    const std::string_view t = text[id];
    if (!may_occur(t)) continue;
    next.clear();
    for (const TextFragment& f : out) {
      if (f.token != kNoToken) {
        next.push_back(f);
        continue;
      }
      size_t off = f.offset, len = f.length;
      while (len > 0) {
        size_t match = s.substr(0, off + len).find(t, off);
        if (match == std::string_view::npos) break;
        size_t left = match - off;
        if (a & kAttrLstrip)
          while (left > 0 && c_isspace(s[off + left - 1])) --left;
        if (left > 0) next.push_back(TextFragment{kNoToken, off, left});
        next.push_back(TextFragment{id, match, t.size()});
        size_t right_off = match + t.size();
        size_t right_len = off + len - right_off;
        if (a & kAttrRstrip)
          while (right_len > 0 && c_isspace(s[right_off])) ++right_off, --right_len;
        off = right_off;
        len = right_len;
      }
      if (len > 0) next.push_back(TextFragment{kNoToken, off, len});
    }
    out.swap(next);
  }
}

}  // namespace wafer
