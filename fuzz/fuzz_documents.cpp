// libFuzzer target for document edits (run: bench/fuzz.sh fuzz_documents SECONDS): random
// didChange sequences applied to a Workspace (text + incremental tree-sitter tree) and,
// independently, to a deliberately naive reference model — the text as a list of
// characters, positions found by walking them — in the position encoding the first byte
// picks (UTF-8 or UTF-16). After every change the two must agree on the text and on
// whether the change was refused (all or nothing); valid positions must round-trip through
// offset_at/position_at; and the incrementally edited syntax tree must equal a fresh parse
// of the same text whenever that text parses without errors.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

#include "server/document/documents.h"
#include "server/document/syntax.h"
#include "server/document/workspace.h"

namespace fuzz_documents {

using wafer::PositionEncoding;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_documents: invariant broken: %s\n", what.c_str());
  std::abort();
}

// What edits insert: one character of each UTF-8 length, every line terminator, and a
// little Python so the tree has structure to get wrong.
const char* const kPieces[] = {"a", "b", " ", "\t", "\n", "\r", "\r\n", "\xc3\xa9" /* é */, "\xe2\x82\xac" /* € */,
                               "\xf0\x9f\x98\x80" /* 😀, a surrogate pair in UTF-16 */, "def f(x):\n", "    ",
                               "return x", "(", ")", ":", "\"s\"", "#c", "if x:\n        pass\n", "class C:\n"};
constexpr size_t kPieceCount = sizeof(kPieces) / sizeof(kPieces[0]);

// The reference: one string per character; lines end at "\n", "\r\n" or "\r".
struct Reference {
  std::vector<std::string> chars;

  static Reference from(std::string_view text) {  // text is valid UTF-8 by construction
    Reference r;
    for (size_t i = 0; i < text.size();) {
      auto b = static_cast<uint8_t>(text[i]);
      size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      r.chars.emplace_back(text.substr(i, n));
      i += n;
    }
    return r;
  }
  std::string text() const {
    std::string t;
    for (const std::string& c : chars) t += c;
    return t;
  }
  // Each line as [first char, end of its content) in char indices.
  std::vector<std::pair<size_t, size_t>> lines() const {
    std::vector<std::pair<size_t, size_t>> out;
    size_t start = 0;
    for (size_t i = 0; i < chars.size(); ++i) {
      if (chars[i] == "\n") {
        out.emplace_back(start, i);
        start = i + 1;
      } else if (chars[i] == "\r") {
        out.emplace_back(start, i);
        if (i + 1 < chars.size() && chars[i + 1] == "\n") ++i;
        start = i + 1;
      }
    }
    out.emplace_back(start, chars.size());
    return out;
  }
  static int64_t width(const std::string& c, PositionEncoding enc) {
    if (enc == PositionEncoding::kUtf8) return static_cast<int64_t>(c.size());
    return c.size() == 4 ? 2 : 1;
  }
  // The char index of a position, or nullopt where the spec (and wafer's rules) refuse it.
  std::optional<size_t> index_at(int64_t line, int64_t character, PositionEncoding enc) const {
    auto ls = lines();
    if (line > static_cast<int64_t>(ls.size()) || (line == static_cast<int64_t>(ls.size()) && character != 0))
      return std::nullopt;
    if (line == static_cast<int64_t>(ls.size())) return chars.size();
    auto [begin, end] = ls[static_cast<size_t>(line)];
    int64_t units = 0;
    for (size_t i = begin; i < end; ++i) {
      if (units == character) return i;
      units += width(chars[i], enc);
      if (units > character) return std::nullopt;  // inside a character
    }
    return end;  // at or past the line end: clamped
  }
  int64_t line_units(size_t line, PositionEncoding enc) const {
    auto [begin, end] = lines()[line];
    int64_t units = 0;
    for (size_t i = begin; i < end; ++i) units += width(chars[i], enc);
    return units;
  }
};

// Reads the fuzzer's bytes as a stream of small numbers (zeros once exhausted).
struct Bytes {
  const uint8_t* p;
  size_t n;
  uint8_t next() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  bool done() const { return n == 0; }
};

std::string pieces(Bytes& in) {
  std::string s;
  for (int k = in.next() % 4; k > 0; --k) s += kPieces[in.next() % kPieceCount];
  return s;
}

// A position near the document's real ones: mostly inside lines, sometimes just past
// the end of a line or of the document.
wafer::TextPosition position(Bytes& in, const Reference& ref, PositionEncoding enc) {
  size_t n_lines = ref.lines().size();
  int64_t line = in.next() % (n_lines + 2);
  int64_t max_units = line < static_cast<int64_t>(n_lines) ? ref.line_units(static_cast<size_t>(line), enc) : 0;
  int64_t character = in.next() % (max_units + 3);
  return {line, character};
}

void check_tree(const wafer::Workspace& ws, const std::string& uri, const wafer::grammars::Language& lang) {
  std::optional<wafer::Workspace::View> v = ws.get(uri);
  if (!v || !v->tree) return;
  wafer::SyntaxTree fresh(lang);
  fresh.reset(v->snapshot->text);
  if (fresh.has_error()) return;  // error recovery may legitimately differ
  char* s = ts_node_string(ts_tree_root_node(v->tree.get()));
  std::string incremental(s);
  std::free(s);
  if (incremental != fresh.sexp()) fail("incremental tree differs from a fresh parse:\n" + incremental + "\n" + fresh.sexp());
}

int run_one(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Bytes in{data, size};
  const uint8_t mode = in.next();
  const PositionEncoding enc = (mode & 1) ? PositionEncoding::kUtf8 : PositionEncoding::kUtf16;
  const bool check_trees = mode & 2;
  const std::string uri = "file:///fuzz.py";
  const wafer::grammars::Language* lang = wafer::detect_language("python", uri);

  wafer::Workspace ws;
  Reference ref = Reference::from(pieces(in));
  if (!ws.open({uri, "python", 1, ref.text()})) fail("open refused without limits");
  int64_t version = 1;
  bool out_of_sync = false;  // a refused change makes it true, a full text false again
  while (!in.done()) {
    ++version;
    std::vector<wafer::TextChange> changes;
    Reference next = ref;
    bool valid = true, full_text = false;
    for (int k = 1 + in.next() % 3; k > 0; --k) {
      wafer::TextChange c;
      c.text = pieces(in);
      if (in.next() % 16 == 0) {  // the whole text
        next = Reference::from(c.text);
        full_text = true;
      } else {
        wafer::TextRange r{position(in, next, enc), position(in, next, enc)};
        if (in.next() % 8 == 0) std::swap(r.start, r.end);
        c.range = r;
        std::optional<size_t> a = next.index_at(r.start.line, r.start.character, enc);
        std::optional<size_t> b = next.index_at(r.end.line, r.end.character, enc);
        if (!a || !b || *b < *a) {
          valid = false;
        } else if (valid) {
          Reference inserted = Reference::from(c.text);
          next.chars.erase(next.chars.begin() + static_cast<std::ptrdiff_t>(*a),
                           next.chars.begin() + static_cast<std::ptrdiff_t>(*b));
          next.chars.insert(next.chars.begin() + static_cast<std::ptrdiff_t>(*a), inserted.chars.begin(),
                            inserted.chars.end());
        }
      }
      changes.push_back(std::move(c));
      // After a refused change the reference stops tracking; later full texts still count.
      if (!valid) break;
    }
    wafer::Status st = ws.change(uri, version, changes, enc);
    if (st.ok() != valid) fail(std::string("change ") + (valid ? "refused: " + st.error().message : "accepted") +
                               " but the reference " + (valid ? "accepts it" : "refuses it"));
    if (valid) ref = std::move(next);
    out_of_sync = !valid || (out_of_sync && !full_text);
    std::optional<wafer::Workspace::View> v = ws.get(uri);
    if (!v) fail("the document vanished");
    if (v->snapshot->text != ref.text()) fail("text differs from the reference");
    if (v->out_of_sync != out_of_sync) fail("out-of-sync flag differs from the reference");
    if (valid && v->snapshot->version != version) fail("version not updated");

    // Positions: offset_at agrees with the reference; position_at inverts it.
    wafer::TextPosition q = position(in, ref, enc);
    std::optional<size_t> idx = ref.index_at(q.line, q.character, enc);
    wafer::Result<size_t> off = wafer::offset_at(*v->snapshot, q, enc);
    if (off.ok() != idx.has_value()) fail("offset_at and the reference disagree on validity");
    if (idx) {
      size_t bytes = 0;
      for (size_t i = 0; i < *idx; ++i) bytes += ref.chars[i].size();
      if (*off != bytes) fail("offset_at differs from the reference");
      wafer::TextPosition back = wafer::position_at(*v->snapshot, *off, enc);
      wafer::Result<size_t> again = wafer::offset_at(*v->snapshot, back, enc);
      if (!again || *again != *off) fail("position_at does not round-trip");
    }
    if (check_trees && lang && valid) check_tree(ws, uri, *lang);
  }
  if (lang) check_tree(ws, uri, *lang);
  return 0;
}

}  // namespace fuzz_documents

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz_documents::run_one(data, size);
}
