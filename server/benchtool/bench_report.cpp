#include "server/benchtool/bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "server/service/stats.h"

namespace wafer::bench {
namespace {

using json = nlohmann::json;

double round3(double v) { return std::round(v * 1000) / 1000; }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ms(double v) { return fmt("%.1f", v); }

}  // namespace

Percentiles percentiles(std::vector<double> values) {
  Percentiles p;
  p.count = values.size();
  if (values.empty()) return p;
  p.p50 = nearest_rank(values, 0.5);
  p.p90 = nearest_rank(values, 0.9);
  p.p99 = nearest_rank(values, 0.99);
  double sum = 0;
  for (double v : values) sum += v;
  p.mean = sum / static_cast<double>(values.size());
  p.max = *std::max_element(values.begin(), values.end());
  return p;
}

namespace {

// The keystroke after `at` (-1: none), from the sorted keystroke times.
double next_key_after(const std::vector<double>& keys, double at) {
  auto it = std::upper_bound(keys.begin(), keys.end(), at);
  return it == keys.end() ? -1 : *it;
}

void headlines(const std::vector<RequestRecord>& records, std::vector<double> keys, Summary& s) {
  if (keys.empty())
    for (const RequestRecord& r : records) keys.push_back(r.at_ms);
  std::sort(keys.begin(), keys.end());
  std::vector<double> typing_ms, pause_ms;
  for (const RequestRecord& r : records) {
    if (r.trigger == "accept") continue;  // a simulated Tab, not a keystroke that asked
    const double next = next_key_after(keys, r.at_ms);
    const bool pause = next < 0 || next - r.at_ms >= kPauseMs;
    // Streamed text counts from its first part: it was on screen even if a later keystroke
    // cancelled the rest.
    const bool shown = r.first_text_ms >= 0 && r.outcome != "error" && (next < 0 || r.at_ms + r.first_text_ms <= next);
    ++s.typing.keystrokes;
    if (pause) ++s.pauses.keystrokes;
    if (!shown) continue;
    ++s.typing.shown;
    typing_ms.push_back(r.first_text_ms);
    if (!pause) continue;
    ++s.pauses.shown;
    pause_ms.push_back(r.first_text_ms);
  }
  for (auto [h, v] : {std::pair{&s.typing, &typing_ms}, std::pair{&s.pauses, &pause_ms}}) {
    h->first_ghost_ms = percentiles(*v);
    if (h->keystrokes) h->shown_rate = static_cast<double>(h->shown) / h->keystrokes;
  }
}

}  // namespace

Summary summarize(const std::vector<RequestRecord>& records, int keystrokes, double duration_ms,
                  const std::vector<double>& key_times_ms) {
  Summary s;
  headlines(records, key_times_ms, s);
  s.keystrokes = keystrokes;
  s.requests = static_cast<int>(records.size());
  s.duration_ms = duration_ms;
  std::vector<double> first, final_, reused, prefilled, generated;
  int judged = 0, answered = 0;
  double accepted_chars = 0, matched_chars = 0;
  for (const RequestRecord& r : records) {
    ++s.outcomes[r.outcome];
    const bool answer = r.outcome == "shown" || r.outcome == "empty";
    if (!answer) continue;
    ++answered;
    ++s.served_by[r.served_by];
    final_.push_back(r.final_ms);
    if (r.first_text_ms >= 0) first.push_back(r.first_text_ms);
    if (r.tokens_reused >= 0) reused.push_back(r.tokens_reused);
    if (r.tokens_prefilled >= 0) prefilled.push_back(r.tokens_prefilled);
    if (r.tokens_generated >= 0) generated.push_back(r.tokens_generated);
    if (r.outcome != "shown") continue;
    ++s.shown;
    if (r.taken) ++s.taken;
    if (!r.truth_known) continue;
    ++judged;
    matched_chars += r.matched_chars;
    if (r.accepted) {
      ++s.accepted;
      accepted_chars += static_cast<double>(r.text.size());
    }
  }
  s.first_text_ms = percentiles(first);
  s.final_ms = percentiles(final_);
  s.tokens_reused = percentiles(reused);
  s.tokens_prefilled = percentiles(prefilled);
  s.tokens_generated = percentiles(generated);
  if (judged) {
    s.acceptance_rate = static_cast<double>(s.accepted) / judged;
    s.matched_chars_per_suggestion = matched_chars / judged;
  }
  if (s.accepted) s.accepted_chars_per_suggestion = accepted_chars / s.accepted;
  if (duration_ms > 0) s.requests_per_s = answered * 1000.0 / duration_ms;
  return s;
}

json to_json(const Percentiles& p) {
  return {{"count", p.count}, {"p50", round3(p.p50)}, {"p90", round3(p.p90)}, {"p99", round3(p.p99)},
          {"mean", round3(p.mean)}, {"max", round3(p.max)}};
}

json to_json(const Headline& h) {
  return {{"keystrokes", h.keystrokes}, {"shown", h.shown}, {"shown_rate", round3(h.shown_rate)},
          {"first_ghost_ms", to_json(h.first_ghost_ms)}};
}

json to_json(const Summary& s) {
  json j = {{"keystrokes", s.keystrokes},
            {"headline", {{"typing", to_json(s.typing)}, {"pauses", to_json(s.pauses)}, {"pause_ms", kPauseMs}}},
            {"requests", s.requests},
            {"duration_ms", round3(s.duration_ms)},
            {"first_text_ms", to_json(s.first_text_ms)},
            {"final_ms", to_json(s.final_ms)},
            {"outcomes", s.outcomes},
            {"served_by", s.served_by},
            {"shown", s.shown},
            {"accepted", s.accepted},
            {"taken", s.taken},
            {"acceptance_rate", round3(s.acceptance_rate)},
            {"accepted_chars_per_suggestion", round3(s.accepted_chars_per_suggestion)},
            {"matched_chars_per_suggestion", round3(s.matched_chars_per_suggestion)},
            {"requests_per_s", round3(s.requests_per_s)}};
  if (s.tokens_generated.count) {
    j["tokens_reused"] = to_json(s.tokens_reused);
    j["tokens_prefilled"] = to_json(s.tokens_prefilled);
    j["tokens_generated"] = to_json(s.tokens_generated);
  }
  return j;
}

json to_json(const RequestRecord& r) {
  json j = {{"id", r.id},
            {"step", r.step},
            {"trigger", r.trigger},
            {"at_ms", round3(r.at_ms)},
            {"first_text_ms", r.first_text_ms < 0 ? json(nullptr) : json(round3(r.first_text_ms))},
            {"final_ms", r.final_ms < 0 ? json(nullptr) : json(round3(r.final_ms))},
            {"outcome", r.outcome},
            {"cancel_sent", r.cancel_sent},
            {"text", r.text},
            {"truth_known", r.truth_known},
            {"matched_chars", r.matched_chars},
            {"accepted", r.accepted},
            {"taken", r.taken},
            {"served_by", r.served_by}};
  if (r.error_code) j["error"] = {{"code", r.error_code}, {"message", r.error}};
  if (r.tokens_reused >= 0) j["tokens_reused"] = r.tokens_reused;
  if (r.tokens_prefilled >= 0) j["tokens_prefilled"] = r.tokens_prefilled;
  if (r.tokens_generated >= 0) j["tokens_generated"] = r.tokens_generated;
  return j;
}

json to_json(const RunReport& r) {
  json requests = json::array();
  for (const RequestRecord& q : r.requests) requests.push_back(to_json(q));
  return {{"target", r.target},           {"summary", to_json(r.summary)}, {"server_stats", r.server_stats},
          {"server_errors", r.server_errors}, {"requests", requests}};
}

std::string format_server_stats(const json& stats) {
  if (!stats.is_object()) return "";
  const json counts = stats.value("counts", json::object());
  const json latency = stats.value("latency_ms", json::object());
  auto count = [&](const char* k) { return counts.value(k, 0.0); };
  auto p = [&](const char* k, const char* q) { return latency.contains(k) ? latency[k].value(q, 0.0) : 0.0; };
  std::string out;
  const double answers = count("outcome_done") + count("outcome_error");
  if (answers > 0)
    out += "server: prefilled " + fmt("%.0f", count("prefilled_tokens") / answers) + " and reused " +
           fmt("%.0f", count("reused_tokens") / answers) + " tokens per engine answer (mean); suffix cut by the "
           "latency budget on " + fmt("%.0f", count("budget_cuts")) + " of " + fmt("%.0f", answers) + " (" +
           fmt("%.0f", count("budget_cut_tokens")) + " tokens)\n";
  const double changes = count("changes");
  const double parts[] = {count("prefilled_part_extra"), count("prefilled_part_prefix"),
                          count("prefilled_part_suffix"), count("prefilled_part_frame")};
  if (changes > 0 && parts[0] + parts[1] + parts[2] + parts[3] > 0)
    out += "server: all engine prefill per edit (mean of " + fmt("%.0f", changes) + "): " +
           fmt("%.1f", (parts[0] + parts[1] + parts[2] + parts[3]) / changes) + " tokens: other files " +
           fmt("%.1f", parts[0] / changes) + ", before the cursor " + fmt("%.1f", parts[1] / changes) +
           ", after it " + fmt("%.1f", parts[2] / changes) + ", markers and headers " + fmt("%.1f", parts[3] / changes) +
           "\n";
  if (latency.contains("typing_budget_ms"))
    out += "server: typing budget p50 " + ms(p("typing_budget_ms", "p50")) + " ms on " +
           fmt("%.0f", p("typing_budget_ms", "count")) + " requests (the rhythm's share of latencyBudgetMs)\n";
  for (auto [key, what] : {std::pair{"typing_through_ms", "from the last suggestion (typed-through)"},
                           std::pair{"ahead_answer_ms", "from the continuation decoded ahead"}})
    if (latency.contains(key))
      out += std::string("server: ") + fmt("%.0f", p(key, "count")) + " answers " + what + ", p50 " + ms(p(key, "p50")) +
             "  p99 " + ms(p(key, "p99")) + " ms inside the daemon\n";
  const double requests = count("inline_requests");
  const double sources[] = {count("extra_tokens_open"), count("extra_tokens_index"), count("extra_tokens_same_file"),
                            count("extra_tokens_recent")};
  if (requests > 0 && sources[0] + sources[1] + sources[2] + sources[3] > 0)
    out += "server: extra context per request (estimated tokens, mean): open files " + fmt("%.0f", sources[0] / requests) +
           ", workspace index " + fmt("%.0f", sources[1] / requests) + ", same file " +
           fmt("%.0f", sources[2] / requests) + ", recent edits " + fmt("%.0f", sources[3] / requests) + "\n";
  if (count("drafts_proposed") > 0) {
    const double model = count("model_drafts_proposed"), model_ok = count("model_drafts_accepted");
    const double lookup = count("drafts_proposed") - model, lookup_ok = count("drafts_accepted") - model_ok;
    out += "server: drafted tokens the model accepted (answered requests): prompt lookup " + fmt("%.0f", lookup_ok) +
           " of " + fmt("%.0f", lookup) + ", draft model " + fmt("%.0f", model_ok) + " of " + fmt("%.0f", model) + "\n";
  }
  if (count("draft_behind") > 0)
    out += "server: the draft model sat out " + fmt("%.0f", count("draft_behind")) +
           " requests whose prompt it was far behind; caught up after " +
           fmt("%.0f", count("draft_catch_up_outcome_done")) + " of them\n";
  // Keystrokes answered with nothing on purpose: what the replay's shown rate does not count.
  if (count("confidence_reported") > 0)
    out += "server: the confidence gate held back " + fmt("%.0f", count("held_back_low_confidence")) + " of " +
           fmt("%.0f", count("confidence_reported")) + " suggestions (" + fmt("%.0f", count("retracted_low_confidence")) +
           " after their start had streamed)\n";
  if (latency.contains("background_wait_ms"))
    out += "server: waited behind background work p50 " + ms(p("background_wait_ms", "p50")) + "  p99 " +
           ms(p("background_wait_ms", "p99")) + " ms; behind the early prefill of its own prompt p50 " +
           ms(p("own_prefill_wait_ms", "p50")) + "  p99 " + ms(p("own_prefill_wait_ms", "p99")) + " ms\n";
  return out;
}

std::string format_summary(const RunReport& r) {
  const Summary& s = r.summary;
  std::string out = "target: " + r.target + "\n";
  auto headline = [&](const char* name, const Headline& h) {
    out += std::string(name) + fmt("%.2f", h.shown_rate) + " (" + std::to_string(h.shown) + " of " +
           std::to_string(h.keystrokes) + " before the next keystroke); first ghost text p50 " +
           ms(h.first_ghost_ms.p50) + "  p90 " + ms(h.first_ghost_ms.p90) + " ms\n";
  };
  headline("shown rate:              ", s.typing);
  headline("shown rate, pauses only: ", s.pauses);
  out += std::to_string(s.keystrokes) + " keystrokes, " + std::to_string(s.requests) + " requests in " +
         fmt("%.1f", s.duration_ms / 1000) + " s (" + fmt("%.1f", s.requests_per_s) + " answers/s)\n";
  auto row = [&](const char* name, const Percentiles& p) {
    out += std::string(name) + "  p50 " + ms(p.p50) + "  p90 " + ms(p.p90) + "  p99 " + ms(p.p99) + "  max " +
           ms(p.max) + " ms  (n=" + std::to_string(p.count) + ")\n";
  };
  row("keystroke -> first text:", s.first_text_ms);
  row("keystroke -> final:     ", s.final_ms);
  out += "outcomes:";
  for (const auto& [k, v] : s.outcomes) out += " " + k + " " + std::to_string(v);
  out += "\nserved by:";
  for (const auto& [k, v] : s.served_by) out += " " + k + " " + std::to_string(v);
  out += "\n";
  if (s.tokens_generated.count)
    out += "tokens per answer (p50): reused " + fmt("%.0f", s.tokens_reused.p50) + ", prefilled " +
           fmt("%.0f", s.tokens_prefilled.p50) + ", generated " + fmt("%.0f", s.tokens_generated.p50) + "\n";
  out += "acceptance: " + std::to_string(s.accepted) + " of " + std::to_string(s.shown) + " shown suggestions (" +
         fmt("%.1f", 100 * s.acceptance_rate) + " %), " + fmt("%.1f", s.accepted_chars_per_suggestion) +
         " chars per accepted suggestion, " + fmt("%.1f", s.matched_chars_per_suggestion) +
         " matching chars per shown suggestion; Tab pressed " + std::to_string(s.taken) + " times\n";
  out += format_server_stats(r.server_stats);
  for (const std::string& e : r.server_errors) out += "server error: " + e + "\n";
  return out;
}

std::string format_comparison(const std::vector<RunReport>& runs) {
  if (runs.empty()) return "";
  std::string out;
  auto cell = [](std::string s) {
    if (s.size() < 22) s.resize(22, ' ');
    return s;
  };
  out += cell("");
  for (size_t i = 0; i < runs.size(); ++i) out += cell("[" + std::to_string(i + 1) + "]");
  out += "\n";
  auto line = [&](const char* name, auto get, bool ratio) {
    out += cell(name);
    const double base = get(runs[0].summary);
    for (size_t i = 0; i < runs.size(); ++i) {
      double v = get(runs[i].summary);
      std::string c = fmt("%.1f", v);
      if (ratio && i > 0 && base > 0) c += " (" + fmt("%.2fx", v / base) + ")";
      out += cell(c);
    }
    out += "\n";
  };
  line("shown %", [](const Summary& s) { return 100 * s.typing.shown_rate; }, false);
  line("shown % (pauses)", [](const Summary& s) { return 100 * s.pauses.shown_rate; }, false);
  line("first ghost p50 ms", [](const Summary& s) { return s.typing.first_ghost_ms.p50; }, true);
  line("first ghost p90 ms", [](const Summary& s) { return s.typing.first_ghost_ms.p90; }, true);
  line("first text p50 ms", [](const Summary& s) { return s.first_text_ms.p50; }, true);
  line("first text p90 ms", [](const Summary& s) { return s.first_text_ms.p90; }, true);
  line("first text p99 ms", [](const Summary& s) { return s.first_text_ms.p99; }, true);
  line("final p50 ms", [](const Summary& s) { return s.final_ms.p50; }, true);
  line("final p90 ms", [](const Summary& s) { return s.final_ms.p90; }, true);
  line("final p99 ms", [](const Summary& s) { return s.final_ms.p99; }, true);
  line("answers/s", [](const Summary& s) { return s.requests_per_s; }, true);
  line("acceptance %", [](const Summary& s) { return 100 * s.acceptance_rate; }, false);
  line("chars/accepted", [](const Summary& s) { return s.accepted_chars_per_suggestion; }, false);
  for (size_t i = 0; i < runs.size(); ++i) out += "[" + std::to_string(i + 1) + "] " + runs[i].target + "\n";
  return out;
}

}  // namespace wafer::bench
