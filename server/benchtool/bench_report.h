// What `wafer bench` measures and how it sums it up: one record per completion request
// (times from the keystroke, outcome, what the server says it did, whether the suggestion
// matched what the user then typed), a summary of a run (percentiles, served-by counts,
// acceptance), its JSON form and the terminal text, and the side-by-side comparison of
// several runs on the same trace.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wafer::bench {

struct RequestRecord {
  int id = 0;                // 1, 2, ... in the order sent
  int step = -1;             // index of the trace step that triggered it
  std::string trigger;       // the step's kind, or "accept" after a simulated Tab
  double at_ms = 0;          // keystroke time since the start of the replay
  double first_text_ms = -1; // keystroke -> first non-empty suggestion text (partial or final); -1: none
  double final_ms = -1;      // keystroke -> final result; -1: none
  // "shown" (non-empty final result for the current text), "empty", "stale" (answered
  // after the text changed), "cancelled", "superseded" (the server answered it empty
  // because a newer request replaced it, before or without a cancel), "error", "timeout"
  std::string outcome = "timeout";
  bool cancel_sent = false;  // the client sent $/cancelRequest (a newer keystroke came)
  int error_code = 0;
  std::string error;
  std::string text;          // the final suggestion
  bool truth_known = false;  // false while a typo is pending
  int matched_chars = 0;     // common prefix of suggestion and what was typed next
  bool accepted = false;     // the whole suggestion is what the user typed next
  bool taken = false;        // the simulated user pressed Tab on it
  std::string served_by = "unknown";  // "engine", "cache", "typing", ... as the server reports
  int tokens_reused = -1, tokens_prefilled = -1, tokens_generated = -1;  // -1: not reported
};

struct Percentiles {
  size_t count = 0;
  double p50 = 0, p90 = 0, p99 = 0, mean = 0, max = 0;
};

// Nearest-rank percentiles (q = 0.5 of {1,2,3,4} is 2).
Percentiles percentiles(std::vector<double> values);

// What the user sees while typing: of the keystrokes that asked for a suggestion, how many
// had ghost text on screen before the next keystroke (the "shown rate"), and how long it
// took from the keystroke to the first ghost text for those.
struct Headline {
  int keystrokes = 0;         // keystrokes that sent a completion request
  int shown = 0;              // ... whose first non-empty text arrived before the next keystroke
  double shown_rate = 0;      // shown / keystrokes
  Percentiles first_ghost_ms; // keystroke -> first ghost text, over the shown ones
};

// A keystroke followed by at least this long without another is a pause: when a user looks.
inline constexpr double kPauseMs = 500;

struct Summary {
  int keystrokes = 0;
  Headline typing;  // every keystroke that asked
  Headline pauses;  // only those followed by a pause (or the end of the trace)
  int requests = 0;
  double duration_ms = 0;
  Percentiles first_text_ms, final_ms;
  std::map<std::string, int> outcomes;
  std::map<std::string, int> served_by;  // over answered requests (shown or empty)
  int shown = 0;                 // suggestions shown to the user
  int accepted = 0;              // shown suggestions that match what was typed next
  int taken = 0;                 // accepted by the simulated user (Tab)
  double acceptance_rate = 0;    // accepted / shown (with known truth)
  double accepted_chars_per_suggestion = 0;  // mean length of accepted suggestions
  double matched_chars_per_suggestion = 0;   // mean useful prefix over shown suggestions
  double requests_per_s = 0;     // answered requests per second of replay
  Percentiles tokens_reused, tokens_prefilled, tokens_generated;  // where reported
};

// key_times_ms: the time of every keystroke since the start (requests or not), sorted; when
// empty, the requests' own times stand for them.
Summary summarize(const std::vector<RequestRecord>& records, int keystrokes, double duration_ms,
                  const std::vector<double>& key_times_ms = {});

nlohmann::json to_json(const Percentiles& p);
nlohmann::json to_json(const Summary& s);
nlohmann::json to_json(const RequestRecord& r);

// One run of a trace against one target.
struct RunReport {
  std::string target;   // e.g. "wafer lsp --model m.gguf"
  Summary summary;
  std::vector<RequestRecord> requests;
  nlohmann::json server_stats;  // what the server reported at the end (wafer/stats), or null
  std::vector<std::string> server_errors;  // errors it logged, first ones, distinct
};

nlohmann::json to_json(const RunReport& r);

// The daemon's own account of a run (wafer/stats at its end): tokens prefilled and reused
// per answer, latency-budget cuts, waits behind background work. "" when it gave none.
std::string format_server_stats(const nlohmann::json& stats);

// The terminal summary of a run.
std::string format_summary(const RunReport& r);
// Several runs on the same trace: one column each, ratios against the first.
std::string format_comparison(const std::vector<RunReport>& runs);

}  // namespace wafer::bench
