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
