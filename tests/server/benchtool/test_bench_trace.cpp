#include "server/benchtool/bench_trace.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace wafer::bench;

namespace {

// A few hundred lines of plausible Python.
std::string python_source(int functions) {
  std::string s = "import os\nimport sys\n\n";
  for (int i = 0; i < functions; ++i) {
    s += "\ndef handler_" + std::to_string(i) + "(request, options=None):\n";
    s += "    \"\"\"Handle one request of kind " + std::to_string(i) + ".\"\"\"\n";
    s += "    if options is None:\n        options = {}\n";
    s += "    value = request.get('value', " + std::to_string(i) + ")\n";
    s += "    return value * 2 + len(options)\n";
  }
  return s;
}

Trace replay_all(const Trace& t, std::string* doc_out = nullptr) {
  std::string doc = t.text;
  for (const TraceStep& s : t.steps)
    if (s.edit) REQUIRE(apply_edit(doc, *s.edit));
  if (doc_out) *doc_out = doc;
  return t;
}

}  // namespace

TEST_CASE("synthesized traces are deterministic for a seed and differ across seeds") {
  const std::string src = python_source(20);
  TypingModel m;
  m.seed = 7;
  auto a = synthesize_trace("x.py", src, 200, 10, m);
  auto b = synthesize_trace("x.py", src, 200, 10, m);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(trace_to_jsonl(*a) == trace_to_jsonl(*b));
  m.seed = 8;
  auto c = synthesize_trace("x.py", src, 200, 10, m);
  REQUIRE(c);
  CHECK(trace_to_jsonl(*a) != trace_to_jsonl(*c));
}

TEST_CASE("a synthesized trace types the removed region back, ending at the source") {
  const std::string src = python_source(20);
  TypingModel m;
  m.typo_rate = 0.2;  // plenty of typos and backspaces
  auto t = synthesize_trace("x.py", src, 300, 12, m);
  REQUIRE(t);
  CHECK(t->steps.size() == 300);
  CHECK(t->language_id == "python");
  CHECK(t->final_text == src);
  CHECK(t->text.size() < src.size());
  std::string doc;
  replay_all(*t, &doc);
  CHECK(doc == src);
  // Typing starts at the beginning of line 12.
  size_t line12 = 0;
  for (int i = 0; i < 11; ++i) line12 = src.find('\n', line12) + 1;
  REQUIRE(t->steps[0].edit);
  CHECK(t->steps[0].edit->offset == line12);
  // Every clean step sees exactly region[0:pos] typed; pos never decreases.
  int64_t last = -1;
  std::string d = t->text;
  for (const TraceStep& s : t->steps) {
    CHECK(s.pos >= last);
    last = s.pos;
    if (s.clean) CHECK(d.substr(0, line12 + static_cast<size_t>(s.pos)) == src.substr(0, line12 + static_cast<size_t>(s.pos)));
    REQUIRE(apply_edit(d, *s.edit));
  }
}

TEST_CASE("the typing model's statistics: mean gap, line-end pauses, typo rate, auto-indent") {
  const std::string src = python_source(200);
  TypingModel m;
  m.wpm = 60;  // 200 ms mean gap
  m.typo_rate = 0.05;
  auto t = synthesize_trace("x.py", src, 4000, 5, m);
  REQUIRE(t);
  std::vector<double> in_word, line_end;
  int typos = 0, letters = 0, backspaces = 0;
  double sum = 0;
  for (size_t i = 0; i < t->steps.size(); ++i) {
    const TraceStep& s = t->steps[i];
    sum += s.delay_ms;
    if (s.kind == "typo") ++typos;
    if (s.kind == "backspace") {
      ++backspaces;
      CHECK(s.edit->erase == 1);
    }
    if (s.kind != "type") continue;
    const std::string& ins = s.edit->insert;
    if (ins[0] == '\n') {
      line_end.push_back(s.delay_ms);
      // Enter brings the next line's indentation with it.
      CHECK(ins.find_first_not_of(" ", 1) == std::string::npos);
    } else if (std::isalpha(static_cast<unsigned char>(ins[0]))) {
      ++letters;
      if (i > 0 && t->steps[i - 1].kind == "type" && std::isalpha(static_cast<unsigned char>(t->steps[i - 1].edit->insert.back())))
        in_word.push_back(s.delay_ms);
    }
  }
  const double mean = sum / static_cast<double>(t->steps.size());
  CHECK(mean > 200 * 0.7);
  CHECK(mean < 200 * 1.6);
  std::sort(in_word.begin(), in_word.end());
  std::sort(line_end.begin(), line_end.end());
  REQUIRE(!in_word.empty());
  REQUIRE(!line_end.empty());
  const double word_median = in_word[in_word.size() / 2], line_median = line_end[line_end.size() / 2];
  CHECK(word_median < 200);            // bursts inside words
  CHECK(line_median > 2 * word_median);  // pauses at line ends
  CHECK(typos == backspaces);
  const double rate = static_cast<double>(typos) / (letters + typos);
  CHECK(rate > 0.03);
  CHECK(rate < 0.07);
  // Draws are uniform: about 70 % below 0.7.
  int below = 0;
  for (const TraceStep& s : t->steps) below += s.draw < 0.7;
  CHECK(std::abs(static_cast<double>(below) / static_cast<double>(t->steps.size()) - 0.7) < 0.05);
}

TEST_CASE("synthesis refuses bad input") {
  TypingModel m;
  CHECK(!synthesize_trace("x.py", "a\nb\n", 10, 40, m));
  CHECK(!synthesize_trace("x.py", "a\nb\n", 0, 1, m));
  CHECK(!synthesize_trace("x.py", "", 10, 0, m));
}

TEST_CASE("JSON-lines traces round-trip") {
  TypingModel m;
  auto t = synthesize_trace("dir/x.py", python_source(10), 120, 4, m);
  REQUIRE(t);
  auto back = parse_trace_jsonl(trace_to_jsonl(*t));
  REQUIRE(back);
  CHECK(back->path == "dir/x.py");
  CHECK(back->language_id == "python");
  CHECK(back->text == t->text);
  CHECK(back->final_text == t->final_text);
  REQUIRE(back->steps.size() == t->steps.size());
  for (size_t i = 0; i < t->steps.size(); ++i) {
    CHECK(back->steps[i].delay_ms == Approx(t->steps[i].delay_ms).margin(0.01));
    CHECK(back->steps[i].edit->insert == t->steps[i].edit->insert);
    CHECK(back->steps[i].edit->offset == t->steps[i].edit->offset);
    CHECK(back->steps[i].pos == t->steps[i].pos);
    CHECK(back->steps[i].clean == t->steps[i].clean);
    CHECK(back->steps[i].draw == Approx(t->steps[i].draw));
  }
}

TEST_CASE("a hand-written trace: defaults, invoke lines and the final text") {
  auto t = parse_trace_jsonl(
      "{\"wafer_trace\": 1, \"path\": \"a.rs\", \"text\": \"fn main() {}\\n\"}\n"
      "\n"
      "{\"t\": 0, \"edit\": {\"offset\": 11, \"insert\": \"x\"}}\n"
      "{\"t\": 150.5, \"edit\": {\"offset\": 11, \"delete\": 1}, \"request\": false}\n"
      "{\"t\": 400, \"request\": true}\n");
  REQUIRE(t);
  CHECK(t->language_id == "rust");
  REQUIRE(t->steps.size() == 3);
  CHECK(t->steps[0].request);
  CHECK(t->steps[1].delay_ms == Approx(150.5));
  CHECK(!t->steps[1].request);
  CHECK(!t->steps[2].edit);
  CHECK(t->steps[2].kind == "invoke");
  CHECK(t->final_text == "fn main() {}\n");
}

TEST_CASE("the trace parser rejects bad lines, naming the line") {
  const std::string header = "{\"wafer_trace\": 1, \"path\": \"a.py\", \"text\": \"abc\"}\n";
  auto err = [](const std::string& text) {
    auto t = parse_trace_jsonl(text);
    REQUIRE(!t);
    return t.error().message;
  };
  CHECK(err("") == "trace: empty (no header line)");
  CHECK(err("{\"t\": 1}\n").find("trace line 1: the first line must be the header") == 0);
  CHECK(err(header + "{not json\n") == "trace line 2: not valid JSON");
  CHECK(err(header + "[1, 2]\n") == "trace line 2: expected a JSON object");
  CHECK(err(header + "{\"edit\": {\"offset\": 0}}\n").find("trace line 2: missing \"t\"") == 0);
  CHECK(err(header + "{\"t\": 5}\n{\"t\": 4}\n").find("trace line 3: \"t\" must not go back in time") == 0);
  CHECK(err(header + "{\"t\": 1, \"edit\": {\"offset\": -1}}\n") == "trace line 2: edit.offset must be a byte offset >= 0");
  CHECK(err(header + "{\"t\": 1, \"edit\": {\"offset\": 0, \"delete\": \"x\"}}\n") ==
        "trace line 2: edit.delete must be a byte count >= 0");
  CHECK(err(header + "{\"t\": 1, \"edit\": 3}\n").find("trace line 2: \"edit\" must be an object") == 0);
  CHECK(err(header + "{\"t\": 1, \"edit\": {\"offset\": 0, \"insert\": 5}}\n") == "trace line 2: edit.insert must be a string");
  CHECK(err(header + "{\"t\": 1, \"request\": \"yes\"}\n").find("trace line 2: wrong type") == 0);
  CHECK(err(header + "{\"t\": 1, \"request\": false}\n").find("trace line 2: a line needs") == 0);
  // Edits are checked against the document as it is at that line.
  CHECK(err(header + "{\"t\": 1, \"edit\": {\"offset\": 3, \"insert\": \"d\"}}\n{\"t\": 2, \"edit\": {\"offset\": 5}}\n") ==
        "trace line 3: edit at offset 5 erasing 0 bytes does not fit the document (4 bytes)");
  CHECK(err("{\"wafer_trace\": 1, \"path\": \"/nonexistent/x.py\"}\n").find("trace line 1: no \"text\"") == 0);
  // Numbers that do not fit are refused, never converted (a float past int's range was
  // undefined behaviour; found by fuzz_trace).
  for (const char* version : {"184467440737095516151", "1e300", "1.5", "18446744073709551615", "\"1\""})
    CHECK(err(std::string("{\"wafer_trace\": ") + version + ", \"text\": \"\"}\n")
              .find("trace line 1: the first line must be the header") == 0);
  for (const char* pos : {"1e300", "2.5", "-2", "18446744073709551615"})
    CHECK(err(header + "{\"t\": 1, \"request\": true, \"pos\": " + pos + "}\n") ==
          "trace line 2: \"pos\" must be a byte offset >= 0 (or -1: none)");
}

TEST_CASE("truth_at: what the user goes on to type") {
  const std::string final_text = "def f(x):\n    return x\n";
  // The region "(x):" removed; "de" + "f" typed so far.
  CHECK(truth_at("def\n    return x\n", 3, final_text) == std::optional<std::string>(" f(x):"));
  CHECK(truth_at(final_text, 5, final_text) == std::optional<std::string>(""));
  // A typo pending: the text before the cursor differs.
  CHECK(!truth_at("dex\n    return x\n", 3, final_text));
  // The text after the cursor is not the final document's end.
  CHECK(!truth_at("def\n    return y\n", 3, final_text));
  CHECK(!truth_at("abc", 9, final_text));
}

TEST_CASE("language ids from file names") {
  CHECK(language_for_path("a/b.py") == "python");
  CHECK(language_for_path("x.cpp") == "cpp");
  CHECK(language_for_path("x.tsx") == "typescriptreact");
  CHECK(language_for_path("README") == "plaintext");
}
