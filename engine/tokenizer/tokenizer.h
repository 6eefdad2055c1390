// Tokenizers of GGUF models, matching llama.cpp's token ids byte for byte: byte-level BPE
// (`tokenizer.ggml.model` = "gpt2", with the pre-tokenizer named by `tokenizer.ggml.pre`)
// and SentencePiece-style BPE ("llama": scores, byte fallback <0xNN>, leading-space rule).
//
// Build one from a vocabulary description (VocabData, filled from a GGUF's tokenizer.ggml.*
// metadata by tokenizer_from_gguf() in engine/tokenizer/tokenizer_gguf.h, or by hand in tests), then
// encode text to ids and decode ids to bytes. A Tokenizer is immutable after creation
// except for an internal word cache, and may be used from several threads.
//
// Special tokens: CONTROL tokens (e.g. <|fim_prefix|>, <|endoftext|>) are recognised in
// text only with EncodeOptions::parse_special, so user code containing such strings is
// tokenized as plain text. USER_DEFINED tokens are always matched, as llama.cpp and
// Hugging Face do -- except the FIM/EOT/EOG tokens, which llama.cpp (and wafer) promote to
// CONTROL by name.
//
// Invalid UTF-8 is kept byte for byte, so decode(encode(x)) == x for every byte string
// (byte-level BPE: llama.cpp would substitute U+FFFD; SPM: an invalid byte is a piece of
// its own, where llama.cpp lets a lead byte swallow the next bytes). These are the only
// places where ids differ from llama.cpp, and only for invalid UTF-8. Exceptions to the
// round trip: SPM text containing U+2581 itself, and vocabularies without a plain token for
// some byte (DeepSeek-Coder's 0xF5..0xFF are USER_DEFINED 'õ'...'ÿ' tokens).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tokenizer/pretokenize.h"
#include "engine/base/result.h"

namespace wafer {

using TokenId = int32_t;
inline constexpr TokenId kNoToken = -1;

// tokenizer.ggml.token_type values.
enum class TokenType : int32_t {
  Undefined = 0,
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6,
};

// Per-token attributes (a token can carry several, e.g. USER_DEFINED promoted to CONTROL).
enum TokenAttr : uint32_t {
  kAttrNormal = 1u << 0,
  kAttrUnknown = 1u << 1,
  kAttrControl = 1u << 2,
  kAttrUserDefined = 1u << 3,
  kAttrUnused = 1u << 4,
  kAttrByte = 1u << 5,
  kAttrLstrip = 1u << 6,  // a match eats the white space before it (some models)
  kAttrRstrip = 1u << 7,  // ... and after it (Phi-3)
};

enum class TokenizerKind {
  ByteLevelBpe,   // "gpt2"
  SentencePiece,  // "llama"
};

// Everything a tokenizer is built from; the names follow the GGUF keys.
struct VocabData {
  std::string model;       // tokenizer.ggml.model: "gpt2" or "llama"
  std::string pre;         // tokenizer.ggml.pre ("" = default)
  std::string model_name;  // general.name (llama.cpp keys a Phi-3 quirk on it)
  std::vector<std::string> tokens;
  std::vector<float> scores;        // SentencePiece merge priorities (may be empty)
  std::vector<int32_t> token_types; // TokenType values (may be empty: all normal)
  std::vector<std::string> merges;  // byte-level BPE: "left right", by rank
  std::optional<int64_t> bos, eos, eot, eom, unk, sep, pad, mask;
  std::optional<int64_t> fim_pre, fim_suf, fim_mid, fim_pad, fim_rep, fim_sep;
  std::optional<bool> add_bos, add_eos, add_space_prefix;
};

// Special token ids (kNoToken when the model has none).
struct SpecialTokens {
  TokenId bos = kNoToken, eos = kNoToken, eot = kNoToken, eom = kNoToken, unk = kNoToken;
  TokenId sep = kNoToken, pad = kNoToken, mask = kNoToken, newline = kNoToken;
  TokenId fim_pre = kNoToken, fim_suf = kNoToken, fim_mid = kNoToken;
  TokenId fim_pad = kNoToken, fim_rep = kNoToken, fim_sep = kNoToken;
};

struct EncodeOptions {
  bool add_special = false;    // add BOS/EOS as the model's metadata asks
  bool parse_special = false;  // recognise CONTROL tokens written in the text
};

struct DecodeOptions {
  bool render_special = false;      // CONTROL/UNKNOWN tokens contribute their text
  bool strip_space_prefix = true;   // SentencePiece: drop the space encode() prepended
};

class Tokenizer {
 public:
  static Result<Tokenizer> create(VocabData data);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  TokenizerKind kind() const;
  const std::string& model() const;       // tokenizer.ggml.model
  const std::string& pre_name() const;    // tokenizer.ggml.pre
  const PreTokenizer& pre() const;
  size_t n_vocab() const;
  size_t n_merges() const;
  const SpecialTokens& special() const;
  bool add_bos() const;
  bool add_eos() const;
  bool add_space_prefix() const;

  bool valid(TokenId id) const { return id >= 0 && size_t(id) < n_vocab(); }
  // The vocabulary entry as stored (byte-level BPE: GPT-2 stand-in characters; SPM: ▁).
  std::string_view token_text(TokenId id) const;
  uint32_t token_attr(TokenId id) const;  // TokenAttr bits; 0 for invalid ids
  bool is_control(TokenId id) const { return token_attr(id) & kAttrControl; }
  // End of generation: EOS, EOT, EOM, FIM pad/repo/file-separator and the tokens llama.cpp
  // knows by name (<|endoftext|>, <|im_end|>, <|eot_id|>, <EOT>, ...).
  bool is_eog(TokenId id) const;
  const std::vector<TokenId>& eog_tokens() const;  // ascending
  // Id of the token whose stored text is exactly `text`, kNoToken if none.
  TokenId find_token(std::string_view text) const;

  std::vector<TokenId> encode(std::string_view text, EncodeOptions options = {}) const;
  void encode(std::string_view text, EncodeOptions options, std::vector<TokenId>& out) const;

  // The bytes a token stands for (byte-level BPE: stand-ins mapped back to bytes; SPM: ▁
  // to space, <0xNN> to the byte). CONTROL/UNKNOWN tokens give "" unless render_special;
  // UNUSED tokens and invalid ids give "".
  std::string_view token_bytes(TokenId id, bool render_special = false) const;
  std::string decode(std::span<const TokenId> ids, DecodeOptions options = {}) const;

 private:
  Tokenizer();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Turns a stream of ids into text without ever emitting a broken UTF-8 sequence: an
// incomplete multi-byte character at the end of a token is held back until the next token
// completes it. Bytes that can never become valid UTF-8 are emitted as U+FFFD.
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, bool render_special = false)
      : tok_(&tokenizer), render_special_(render_special) {}
  // Text that became complete with this token (possibly empty).
  std::string push(TokenId id);
  // The same for raw bytes (e.g. the part of a token past the bytes token healing redid).
  std::string push_bytes(std::string_view bytes);
  // Ends the stream: whatever is held back, as U+FFFD.
  std::string finish();
  size_t pending_bytes() const { return pending_.size(); }

 private:
  const Tokenizer* tok_;
  bool render_special_;
  std::string pending_;
};

// Writes `bytes` with C-style escapes for control characters, backslash and invalid UTF-8
// (\n, \t, \\, \xNN), leaving valid printable UTF-8 as is. For `wafer tokenize --pieces`.
std::string escape_piece(std::string_view bytes);

}  // namespace wafer
