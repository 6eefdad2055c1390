#include "engine/tokenizer/tokenizer.h"

#include <algorithm>

#include "engine/tokenizer/tokenizer_impl.h"
#include "engine/tokenizer/unicode.h"

namespace wafer {
namespace {

uint32_t attr_of_type(int32_t type) {
  switch (TokenType(type)) {
    case TokenType::Normal: return kAttrNormal;
    case TokenType::Unknown: return kAttrUnknown;
    case TokenType::Control: return kAttrControl;
    case TokenType::UserDefined: return kAttrUserDefined;
    case TokenType::Unused: return kAttrUnused;
    case TokenType::Byte: return kAttrByte;
    default: return 0;  // undefined
  }
}

// "<0xNN>" -> NN, or -1.
int parse_byte_token(std::string_view s) {
  if (s.size() != 6 || s.substr(0, 3) != "<0x" || s[5] != '>') return -1;
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  int hi = hex(s[3]), lo = hex(s[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// What a token contributes to decoded text (special tokens: their text; gated later).
std::string token_bytes_of(TokenizerKind kind, std::string_view text, uint32_t attr) {
  if (attr & (kAttrControl | kAttrUnknown | kAttrUserDefined)) return std::string(text);
  if (attr & kAttrNormal) {
    std::string out;
    if (kind == TokenizerKind::SentencePiece) {
      for (size_t i = 0; i < text.size();) {
        if (text.compare(i, 3, "\xe2\x96\x81") == 0) {
          out.push_back(' ');
          i += 3;
        } else {
          out.push_back(text[i++]);
        }
      }
      return out;
    }
    for (size_t i = 0; i < text.size();) {
      size_t len;
      uint32_t cp = decode_utf8(text.data() + i, text.size() - i, len);
      int b = cp == kInvalidCodepoint ? -1 : bpe_char_to_byte(cp);
      if (b >= 0) out.push_back(char(b));
      else out.append(text.substr(i, len));  // not a stand-in: keep the character itself
      i += len;
    }
    return out;
  }
  if (attr & kAttrByte) {
    int b = parse_byte_token(text);
    return b < 0 ? std::string(text) : std::string(1, char(b));
  }
  return {};
}

}  // namespace

Tokenizer::Tokenizer() : impl_(std::make_unique<Impl>()) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Result<Tokenizer> Tokenizer::create(VocabData data) {
  Tokenizer t;
  Impl& m = *t.impl_;
  m.model = data.model;
  m.pre_name = data.pre;
  m.model_name = data.model_name;
  if (data.model == "gpt2") {
    m.kind = TokenizerKind::ByteLevelBpe;
    auto pre = pretokenizer_from_name(data.pre);
    if (!pre) return pre.error();
    m.pre = *pre;
  } else if (data.model == "llama") {
    m.kind = TokenizerKind::SentencePiece;
  } else {
    return make_error("unsupported tokenizer model '" + data.model +
                      "' (tokenizer.ggml.model; wafer supports gpt2 and llama)");
  }
  const size_t n = data.tokens.size();
  if (n == 0) return make_error("tokenizer.ggml.tokens is empty");
  if (n > size_t(INT32_MAX)) return make_error("tokenizer.ggml.tokens: too many tokens");
  if (!data.scores.empty() && data.scores.size() < n)
    return make_error("tokenizer.ggml.scores has " + std::to_string(data.scores.size()) + " entries for " +
                      std::to_string(n) + " tokens");
  if (!data.token_types.empty() && data.token_types.size() < n)
    return make_error("tokenizer.ggml.token_type has " + std::to_string(data.token_types.size()) +
                      " entries for " + std::to_string(n) + " tokens");

  m.text = std::move(data.tokens);
  m.score.assign(n, 0.0f);
  m.attr.assign(n, kAttrNormal);
  for (size_t i = 0; i < n; ++i) {
    if (m.text[i].empty()) m.text[i] = "[EMPTY_" + std::to_string(i) + "]";  // as llama.cpp
    if (!data.scores.empty()) m.score[i] = data.scores[i];
    if (!data.token_types.empty()) m.attr[i] = attr_of_type(data.token_types[i]);
  }
  m.by_text.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto [it, inserted] = m.by_text.emplace(m.text[i], TokenId(i));
    if (!inserted)
      return make_error("duplicate token in vocabulary: '" + m.text[i] + "' has ids " +
                        std::to_string(it->second) + " and " + std::to_string(i));
  }

  if (m.kind == TokenizerKind::ByteLevelBpe) {
    if (Status s = m.build_bpe(data.merges); !s) return s.error();
  } else {
    m.build_spm();
  }
  m.detect_special_tokens(data);

  m.bytes.resize(n);
  for (size_t i = 0; i < n; ++i) m.bytes[i] = token_bytes_of(m.kind, m.text[i], m.attr[i]);

  // The newline token, as llama.cpp determines it (used by some prompt formats).
  if (m.kind == TokenizerKind::SentencePiece) {
    m.special.newline = m.spm_byte['\n'];
  } else {
    std::vector<TokenId> nl = t.encode("\n");
    m.special.newline = nl.empty() ? m.special.pad : nl[0];
  }
  return t;
}

TokenizerKind Tokenizer::kind() const { return impl_->kind; }
const std::string& Tokenizer::model() const { return impl_->model; }
const std::string& Tokenizer::pre_name() const { return impl_->pre_name; }
const PreTokenizer& Tokenizer::pre() const { return impl_->pre; }
size_t Tokenizer::n_vocab() const { return impl_->text.size(); }
size_t Tokenizer::n_merges() const { return impl_->bpe.n_merges; }
const SpecialTokens& Tokenizer::special() const { return impl_->special; }
bool Tokenizer::add_bos() const { return impl_->add_bos; }
bool Tokenizer::add_eos() const { return impl_->add_eos; }
bool Tokenizer::add_space_prefix() const { return impl_->add_space_prefix; }

std::string_view Tokenizer::token_text(TokenId id) const { return valid(id) ? std::string_view(impl_->text[id]) : ""; }
uint32_t Tokenizer::token_attr(TokenId id) const { return valid(id) ? impl_->attr[id] : 0; }
bool Tokenizer::is_eog(TokenId id) const {
  return std::binary_search(impl_->eog.begin(), impl_->eog.end(), id);
}
const std::vector<TokenId>& Tokenizer::eog_tokens() const { return impl_->eog; }
TokenId Tokenizer::find_token(std::string_view text) const { return impl_->find(text); }

std::vector<TokenId> Tokenizer::encode(std::string_view text, EncodeOptions options) const {
  std::vector<TokenId> out;
  encode(text, options, out);
  return out;
}

void Tokenizer::encode(std::string_view text, EncodeOptions options, std::vector<TokenId>& out) const {
  const Impl& m = *impl_;
  std::vector<TextFragment> fragments;
  if (!text.empty()) m.partition(text, options.parse_special, fragments);

  if (options.add_special && m.add_bos && m.special.bos != kNoToken) out.push_back(m.special.bos);
  if (m.kind == TokenizerKind::SentencePiece) {
    bool prev_special = true;  // the text's start counts as "after a special token"
    for (const TextFragment& f : fragments) {
      if (f.token != kNoToken) {
        out.push_back(f.token);
        prev_special = true;
      } else {
        m.spm_encode(text.substr(f.offset, f.length), m.add_space_prefix && prev_special, out);
        prev_special = false;
      }
    }
  } else {
    std::lock_guard<std::mutex> lock(m.cache_mutex);
    for (const TextFragment& f : fragments) {
      if (f.token != kNoToken) out.push_back(f.token);
      else m.bpe_encode(text.substr(f.offset, f.length), out);
    }
  }
  if (options.add_special && m.add_eos && m.special.eos != kNoToken) out.push_back(m.special.eos);
}

std::string_view Tokenizer::token_bytes(TokenId id, bool render_special) const {
  if (!valid(id)) return {};
  if (!render_special && (impl_->attr[id] & (kAttrControl | kAttrUnknown))) return {};
  return impl_->bytes[id];
}

std::string Tokenizer::decode(std::span<const TokenId> ids, DecodeOptions options) const {
  std::string out;
  bool strip = options.strip_space_prefix && impl_->add_space_prefix;
  for (TokenId id : ids) {
    std::string_view piece = token_bytes(id, options.render_special);
    if (strip && !piece.empty()) {
      if (piece[0] == ' ') piece.remove_prefix(1);
      strip = false;
    }
    out.append(piece);
  }
  return out;
}

}  // namespace wafer
