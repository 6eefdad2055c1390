// Typing traces for `wafer bench`: what an editor user does to one document, keystroke by
// keystroke, with the time between keystrokes. A trace is either synthesized from a source
// file (a region of it is removed and typed back by a seeded model of a typist: bursts,
// pauses at line ends, occasional typos fixed with backspace) or read from a recorded
// JSON-lines file (format in README.md, "Trace files"). The trace knows the truth: the
// document after the last step, so a suggestion can be checked against what the user
// typed next.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/result.h"

namespace wafer::bench {

// One text change in bytes: `erase` bytes at `offset` are replaced by `insert`.
struct TraceEdit {
  size_t offset = 0;
  size_t erase = 0;
  std::string insert;
};

struct TraceStep {
  double delay_ms = 0;            // time since the previous step (the first: since the start)
  std::optional<TraceEdit> edit;  // none: an explicit request without an edit
  bool request = true;            // ask for a completion after the edit
  std::string kind = "type";      // "type", "typo", "backspace", "invoke" (informational)
  // Synthesized traces: the position in the typed region before this step, and whether
  // the document then holds exactly the region's first `pos` bytes (no typo pending).
  // Accepting a suggestion jumps to the next clean step past the accepted text.
  int64_t pos = -1;
  bool clean = false;
  double draw = 1.0;  // uniform in [0,1): a matching suggestion is accepted when draw < p
};

struct Trace {
  std::string path;         // the source file (gives the document URI)
  std::string language_id;  // LSP languageId
  std::string text;         // the document before the first step
  std::vector<TraceStep> steps;
  std::string final_text;   // the document after the last step (computed on load)
};

// The typist. Gaps are lognormal around the mean implied by `wpm` (5 characters a word).
struct TypingModel {
  double wpm = 50;
  double typo_rate = 0.03;       // chance that a letter is first mistyped, then fixed
  double line_end_pause = 3.0;   // pause before a new line, in mean gaps
  double think_rate = 0.02;      // chance of a longer pause before a keystroke
  uint64_t seed = 1;
};

// Synthesizes a trace: `keystrokes` steps typing the region that starts at the beginning
// of line `start_line` (1-based; 0 = the middle of the file). Enter inserts the newline
// and the next line's indentation at once, as editors auto-indent. Deterministic for a
// given source, options and seed.
Result<Trace> synthesize_trace(const std::string& path, const std::string& source, int keystrokes, int start_line,
                               const TypingModel& model);

// Parses a JSON-lines trace. Errors name the line ("trace line 3: ..."). `text` of the
// header may be absent when `path` names a readable file.
Result<Trace> parse_trace_jsonl(std::string_view jsonl);
// Writes a trace in the same format (parse_trace_jsonl(trace_to_jsonl(t)) gives t back).
std::string trace_to_jsonl(const Trace& trace);

// Applies an edit, checking that it lies inside the document.
Status apply_edit(std::string& doc, const TraceEdit& edit);

// The cursor after an edit (the end of the inserted text).
inline size_t cursor_after(const TraceEdit& e) { return e.offset + e.insert.size(); }

// What the user goes on to type at `cursor`: the final document's text between the cursor
// and the part after the cursor that is already there. nullopt when the text before the
// cursor differs from the final document's (a typo is pending) or the text after it does.
std::optional<std::string> truth_at(const std::string& doc, size_t cursor, const std::string& final_text);

// The LSP languageId for a file name ("plaintext" when unknown).
std::string language_for_path(const std::string& path);

}  // namespace wafer::bench
