// libFuzzer target for `wafer bench` typing traces: the recorded JSON-lines format
// (parse_trace_jsonl, trace_to_jsonl) and the synthesized typist (synthesize_trace).
//
// Input: the first byte picks the mode. Even: the rest is a JSON-lines trace file. Odd:
// the second byte gives the keystrokes (1-64), the third the start line (0-7) and the
// typo rate, the rest is the source file the typist types back.
// Checks, besides memory safety and undefined behaviour: an accepted trace's edits all fit,
// in order, and lead to its final text; writing it and reading it back gives the same
// document, edits and final text; a synthesized trace starts from the source less the
// typed region, ends at the source, and at every clean step the truth is what is typed
// from there on.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/benchtool/bench_trace.h"
#include "engine/base/utf8.h"

namespace fuzz_trace {

using wafer::bench::Trace;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_trace: promise broken: %s\n", what.c_str());
  std::abort();
}

// Replays the edits on the starting text; checks they fit and end at the final text.
void check_replay(const Trace& t) {
  std::string doc = t.text;
  for (const wafer::bench::TraceStep& s : t.steps) {
    if (!s.edit) continue;
    if (!wafer::bench::apply_edit(doc, *s.edit)) fail("an edit of an accepted trace does not fit");
    (void)wafer::bench::truth_at(doc, wafer::bench::cursor_after(*s.edit), t.final_text);
  }
  if (doc != t.final_text) fail("the edits do not lead to the final text");
}

void check_round_trip(const Trace& t) {
  wafer::Result<Trace> back = wafer::bench::parse_trace_jsonl(wafer::bench::trace_to_jsonl(t));
  if (!back) fail("a written trace does not read back: " + back.error().message);
  if (back->text != t.text || back->path != t.path || back->language_id != t.language_id ||
      back->final_text != t.final_text || back->steps.size() != t.steps.size())
    fail("a written trace reads back different");
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const auto &a = t.steps[i], &b = back->steps[i];
    if (a.request != b.request || a.kind != b.kind || a.pos != b.pos || a.edit.has_value() != b.edit.has_value())
      fail("step " + std::to_string(i) + " reads back different");
    if (a.edit && (a.edit->offset != b.edit->offset || a.edit->erase != b.edit->erase || a.edit->insert != b.edit->insert))
      fail("step " + std::to_string(i) + "'s edit reads back different");
  }
}

void recorded(std::string_view jsonl) {
  // A header without "text" reads the file its "path" names: not this target's business
  // (a fuzzed path could name a device that never ends).
  std::string_view first = jsonl.substr(0, jsonl.find('\n'));
  nlohmann::json header = nlohmann::json::parse(first, nullptr, /*allow_exceptions=*/false);
  if (header.is_object() && !header.contains("text")) return;
  wafer::Result<Trace> t = wafer::bench::parse_trace_jsonl(jsonl);
  if (!t) {
    if (t.error().message.empty()) fail("an error without a message");
    return;
  }
  check_replay(*t);
  check_round_trip(*t);
}

void synthesized(const uint8_t* data, size_t size) {
  if (size < 2) return;
  wafer::bench::TypingModel model;
  model.typo_rate = (data[1] >> 3) / 31.0 * 0.5;
  model.seed = data[0];
  const int keystrokes = 1 + data[0] % 64;
  const int start_line = data[1] & 7;
  std::string source(reinterpret_cast<const char*>(data) + 2, size - 2);
  wafer::Result<Trace> t = wafer::bench::synthesize_trace("fuzz.py", source, keystrokes, start_line, model);
  if (!t) return;
  if (t->final_text != source) fail("a synthesized trace does not end at the source");
  if (t->steps.empty() || t->steps.size() > static_cast<size_t>(keystrokes)) fail("wrong number of steps");
  std::string doc = t->text;
  for (const wafer::bench::TraceStep& s : t->steps) {
    if (!s.edit) fail("a synthesized step without an edit");
    if (s.clean && !wafer::bench::truth_at(doc, s.edit->offset, source))
      fail("no truth at a clean step");
    if (!wafer::bench::apply_edit(doc, *s.edit)) fail("a synthesized edit does not fit");
  }
  if (doc != source) fail("the synthesized edits do not lead to the source");
  // JSON text holds UTF-8 only: other sources are synthesized but not written.
  if (wafer::is_valid_utf8(source)) check_round_trip(*t);
}

int run_one(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1) synthesized(data + 1, size - 1);
  else recorded(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  return 0;
}

}  // namespace fuzz_trace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_trace::run_one(data, size); }
