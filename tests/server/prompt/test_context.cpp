// The context builder: windows by lines, tokens and bytes; the prefix start stays put
// while typing (so the prompt up to the old cursor is byte-identical keystroke after
// keystroke); cuts never split a comment or string; the suffix ends with the enclosing
// block; and the cursor facts (comment, string, block opener) per language.
#include <catch2/catch.hpp>

#include "server/prompt/token_estimate.h"
#include "tests/server/context_fixture.h"

using namespace wafer;
using wafer::test::Doc;


TEST_CASE("context: prefix and suffix windows by lines", "[context]") {
  auto [doc, cursor] = Doc::with_cursor("python", "l0\nl1\nl2\ndef f(x):\n    ret|\nl5\nl6\nl7\n");
  FimWindow w;
  w.prefix_lines = 2;
  w.suffix_lines = 1;
  w.prefix_step_lines = 1;
  FimContext c = doc.context(cursor, w);
  CHECK(c.request.prefix == "l2\ndef f(x):\n    ret");
  CHECK(c.request.suffix == "\nl5\n");
  CHECK(c.request.session_key == "file:///x");
  w.prefix_lines = 100;
  w.suffix_lines = 100;
  c = doc.context(cursor, w);
  CHECK(c.request.prefix == "l0\nl1\nl2\ndef f(x):\n    ret");
  CHECK(c.request.suffix == "\nl5\nl6\nl7\n");
  CHECK(c.prefix_begin == 0);
  CHECK(c.suffix_end == doc.snap->text.size());
}

TEST_CASE("context: byte caps drop far lines first and never split UTF-8", "[context]") {
  Doc doc("plaintext", "aaaaaaaaaa\nbbbbbbbbbb\n中中中中x\nyy\n");
  size_t cursor = doc.snap->line_starts[2] + 12;  // after the four 中
  FimWindow w;
  w.max_bytes = 20;
  FimContext c = doc.context(cursor, w);
  CHECK(c.request.prefix == "中中中中");  // the lines above do not fit with it
  w.max_bytes = 7;
  c = doc.context(cursor, w);
  CHECK(c.request.prefix == "中中");  // cut inside the line, on a character boundary
  CHECK(c.request.suffix == "x\nyy\n");
}

TEST_CASE("context: token budgets cut whole lines", "[context]") {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "value_" + std::to_string(i) + " = compute(value_" + std::to_string(i) + ")\n";
  Doc doc("python", text + "x = ");
  size_t cursor = doc.snap->text.size();
  FimWindow w;
  w.prefix_step_lines = 1;
  w.prefix_tokens = 50;
  FimContext c = doc.context(cursor, w);
  CHECK(c.request.prefix.ends_with("x = "));
  CHECK(c.prefix_begin > 0);
  CHECK(doc.snap->text[c.prefix_begin - 1] == '\n');  // a whole line
  CHECK(c.request.prefix.size() < 200);
  w.prefix_tokens = 100000;
  CHECK(doc.context(cursor, w).prefix_begin == 0);  // all 41 lines fit in 60
}

TEST_CASE("context: the prompt before the cursor stays byte-identical while typing", "[context]") {
  // 200 lines of code above, then type a function body character by character.
  std::string text;
  for (int i = 0; i < 200; ++i) text += "def helper_" + std::to_string(i) + "(a, b):\n    return a * " + std::to_string(i) + " + b\n";
  std::string typed;
  for (int k = 0; k < 3; ++k)
    typed +=
      "def total(items):\n    acc = 0\n    for item in items:\n        acc += helper_3(item, 1)\n"
      "        if acc > 100:\n            break\n    return acc\n\n\nprint(total([1, 2, 3]))\n";
  FimWindow w;  // defaults: 60 lines, 1024 tokens, steps of 16 lines
  std::string prev_prefix;
  size_t prev_begin = 0, jumps = 0, identical = 0;
  for (size_t i = 0; i <= typed.size(); ++i) {
    Doc doc("python", text + typed.substr(0, i));
    FimContext c = doc.context(doc.snap->text.size(), w);
    if (i > 0) {
      if (c.prefix_begin == prev_begin) {
        // The old prompt is a prefix of the new one: the KV cache matches all of it.
        CHECK(c.request.prefix.compare(0, prev_prefix.size(), prev_prefix) == 0);
        ++identical;
      } else {
        ++jumps;
        CHECK(c.prefix_begin > prev_begin);
        // A jump drops a whole step of lines at once.
        size_t dropped = 0;
        for (size_t b = prev_begin; b < c.prefix_begin; ++b) dropped += doc.snap->text[b] == '\n';
        CHECK(dropped >= static_cast<size_t>(w.prefix_step_lines));
      }
    }
    prev_prefix = c.request.prefix;
    prev_begin = c.prefix_begin;
  }
  WARN("keystrokes " << typed.size() << ", prompt prefix kept " << identical << ", jumps " << jumps);
  // 30 new lines typed: the start moved once or twice, 16 lines at a time.
  CHECK(jumps >= 1);
  CHECK(jumps <= 2);
  CHECK(identical + jumps == typed.size());
}

TEST_CASE("context: the prefix never starts inside a docstring or block comment", "[context]") {
  std::string text = "x = 1\n\"\"\"\n";
  for (int i = 0; i < 30; ++i) text += "docstring line " + std::to_string(i) + "\n";
  text += "\"\"\"\n";
  for (int i = 0; i < 20; ++i) text += "y" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  Doc doc("python", text + "z = ");
  FimWindow w;
  w.prefix_lines = 30;  // line 42 - 30 = 12: inside the docstring; step line 16 too
  FimContext c = doc.context(doc.snap->text.size(), w);
  CHECK(c.request.prefix.find("docstring line") == std::string::npos);
  CHECK(c.request.prefix.starts_with("\"\"\"\n") == false);
  CHECK(c.request.prefix.starts_with("y"));

  Doc cdoc("c", "int a;\n/* one\n two\n three\n four */\nint b;\nint c = ");
  w.prefix_lines = 3;  // would start at " two"
  w.prefix_step_lines = 1;
  c = cdoc.context(cdoc.snap->text.size(), w);
  CHECK(c.request.prefix == "int b;\nint c = ");
}

TEST_CASE("context: the suffix ends with the enclosing block", "[context]") {
  auto [doc, cursor] = Doc::with_cursor("c",
                                        "int f(int x) {\n  int y = |;\n  return y;\n}\n\nint g(void) {\n  return 2;\n}\n");
  FimContext c = doc.context(cursor);
  CHECK(c.request.suffix == ";\n  return y;\n}\n");
  CHECK(c.facts.line_rest == ";");
  CHECK(c.facts.after_lines == "  return y;\n}\n");

  auto [py, pc] = Doc::with_cursor("python", "def f(x):\n    if x:\n        |\n        y = 1\n    return x\n\ndef g():\n    pass\n");
  c = py.context(pc);
  CHECK(c.request.suffix.find("def g") == std::string::npos);
  CHECK(c.request.suffix.find("y = 1") != std::string::npos);

  // A block that ends on the cursor's line is not the bound: its parent is.
  auto [js, jc] = Doc::with_cursor("javascript", "function f() {\n  g(a, |b);\n  h();\n}\nfunction k() {}\n");
  c = js.context(jc);
  CHECK(c.request.suffix == "b);\n  h();\n}\n");
}

TEST_CASE("context: cursor facts per language", "[context]") {
  struct Case {
    std::string lang, text;
    bool comment, string, opener;
  };
  const Case cases[] = {
      {"python", "x = 1  # a note|\n", true, false, false},
      {"python", "x = 'abc|'\n", false, true, false},
      {"python", "def f(x):|\n", false, false, true},
      {"python", "x = f(|)\n", false, false, true},
      {"c", "int x; /* note| */\n", true, false, false},
      {"c", "int x; /* note */|\n", false, false, false},
      {"c", "const char* s = \"ab|c\";\n", false, true, false},
      {"cpp", "int f() {|\n}\n", false, false, true},
      {"rust", "fn f() { // todo|\n}\n", true, false, false},
      {"go", "package m\nfunc f() string { return \"a|b\" }\n", false, true, false},
      {"java", "class A { void f() {|\n} }\n", false, false, true},
      {"lua", "if x then|\nend\n", false, false, true},
      {"lua", "-- note|\n", true, false, false},
      {"bash", "echo \"hi |there\"\n", false, true, false},
      {"ruby", "# note|\n", true, false, false},
      {"typescript", "const s = `a|b`;\n", false, true, false},
      {"plaintext", "say \"hello |\n", false, true, false},
  };
  for (const Case& k : cases) {
    INFO(k.lang << ": " << k.text);
    auto [doc, cursor] = Doc::with_cursor(k.lang, k.text);
    CursorFacts f = doc.context(cursor).facts;
    CHECK(f.in_comment == k.comment);
    CHECK(f.in_string == k.string);
    CHECK(f.after_opener == k.opener);
  }
}

TEST_CASE("context: indentation unit of the document", "[context]") {
  CHECK(detect_indent_unit(*make_snapshot("u", "c", 1, "int f() {\n\treturn 1;\n}\n")) == "\t");
  CHECK(detect_indent_unit(*make_snapshot("u", "js", 1, "if (a) {\n  if (b) {\n    c();\n  }\n}\n")) == "  ");
  CHECK(detect_indent_unit(*make_snapshot("u", "py", 1, "def f():\n    if x:\n        y\n")) == "    ");
  CHECK(detect_indent_unit(*make_snapshot("u", "py", 1, "x = 1\n")) == "    ");
}

TEST_CASE("context: budgets shrink to fit the model's context", "[context]") {
  FimWindow w;
  int extra = 512;
  fit_to_context(w, extra, 256, 64);  // the bundled tiny model
  CHECK(extra + w.prefix_tokens + w.suffix_tokens + 64 <= 256 * 85 / 100);
  CHECK(w.prefix_tokens > w.suffix_tokens);
  CHECK(w.prefix_tokens > extra);
  FimWindow big;
  int big_extra = 512;
  fit_to_context(big, big_extra, 32768, 64);  // Qwen2.5-Coder: nothing to shrink
  CHECK(big.prefix_tokens == 1024);
  CHECK(big.suffix_tokens == 256);
  CHECK(big_extra == 512);
  fit_to_context(big, big_extra, 0, 64);  // unknown context
  CHECK(big.prefix_tokens == 1024);
}

TEST_CASE("context: a tokenizer denser than the estimate shrinks the context the budgets fit in", "[context]") {
  const int estimate = static_cast<int>(estimate_tokens(kTokenDensitySample));
  ModelInfo m;
  m.context_length = 4096;
  CHECK(estimated_context(m) == 4096);  // unknown density
  m.sample_tokens = estimate / 2;       // a vocabulary with longer tokens: nothing to gain
  CHECK(estimated_context(m) == 4096);
  m.sample_tokens = estimate * 11 / 10;  // within fit_to_context's margin for the estimate
  CHECK(estimated_context(m) == 4096);
  m.sample_tokens = static_cast<int>(kTokenDensitySample.size());  // one token per byte
  CHECK(estimated_context(m) < 4096 / 2);
  CHECK(estimated_context(m) == 4096 * estimate / m.sample_tokens);
  m.context_length = 0;  // unknown context
  CHECK(estimated_context(m) == 0);
}

TEST_CASE("context: the copy predictor's text around the window, contiguous and capped", "[context]") {
  auto [doc, cursor] = Doc::with_cursor("python", "a0\na1\na2\n中b3\nb4\ndef f(x):\n    ret|\nc7\nc8\nc9\n中d10\nd11\n");
  FimWindow w;
  w.prefix_lines = 2;
  w.suffix_lines = 1;
  w.prefix_step_lines = 1;
  FimContext c = doc.context(cursor, w);
  CHECK(c.request.copy_before.empty());  // copy_bytes 0: none
  CHECK(c.request.copy_after.empty());
  w.copy_bytes = 1 << 16;
  c = doc.context(cursor, w);
  CHECK(c.request.prefix == "b4\ndef f(x):\n    ret");
  CHECK(c.request.copy_before == "a0\na1\na2\n中b3\n");
  CHECK(c.request.copy_after == "c8\nc9\n中d10\nd11\n");
  CHECK(c.request.copy_before + c.request.prefix + c.request.suffix + c.request.copy_after == doc.snap->text);
  w.copy_bytes = 5;  // on character boundaries: the cut never splits 中
  c = doc.context(cursor, w);
  CHECK(c.request.copy_before == "b3\n");
  CHECK(c.request.copy_after == "c8\nc9");
  w.copy_bytes = 7;   // after: a cut inside 中 keeps the whole character
  c = doc.context(cursor, w);
  CHECK(c.request.copy_after == "c8\nc9\n中");
}
