#include "server/benchtool/bench_report.h"

#include <catch2/catch.hpp>

using namespace wafer::bench;

namespace {

RequestRecord answered(double first, double final_ms, const std::string& text, bool truth_known, int matched,
                       bool accepted) {
  RequestRecord r;
  r.first_text_ms = first;
  r.final_ms = final_ms;
  r.text = text;
  r.outcome = text.empty() ? "empty" : "shown";
  r.truth_known = truth_known;
  r.matched_chars = matched;
  r.accepted = accepted;
  r.served_by = "engine";
  r.tokens_generated = 4;
  r.tokens_prefilled = 10;
  r.tokens_reused = 100;
  return r;
}

}  // namespace

TEST_CASE("percentiles are nearest-rank") {
  Percentiles p = percentiles({5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
  CHECK(p.count == 10);
  CHECK(p.p50 == 5);
  CHECK(p.p90 == 9);
  CHECK(p.p99 == 10);
  CHECK(p.max == 10);
  CHECK(p.mean == Approx(5.5));
  Percentiles q = percentiles({1, 2, 3, 4});
  CHECK(q.p50 == 2);
  CHECK(percentiles({}).count == 0);
  CHECK(percentiles({}).p50 == 0);
}

TEST_CASE("summary of known records") {
  std::vector<RequestRecord> rs;
  rs.push_back(answered(10, 20, "abc", true, 3, true));        // accepted, 3 chars
  rs.push_back(answered(30, 40, "abcdef", true, 2, false));    // 2 useful chars
  rs.push_back(answered(-1, 50, "", true, 0, false));          // empty: no first text
  rs.push_back(answered(20, 25, "xy", false, 0, false));       // typo pending: not judged
  rs.back().taken = false;
  RequestRecord cancelled;
  cancelled.outcome = "cancelled";
  cancelled.first_text_ms = 1;  // partial text before the cancel does not count
  rs.push_back(cancelled);
  RequestRecord err;
  err.outcome = "error";
  rs.push_back(err);
  rs[0].taken = true;

  Summary s = summarize(rs, 8, 2000);
  CHECK(s.keystrokes == 8);
  CHECK(s.requests == 6);
  CHECK(s.outcomes["shown"] == 3);
  CHECK(s.outcomes["empty"] == 1);
  CHECK(s.outcomes["cancelled"] == 1);
  CHECK(s.outcomes["error"] == 1);
  CHECK(s.served_by["engine"] == 4);
  CHECK(s.first_text_ms.count == 3);  // 10, 30, 20
  CHECK(s.first_text_ms.p50 == 20);
  CHECK(s.final_ms.count == 4);       // 20, 40, 50, 25
  CHECK(s.final_ms.p50 == 25);
  CHECK(s.final_ms.p99 == 50);
  CHECK(s.shown == 3);
  CHECK(s.accepted == 1);
  CHECK(s.taken == 1);
  CHECK(s.acceptance_rate == Approx(0.5));  // 1 of the 2 judged
  CHECK(s.accepted_chars_per_suggestion == Approx(3));
  CHECK(s.matched_chars_per_suggestion == Approx(2.5));
  CHECK(s.requests_per_s == Approx(2.0));  // 4 answers in 2 s
  CHECK(s.tokens_generated.p50 == 4);

  auto j = to_json(s);
  CHECK(j["keystrokes"] == 8);
  CHECK(j["first_text_ms"]["p50"] == 20.0);
  CHECK(j["final_ms"]["p90"] == 50.0);
  CHECK(j["served_by"]["engine"] == 4);
  CHECK(j["acceptance_rate"] == 0.5);

  RunReport run{"demo", s, rs, nullptr, {"boom"}};
  auto rj = to_json(run);
  CHECK(rj["requests"].size() == 6);
  CHECK(rj["requests"][2]["first_text_ms"].is_null());
  CHECK(rj["server_errors"][0] == "boom");
  std::string text = format_summary(run);
  CHECK(text.find("p50 20.0") != std::string::npos);
  CHECK(text.find("1 of 3 shown") != std::string::npos);
  CHECK(text.find("server error: boom") != std::string::npos);
}

TEST_CASE("comparison shows ratios against the first run") {
  RunReport a, b;
  a.target = "fast";
  b.target = "slow";
  a.summary.first_text_ms.p50 = 10;
  b.summary.first_text_ms.p50 = 25;
  std::string t = format_comparison({a, b});
  CHECK(t.find("(2.50x)") != std::string::npos);
  CHECK(t.find("[1] fast") != std::string::npos);
  CHECK(t.find("[2] slow") != std::string::npos);
}

TEST_CASE("headline: shown before the next keystroke, overall and over pauses") {
  auto at = [](double t, double first, const char* outcome = "shown") {
    RequestRecord r;
    r.at_ms = t;
    r.first_text_ms = first;
    r.final_ms = first < 0 ? -1 : first + 5;
    r.outcome = outcome;
    r.trigger = "type";
    return r;
  };
  std::vector<RequestRecord> rs = {
      at(0, 50),                   // next key at 100: shown
      at(100, 150, "cancelled"),   // next key at 200: too late
      at(200, 90, "cancelled"),    // streamed text at 290 < 300: shown, then cancelled
      at(300, 80),                 // next key at 1000: a pause, shown
      at(1000, 700),               // next key at 1600 (no request there): pause, too late
      at(2000, -1, "empty"),       // the last keystroke: a pause, nothing shown
  };
  RequestRecord tab = at(2100, 10);
  tab.trigger = "accept";         // a simulated Tab is not a keystroke that asked
  rs.push_back(tab);
  const std::vector<double> keys = {0, 100, 200, 300, 1000, 1600, 2000};
  Summary s = summarize(rs, 7, 3000, keys);
  CHECK(s.typing.keystrokes == 6);
  CHECK(s.typing.shown == 3);
  CHECK(s.typing.shown_rate == Approx(0.5));
  CHECK(s.typing.first_ghost_ms.count == 3);
  CHECK(s.typing.first_ghost_ms.p50 == 80);
  CHECK(s.pauses.keystrokes == 3);  // 300, 1000, 2000
  CHECK(s.pauses.shown == 1);
  CHECK(s.pauses.first_ghost_ms.p50 == 80);
  const nlohmann::json j = to_json(s);
  CHECK(j["headline"]["typing"]["shown_rate"] == 0.5);
  CHECK(j["headline"]["pauses"]["keystrokes"] == 3);
  RunReport run;
  run.target = "t";
  run.summary = s;
  const std::string text = format_summary(run);
  CHECK(text.find("shown rate:              0.50 (3 of 6 before the next keystroke)") != std::string::npos);
  CHECK(text.find("shown rate, pauses only: 0.33 (1 of 3") != std::string::npos);
}

TEST_CASE("server stats: all engine prefill per edit, by part of the prompt") {
  nlohmann::json stats = {{"counts",
                           {{"changes", 10},
                            {"outcome_done", 2},
                            {"prefilled_tokens", 8},
                            {"reused_tokens", 4000},
                            {"prefilled_part_prefix", 30},
                            {"prefilled_part_suffix", 50},
                            {"prefilled_part_frame", 20}}},
                          {"latency_ms", nlohmann::json::object()}};
  const std::string out = format_server_stats(stats);
  CHECK(out.find("server: all engine prefill per edit (mean of 10): 10.0 tokens: other files 0.0, before the "
                 "cursor 3.0, after it 5.0, markers and headers 2.0\n") != std::string::npos);
  stats["counts"].erase("prefilled_part_prefix");
  stats["counts"].erase("prefilled_part_suffix");
  stats["counts"].erase("prefilled_part_frame");
  CHECK(format_server_stats(stats).find("per edit") == std::string::npos);  // an older server: no line
}

TEST_CASE("server stats: answers served without the engine, with their time inside the daemon") {
  nlohmann::json stats = {{"counts", nlohmann::json::object()},
                          {"latency_ms", {{"typing_through_ms", {{"count", 12}, {"p50", 0.3}, {"p99", 1.5}}}}}};
  std::string out = format_server_stats(stats);
  CHECK(out.find("server: 12 answers from the last suggestion (typed-through), p50 0.3  p99 1.5 ms inside the "
                 "daemon\n") != std::string::npos);
  CHECK(out.find("continuation decoded ahead") == std::string::npos);
  stats["latency_ms"]["ahead_answer_ms"] = {{"count", 3}, {"p50", 0.5}, {"p99", 0.7}};
  out = format_server_stats(stats);
  CHECK(out.find("server: 3 answers from the continuation decoded ahead, p50 0.5") != std::string::npos);
}

TEST_CASE("server stats: what the confidence gate held back, and how much of it had streamed") {
  nlohmann::json stats = {{"counts", {{"confidence_reported", 40}, {"held_back_low_confidence", 9}, {"retracted_low_confidence", 2}}},
                          {"latency_ms", nlohmann::json::object()}};
  CHECK(format_server_stats(stats).find("server: the confidence gate held back 9 of 40 suggestions (2 after their start "
                                        "had streamed)\n") != std::string::npos);
  stats["counts"] = nlohmann::json::object();  // a remote backend reports no confidence: no line
  CHECK(format_server_stats(stats).find("confidence gate") == std::string::npos);
}

TEST_CASE("server stats: drafted tokens accepted, by prompt lookup and by the draft model") {
  nlohmann::json stats = {{"counts",
                           {{"drafts_proposed", 50},
                            {"drafts_accepted", 30},
                            {"model_drafts_proposed", 20},
                            {"model_drafts_accepted", 5}}},
                          {"latency_ms", nlohmann::json::object()}};
  CHECK(format_server_stats(stats).find("server: drafted tokens the model accepted (answered requests): prompt lookup "
                                        "25 of 30, draft model 5 of 20\n") != std::string::npos);
  CHECK(format_server_stats(stats).find("sat out") == std::string::npos);
  stats["counts"]["draft_behind"] = 3;
  stats["counts"]["draft_catch_up_outcome_done"] = 2;
  CHECK(format_server_stats(stats).find("server: the draft model sat out 3 requests whose prompt it was far behind; "
                                        "caught up after 2 of them\n") != std::string::npos);
  stats["counts"] = nlohmann::json::object();  // nothing drafted (or a remote backend): no line
  CHECK(format_server_stats(stats).find("drafted tokens") == std::string::npos);
  CHECK(format_server_stats(stats).find("sat out") == std::string::npos);
}
