#include "server/benchtool/bench_trace.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/base/path_utf8.h"
#include "server/document/utf8.h"

namespace wafer::bench {
namespace {

// An integer field of a trace line: `fallback` when absent, nullopt when it is not a JSON
// integer in [lo, hi] (a fraction or a number past the range is refused, never converted).
std::optional<int64_t> int_field(const nlohmann::json& j, const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(hi)))
    return std::nullopt;
  const int64_t v = it->get<int64_t>();
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

using json = nlohmann::json;

// splitmix64: tiny, portable and the same on every standard library (the std
// distributions are not), so a seed gives the same trace everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double normal() {  // Box-Muller
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Lognormal with mean 1.
  double lognormal(double sigma) { return std::exp(sigma * normal() - sigma * sigma / 2); }

 private:
  uint64_t s_;
};

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The text one keystroke inserts at region[pos]: a character, or Enter with the next
// line's indentation (auto-indent).
std::string keystroke_text(const std::string& region, size_t pos) {
  char c = region[pos];
  if (c == '\n' || (c == '\r' && pos + 1 < region.size() && region[pos + 1] == '\n')) {
    size_t end = pos + (c == '\r' ? 2 : 1);
    while (end < region.size() && (region[end] == ' ' || region[end] == '\t')) ++end;
    return region.substr(pos, end - pos);
  }
  size_t n = utf8_sequence_length(region, pos);
  return region.substr(pos, n ? n : 1);
}

// The gap before typing c after prev, in mean gaps: quick inside a word, slower at word
// starts, a pause before a new line and after one.
double gap_factor(char prev, char c, const TypingModel& m, Rng& rng) {
  double f = 0.8;
  if (c == '\n' || c == '\r') f = m.line_end_pause;
  else if (prev == '\n') f = 1.5;
  else if (!is_word_char(prev) || !is_word_char(c)) f = 1.3;
  f *= rng.lognormal(0.4);
  if (rng.uniform() < m.think_rate) f += 4 + 8 * rng.uniform();
  return f;
}

double round_ms(double ms) { return std::round(ms * 1000) / 1000; }

size_t nth_line_start(const std::string& s, size_t line) {  // line 0-based; clamps
  size_t at = 0;
  for (size_t i = 0; i < line; ++i) {
    size_t nl = s.find('\n', at);
    if (nl == std::string::npos) return at;
    at = nl + 1;
  }
  return at;
}

Status compute_final(Trace& t, const std::string& where_prefix, const std::vector<int>& line_numbers) {
  std::string doc = t.text;
  for (size_t i = 0; i < t.steps.size(); ++i) {
    if (!t.steps[i].edit) continue;
    if (Status s = apply_edit(doc, *t.steps[i].edit); !s)
      return make_error(where_prefix + std::to_string(line_numbers.empty() ? i + 1 : line_numbers[i]) + ": " +
                        s.error().message);
  }
  t.final_text = std::move(doc);
  return {};
}

}  // namespace

Status apply_edit(std::string& doc, const TraceEdit& e) {
  if (e.offset > doc.size() || e.erase > doc.size() - e.offset)
    return make_error("edit at offset " + std::to_string(e.offset) + " erasing " + std::to_string(e.erase) +
                      " bytes does not fit the document (" + std::to_string(doc.size()) + " bytes)");
  doc.replace(e.offset, e.erase, e.insert);
  return {};
}

Result<Trace> synthesize_trace(const std::string& path, const std::string& source, int keystrokes, int start_line,
                               const TypingModel& model) {
  if (keystrokes <= 0) return make_error("keystrokes must be positive");
  if (!(model.wpm > 0)) return make_error("words per minute must be positive");
  size_t lines = 1;
  for (char c : source) lines += c == '\n';
  size_t line = start_line > 0 ? static_cast<size_t>(start_line - 1) : lines / 2;
  if (line >= lines) return make_error("start line " + std::to_string(start_line) + " is past the end of " + path +
                                       " (" + std::to_string(lines) + " lines)");
  const size_t start = nth_line_start(source, line);
  const std::string region = source.substr(start);
  if (region.empty()) return make_error(path + ": nothing to type after line " + std::to_string(line + 1));

  Rng rng(model.seed);
  const double mean_gap = 60000.0 / (model.wpm * 5);
  const auto n = static_cast<size_t>(keystrokes);
  Trace t;
  t.path = path;
  t.language_id = language_for_path(path);
  size_t pos = 0;
  char prev = '\n';
  auto add = [&](const std::string& kind, double factor, TraceEdit e, bool clean) {
    TraceStep s;
    s.delay_ms = round_ms(mean_gap * factor);
    s.kind = kind;
    s.edit = std::move(e);
    s.pos = static_cast<int64_t>(pos);
    s.clean = clean;
    s.draw = rng.uniform();
    t.steps.push_back(std::move(s));
  };
  while (t.steps.size() < n && pos < region.size()) {
    const std::string key = keystroke_text(region, pos);
    const size_t cursor = start + pos;
    const char c = region[pos];
    double factor = gap_factor(prev, c, model, rng);
    if (is_letter(c) && t.steps.size() + 3 <= n && rng.uniform() < model.typo_rate) {
      // A neighbouring letter, noticed at once and fixed.
      std::string wrong(1, c == 'z' ? 'x' : c == 'Z' ? 'X' : static_cast<char>(c + 1));
      add("typo", factor, {cursor, 0, wrong}, true);
      add("backspace", 1.5 * rng.lognormal(0.3), {cursor, 1, ""}, false);
      factor = rng.lognormal(0.4);
    }
    add("type", factor, {cursor, 0, key}, true);
    pos += key.size();
    prev = key.back();
  }
  t.text = source.substr(0, start) + source.substr(start + pos);
  t.final_text = source;
  return t;
}

Result<Trace> parse_trace_jsonl(std::string_view jsonl) {
  Trace t;
  bool header = false;
  double last_t = 0;
  std::vector<int> line_numbers;
  int line_no = 0;
  auto fail = [&](const std::string& m) { return make_error("trace line " + std::to_string(line_no) + ": " + m); };
  while (!jsonl.empty()) {
    size_t nl = jsonl.find('\n');
    std::string_view line = jsonl.substr(0, nl);
    jsonl.remove_prefix(nl == std::string_view::npos ? jsonl.size() : nl + 1);
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) return fail("not valid JSON");
    if (!j.is_object()) return fail("expected a JSON object");
    try {
      if (!header) {
        if (int_field(j, "wafer_trace", 0, 1, 1) != std::optional<int64_t>(1))
          return fail("the first line must be the header {\"wafer_trace\": 1, \"path\": ..., \"text\": ...}");
        header = true;
        t.path = j.value("path", std::string("trace.txt"));
        t.language_id = j.value("language", language_for_path(t.path));
        if (auto text = j.find("text"); text != j.end()) {
          t.text = text->get<std::string>();
        } else {
          std::ifstream in(path_from_utf8(t.path), std::ios::binary);
          if (!in) return fail("no \"text\" in the header and cannot read \"path\" '" + t.path + "'");
          std::stringstream ss;
          ss << in.rdbuf();
          t.text = ss.str();
        }
        continue;
      }
      TraceStep s;
      auto tv = j.find("t");
      if (tv == j.end() || !tv->is_number()) return fail("missing \"t\" (milliseconds since the start)");
      double at = tv->get<double>();
      if (!(at >= last_t)) return fail("\"t\" must not go back in time (" + std::to_string(at) + " after " +
                                       std::to_string(last_t) + ")");
      s.delay_ms = at - last_t;
      last_t = at;
      if (auto e = j.find("edit"); e != j.end()) {
        if (!e->is_object()) return fail("\"edit\" must be an object {offset, delete, insert}");
        auto off = e->find("offset");
        if (off == e->end() || !off->is_number_unsigned()) return fail("edit.offset must be a byte offset >= 0");
        auto del = e->find("delete");
        if (del != e->end() && !del->is_number_unsigned()) return fail("edit.delete must be a byte count >= 0");
        auto ins = e->find("insert");
        if (ins != e->end() && !ins->is_string()) return fail("edit.insert must be a string");
        s.edit = TraceEdit{off->get<size_t>(), del == e->end() ? 0 : del->get<size_t>(),
                           ins == e->end() ? std::string() : ins->get<std::string>()};
      }
      s.request = j.value("request", true);
      s.kind = j.value("kind", std::string(s.edit ? "type" : "invoke"));
      const std::optional<int64_t> pos = int_field(j, "pos", -1, -1, INT64_MAX);
      if (!pos) return fail("\"pos\" must be a byte offset >= 0 (or -1: none)");
      s.pos = *pos;
      s.clean = j.value("clean", false);
      s.draw = j.value("draw", 1.0);
      if (!s.edit && !s.request) return fail("a line needs an \"edit\" or \"request\": true");
      t.steps.push_back(std::move(s));
      line_numbers.push_back(line_no);
    } catch (const json::exception& e) {
      return fail(std::string("wrong type: ") + e.what());
    }
  }
  if (!header) return make_error("trace: empty (no header line)");
  if (Status s = compute_final(t, "trace line ", line_numbers); !s) return s.error();
  return t;
}

std::string trace_to_jsonl(const Trace& t) {
  std::string out = json{{"wafer_trace", 1}, {"path", t.path}, {"language", t.language_id}, {"text", t.text}}.dump() + "\n";
  double at = 0;
  for (const TraceStep& s : t.steps) {
    at += s.delay_ms;
    json j = {{"t", round_ms(at)}, {"request", s.request}, {"kind", s.kind}};
    if (s.edit) j["edit"] = {{"offset", s.edit->offset}, {"delete", s.edit->erase}, {"insert", s.edit->insert}};
    if (s.pos >= 0) {
      j["pos"] = s.pos;
      j["clean"] = s.clean;
      j["draw"] = s.draw;
    }
    out += j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
  return out;
}

std::optional<std::string> truth_at(const std::string& doc, size_t cursor, const std::string& final_text) {
  if (cursor > doc.size()) return std::nullopt;
  const size_t tail = doc.size() - cursor;
  if (final_text.size() < cursor + tail) return std::nullopt;
  if (doc.compare(0, cursor, final_text, 0, cursor) != 0) return std::nullopt;
  if (doc.compare(cursor, tail, final_text, final_text.size() - tail, tail) != 0) return std::nullopt;
  return final_text.substr(cursor, final_text.size() - tail - cursor);
}

std::string language_for_path(const std::string& path) {
  static const std::pair<const char*, const char*> table[] = {
      {".py", "python"},     {".js", "javascript"}, {".mjs", "javascript"}, {".ts", "typescript"},
      {".tsx", "typescriptreact"}, {".c", "c"},     {".h", "c"},            {".cc", "cpp"},
      {".cpp", "cpp"},       {".hpp", "cpp"},       {".rs", "rust"},        {".go", "go"},
      {".java", "java"},     {".lua", "lua"},       {".sh", "shellscript"}, {".json", "json"},
  };
  for (const auto& [ext, id] : table)
    if (path.size() >= std::string_view(ext).size() && path.ends_with(ext)) return id;
  return "plaintext";
}

}  // namespace wafer::bench
