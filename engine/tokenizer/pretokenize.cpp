#include "engine/tokenizer/pretokenize.h"

#include <array>
#include <cstdint>

#include "engine/tokenizer/unicode.h"

namespace wafer {
namespace {

// Per code point flags. kIn is set for every code point of the text, so that a position
// past a fragment's end (flags 0) differs from an "other" character (kIn only).
enum : uint8_t { kLetter = 1, kNumber = 2, kSpace = 4, kPunct = 8, kIn = 16 };

struct Decoded {
  std::vector<uint32_t> cp;   // code points; an invalid byte is U+FFFD
  std::vector<uint8_t> fl;    // flags above
  std::vector<uint32_t> off;  // byte offset of each code point, then the text size
};

// Flags of the 128 ASCII characters, computed once: ASCII is the bulk of source code.
const std::array<uint8_t, 128>& ascii_flags();

uint8_t flags_of(uint32_t cp) {
  if (cp < 0x80) return ascii_flags()[cp];
  uint8_t f = kIn;
  switch (unicode_class(cp)) {
    case UnicodeClass::Letter: f |= kLetter; break;
    case UnicodeClass::Number: f |= kNumber; break;
    case UnicodeClass::Punctuation: f |= kPunct; break;
    default: break;
  }
  // White_Space wins over the category (llama.cpp maps it to \s before looking at classes).
  if (unicode_is_whitespace(cp)) f = kIn | kSpace;
  return f;
}

const std::array<uint8_t, 128>& ascii_flags() {
  static const std::array<uint8_t, 128> table = [] {
    std::array<uint8_t, 128> a{};
    for (uint32_t c = 0; c < 128; ++c) {
      uint8_t v = kIn;
      if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') v |= kLetter;
      else if (c >= '0' && c <= '9') v |= kNumber;
      else if (unicode_is_whitespace(c)) v |= kSpace;
      else if (unicode_class(c) == UnicodeClass::Punctuation) v |= kPunct;
      a[c] = v;
    }
    return a;
  }();
  return table;
}

void decode(std::string_view s, Decoded& d) {
  const size_t n = s.size();
  d.cp.resize(n);
  d.fl.resize(n);
  d.off.resize(n + 1);
  uint32_t* cp = d.cp.data();
  uint8_t* fl = d.fl.data();
  uint32_t* off = d.off.data();
  const std::array<uint8_t, 128>& ascii = ascii_flags();
  const auto* u = reinterpret_cast<const unsigned char*>(s.data());
  size_t i = 0, k = 0;
  while (i < n) {
    const unsigned char c = u[i];
    off[k] = uint32_t(i);
    if (c < 0x80) {
      cp[k] = c;
      fl[k++] = ascii[c];
      ++i;
      continue;
    }
    size_t len;
    uint32_t v = decode_utf8(s.data() + i, n - i, len);
    if (v == kInvalidCodepoint) v = 0xfffd;  // classified like llama.cpp's replacement
    cp[k] = v;
    fl[k++] = flags_of(v);
    i += len;
  }
  off[k] = uint32_t(n);
  d.cp.resize(k);
  d.fl.resize(k);
  d.off.resize(k + 1);
}

using Ends = std::vector<uint32_t>;  // exclusive end (code point index) of each piece

// One fragment [a, b) of the decoded text, with out-of-range reads answering 0.
struct Fragment {
  const Decoded& d;
  uint32_t a, b;
  Ends& out;
  uint32_t last;  // end of the last piece emitted

  Fragment(const Decoded& dd, uint32_t aa, uint32_t bb, Ends& o) : d(dd), a(aa), b(bb), out(o), last(aa) {}
  uint8_t fl(uint32_t i) const { return i < b ? d.fl[i] : 0; }
  uint32_t cp(uint32_t i) const { return i < b ? d.cp[i] : 0xffffffffu; }
  void emit(uint32_t end) {
    if (end > last) out.push_back(end);
    last = end;
  }
};

bool is_other(uint8_t f) { return (f & kIn) && !(f & (kLetter | kNumber | kSpace)); }
uint32_t ascii_lower(uint32_t c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

// Length of an English contraction ('s 't 're 've 'm 'll 'd) at p, 0 if none.
uint32_t contraction(const Fragment& f, uint32_t p, bool any_case) {
  if (f.cp(p) != '\'' || p + 1 >= f.b) return 0;
  auto low = [&](uint32_t i) { return any_case ? ascii_lower(f.cp(i)) : f.cp(i); };
  uint32_t n = low(p + 1);
  if (n == 's' || n == 't' || n == 'm' || n == 'd') return 2;
  if (p + 2 >= f.b) return 0;
  uint32_t nn = low(p + 2);
  if ((n == 'r' && nn == 'e') || (n == 'v' && nn == 'e') || (n == 'l' && nn == 'l')) return 3;
  return 0;
}

// GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
void split_gpt2(Fragment f) {
  for (uint32_t p = f.a; p < f.b;) {
    const uint32_t c = f.cp(p);
    if (uint32_t n = contraction(f, p, false)) {
      p += n;
      f.emit(p);
      continue;
    }
    const uint8_t f2 = c == ' ' ? f.fl(p + 1) : f.fl(p);
    if (f2 & (kLetter | kNumber)) {
      const uint8_t want = f2 & kLetter ? kLetter : kNumber;
      p += (c == ' ');
      while (f.fl(p) & want) ++p;
      f.emit(p);
      continue;
    }
    if (is_other(f2)) {
      p += (c == ' ');
      while (is_other(f.fl(p))) ++p;
      f.emit(p);
      continue;
    }
    uint32_t n = 0;
    while (f.fl(p + n) & kSpace) ++n;
    if (n > 1 && p + n < f.b) {
      p += n - 1;  // \s+(?!\S): leave the last space to the word that follows
    } else if (n > 0) {
      p += n;
    } else {
      ++p;
    }
    f.emit(p);
  }
}

// Llama 3 (max_digits 3) and Qwen2 (max_digits 1):
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,max}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
void split_llama3(Fragment f, uint32_t max_digits) {
  for (uint32_t p = f.a; p < f.b;) {
    const uint32_t c = f.cp(p);
    const uint8_t fl = f.fl(p);
    if (uint32_t n = contraction(f, p, true)) {
      p += n;
      f.emit(p);
      continue;
    }
    if (!(c == '\r' || c == '\n' || (fl & kNumber)) && ((fl & kLetter) || (f.fl(p + 1) & kLetter))) {
      ++p;
      while (f.fl(p) & kLetter) ++p;
      f.emit(p);
      continue;
    }
    if (fl & kNumber) {
      uint32_t start = p;
      while (f.fl(p) & kNumber) {
        if (++p - start >= max_digits) {
          f.emit(p);
          start = p;
        }
      }
      f.emit(p);
      continue;
    }
    const uint8_t f2 = c == ' ' ? f.fl(p + 1) : fl;
    if (is_other(f2) || (c == ' ' && f2 == 0)) {
      p += (c == ' ');
      while (is_other(f.fl(p))) ++p;
      while (f.cp(p) == '\r' || f.cp(p) == '\n') ++p;
      f.emit(p);
      continue;
    }
    uint32_t n = 0, after_newline = 0;
    while (f.fl(p + n) & kSpace) {
      const uint32_t s = f.cp(p + n);
      if (s == '\r' || s == '\n') after_newline = p + n + 1;
      ++n;
    }
    if (after_newline) {
      p = after_newline;  // \s*[\r\n]+ ends after the last line break of the run
    } else if (n > 1 && p + n < f.b) {
      p += n - 1;
    } else if (n > 0) {
      p += n;
    } else {
      ++p;
    }
    f.emit(p);
  }
}

// std::regex_iterator semantics: at each position try `match` (returns the end of a
// non-empty match, or p for none); text between matches becomes a piece of its own.
template <class Match>
void regex_pass(Fragment f, Match match) {
  uint32_t p = f.a;
  while (p < f.b) {
    uint32_t e = match(f, p);
    if (e > p) {
      f.emit(p);  // the unmatched gap before, if any
      f.emit(e);
      p = e;
    } else {
      ++p;
    }
  }
  f.emit(f.b);
}

// Matchers for the regexes of the multi-pass pre-tokenizers.
template <class Pred>
uint32_t run_of(const Fragment& f, uint32_t p, Pred pred) {
  while (p < f.b && pred(f, p)) ++p;
  return p;
}
template <class Pred>
uint32_t space_then_run(const Fragment& f, uint32_t p, Pred pred) {  // \s?X+
  if ((f.fl(p) & kSpace) && p + 1 < f.b && pred(f, p + 1)) return run_of(f, p + 1, pred);
  return run_of(f, p, pred);
}

bool is_newline(const Fragment& f, uint32_t p) { return f.cp(p) == '\r' || f.cp(p) == '\n'; }
bool is_letter(const Fragment& f, uint32_t p) { return f.fl(p) & kLetter; }
bool is_number(const Fragment& f, uint32_t p) { return f.fl(p) & kNumber; }
bool is_punct(const Fragment& f, uint32_t p) { return f.fl(p) & kPunct; }
bool is_ascii_digit(const Fragment& f, uint32_t p) { return f.cp(p) >= '0' && f.cp(p) <= '9'; }
bool is_ascii_symbol(uint32_t c, bool backtick) {
  return c == '$' || c == '+' || c == '<' || c == '=' || c == '>' || c == '^' || c == '~' || c == '|' ||
         (backtick && c == '`');
}
// [一-龥ࠀ-一가-퟿] on text where non-ASCII white space was replaced by U+000B.
bool is_cjk(const Fragment& f, uint32_t p) {
  const uint32_t c = f.cp(p);
  if (f.fl(p) & kSpace) return false;
  return (c >= 0x4e00 && c <= 0x9fa5) || (c >= 0x0800 && c <= 0x4e00) || (c >= 0xac00 && c <= 0xd7ff);
}

// The letters DeepSeek LLM's tokenizer lists explicitly (cased letters of several scripts).
constexpr uint32_t kDeepseekLetters[][2] = {
    {0x41, 0x5A}, {0x61, 0x7A}, {0xB5, 0xB5}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x1BA},
    {0x1BC, 0x1BF}, {0x1C4, 0x293}, {0x295, 0x2AF}, {0x370, 0x373}, {0x376, 0x377}, {0x37B, 0x37D},
    {0x37F, 0x37F}, {0x386, 0x386}, {0x388, 0x38A}, {0x38C, 0x38C}, {0x38E, 0x3A1}, {0x3A3, 0x3F5},
    {0x3F7, 0x481}, {0x48A, 0x52F}, {0x531, 0x556}, {0x10A0, 0x10C5}, {0x13A0, 0x13F5}, {0x13F8, 0x13FD},
    {0x1C90, 0x1CBA}, {0x1CBD, 0x1CBF}, {0x1D00, 0x1D2B}, {0x1D6B, 0x1D77}, {0x1D79, 0x1D9A},
    {0x1E00, 0x1F15}, {0x1F18, 0x1F1D}, {0x1F20, 0x1F45}, {0x1F48, 0x1F4D}, {0x1F50, 0x1F57},
    {0x1F59, 0x1F59}, {0x1F5B, 0x1F5B}, {0x1F5D, 0x1F5D}, {0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4},
    {0x1FB6, 0x1FBC}, {0x1FBE, 0x1FBE}, {0x1FC2, 0x1FC4}, {0x1FC6, 0x1FCC}, {0x1FD0, 0x1FD3},
    {0x1FD6, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FF4}, {0x1FF6, 0x1FFC}, {0x2102, 0x2102},
    {0x2107, 0x2107}, {0x210A, 0x2113}, {0x2115, 0x2115}, {0x2119, 0x211D}, {0x2124, 0x2124},
    {0x2126, 0x2126}, {0x2128, 0x2128}, {0x212A, 0x212D}, {0x212F, 0x2134}, {0x2139, 0x2139},
    {0x213C, 0x213F}, {0x2145, 0x2149}, {0x214E, 0x214E}, {0x2183, 0x2184}, {0x2C00, 0x2C7B},
    {0x2C7E, 0x2CE4}, {0x2CEB, 0x2CEE}, {0x2CF2, 0x2CF3}, {0xA640, 0xA66D}, {0xA680, 0xA69B},
    {0xA722, 0xA76F}, {0xA771, 0xA787}, {0xA78B, 0xA78E}, {0xAB70, 0xABBF}, {0xFB00, 0xFB06},
    {0xFB13, 0xFB17}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0x10400, 0x1044F}, {0x104B0, 0x104D3},
    {0x104D8, 0x104FB}, {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
};
bool is_deepseek_letter(const Fragment& f, uint32_t p) {
  const uint32_t c = f.cp(p);
  for (const auto& r : kDeepseekLetters)
    if (c >= r[0] && c <= r[1]) return true;
  return false;
}
// [!-/:-~！-／：-～‘-‟　-。] (U+3000 is white space, replaced before matching).
bool is_deepseek_punct(const Fragment& f, uint32_t p) {
  const uint32_t c = f.cp(p);
  return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x7e) || (c >= 0xff01 && c <= 0xff0f) ||
         (c >= 0xff1a && c <= 0xff5e) || (c >= 0x2018 && c <= 0x201f) || (c >= 0x3001 && c <= 0x3002);
}

template <class Split>
void apply(const Decoded& d, Ends& ends, Ends& scratch, Split split) {
  scratch.clear();
  uint32_t a = 0;
  for (uint32_t e : ends) {
    split(Fragment(d, a, e, scratch));
    a = e;
  }
  ends.swap(scratch);
}

void split_all(PreTokenizerKind kind, const Decoded& d, Ends& ends, Ends& scratch) {
  auto gpt2 = [](Fragment f) { split_gpt2(f); };
  auto single = [](auto pred) {
    return [pred](Fragment f) { regex_pass(f, [pred](const Fragment& g, uint32_t p) { return pred(g, p) ? p + 1 : p; }); };
  };
  auto run = [](auto pred) {
    return [pred](Fragment f) { regex_pass(f, [pred](const Fragment& g, uint32_t p) { return run_of(g, p, pred); }); };
  };
  auto space_run = [](auto pred) {
    return [pred](Fragment f) { regex_pass(f, [pred](const Fragment& g, uint32_t p) { return space_then_run(g, p, pred); }); };
  };
  auto digits3 = [](Fragment f) {
    regex_pass(f, [](const Fragment& g, uint32_t p) {
      return is_ascii_digit(g, p) && is_ascii_digit(g, p + 1) && is_ascii_digit(g, p + 2) ? p + 3 : p;
    });
  };
  auto punct_symbols = [](bool backtick) {
    return [backtick](Fragment f) {
      regex_pass(f, [backtick](const Fragment& g, uint32_t p) {
        return run_of(g, p, [backtick](const Fragment& h, uint32_t q) { return is_punct(h, q) || is_ascii_symbol(h.cp(q), backtick); });
      });
    };
  };
  auto trailing_space = [](Fragment f) {  // \s+$
    uint32_t s = f.b;
    while (s > f.a && (f.fl(s - 1) & kSpace)) --s;
    f.emit(s);
    f.emit(f.b);
  };

  switch (kind) {
    case PreTokenizerKind::Gpt2:
      apply(d, ends, scratch, gpt2);
      break;
    case PreTokenizerKind::Llama3:
      apply(d, ends, scratch, [](Fragment f) { split_llama3(f, 3); });
      break;
    case PreTokenizerKind::Qwen2:
      apply(d, ends, scratch, [](Fragment f) { split_llama3(f, 1); });
      break;
    case PreTokenizerKind::Starcoder:
      apply(d, ends, scratch, single(is_number));
      apply(d, ends, scratch, gpt2);
      break;
    case PreTokenizerKind::Default:
      apply(d, ends, scratch, punct_symbols(false));
      apply(d, ends, scratch, gpt2);
      apply(d, ends, scratch, run(is_number));
      apply(d, ends, scratch, digits3);
      break;
    case PreTokenizerKind::Falcon:
      apply(d, ends, scratch, punct_symbols(true));
      apply(d, ends, scratch, gpt2);
      apply(d, ends, scratch, digits3);
      break;
    case PreTokenizerKind::DeepseekCoder:
      apply(d, ends, scratch, single(is_newline));
      apply(d, ends, scratch, space_run(is_letter));
      apply(d, ends, scratch, space_run(is_punct));
      apply(d, ends, scratch, run(is_cjk));
      apply(d, ends, scratch, single(is_number));
      break;
    case PreTokenizerKind::DeepseekLlm:
      apply(d, ends, scratch, single(is_newline));
      apply(d, ends, scratch, space_run(is_deepseek_letter));
      apply(d, ends, scratch, space_run(is_deepseek_punct));
      apply(d, ends, scratch, trailing_space);
      apply(d, ends, scratch, run(is_cjk));
      apply(d, ends, scratch, run(is_number));
      break;
  }
}

struct NameRow {
  std::string_view name;
  PreTokenizerKind kind;
  bool ignore_merges;
  bool add_bos;
};

// tokenizer.ggml.pre values, as llama.cpp groups them.
constexpr NameRow kNames[] = {
    {"default", PreTokenizerKind::Default, false, false},
    {"llama3", PreTokenizerKind::Llama3, true, true},
    {"llama-v3", PreTokenizerKind::Llama3, true, true},
    {"llama-bpe", PreTokenizerKind::Llama3, true, true},
    {"falcon3", PreTokenizerKind::Llama3, true, true},
    {"dbrx", PreTokenizerKind::Llama3, false, false},
    {"smaug-bpe", PreTokenizerKind::Llama3, false, false},
    {"glm4", PreTokenizerKind::Llama3, false, false},
    {"chatglm-bpe", PreTokenizerKind::Llama3, false, false},
    {"qwen2", PreTokenizerKind::Qwen2, false, false},
    {"deepseek-r1-qwen", PreTokenizerKind::Qwen2, false, false},
    {"stablelm2", PreTokenizerKind::Qwen2, false, false},
    {"megrez", PreTokenizerKind::Qwen2, false, false},
    {"hunyuan", PreTokenizerKind::Qwen2, false, false},
    {"starcoder", PreTokenizerKind::Starcoder, false, false},
    {"refact", PreTokenizerKind::Starcoder, false, false},
    {"smollm", PreTokenizerKind::Starcoder, false, false},
    {"command-r", PreTokenizerKind::Starcoder, false, false},
    {"codeshell", PreTokenizerKind::Starcoder, false, false},
    {"exaone", PreTokenizerKind::Starcoder, false, false},
    {"minerva-7b", PreTokenizerKind::Starcoder, false, false},
    {"gpt-2", PreTokenizerKind::Gpt2, false, false},
    {"phi-2", PreTokenizerKind::Gpt2, false, false},
    {"mpt", PreTokenizerKind::Gpt2, false, false},
    {"olmo", PreTokenizerKind::Gpt2, false, false},
    {"jais", PreTokenizerKind::Gpt2, false, false},
    {"exaone4", PreTokenizerKind::Gpt2, false, false},
    {"mellum", PreTokenizerKind::Gpt2, false, false},
    {"deepseek-coder", PreTokenizerKind::DeepseekCoder, false, false},
    {"deepseek-llm", PreTokenizerKind::DeepseekLlm, false, false},
    {"falcon", PreTokenizerKind::Falcon, false, false},
};

}  // namespace

Result<PreTokenizer> pretokenizer_from_name(std::string_view name) {
  if (name.empty()) name = "default";
  for (const NameRow& r : kNames)
    if (r.name == name) return PreTokenizer{r.kind, r.ignore_merges, r.add_bos};
  return make_error("unsupported pre-tokenizer '" + std::string(name) + "' (tokenizer.ggml.pre)");
}

const char* pretokenizer_kind_name(PreTokenizerKind kind) {
  switch (kind) {
    case PreTokenizerKind::Default: return "default";
    case PreTokenizerKind::Gpt2: return "gpt-2";
    case PreTokenizerKind::Llama3: return "llama3";
    case PreTokenizerKind::Qwen2: return "qwen2";
    case PreTokenizerKind::Starcoder: return "starcoder";
    case PreTokenizerKind::DeepseekCoder: return "deepseek-coder";
    case PreTokenizerKind::DeepseekLlm: return "deepseek-llm";
    case PreTokenizerKind::Falcon: return "falcon";
  }
  return "?";
}

void pretokenize(PreTokenizerKind kind, std::string_view text, std::vector<std::string_view>& words) {
  if (text.empty()) return;
  thread_local Decoded d;
  thread_local Ends ends, scratch;
  decode(text, d);
  ends.assign(1, uint32_t(d.cp.size()));
  split_all(kind, d, ends, scratch);
  uint32_t a = 0;
  for (uint32_t e : ends) {
    words.emplace_back(text.data() + d.off[a], d.off[e] - d.off[a]);
    a = e;
  }
}

}  // namespace wafer
