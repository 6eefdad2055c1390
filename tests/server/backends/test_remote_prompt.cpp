// The FIM prompt text for OpenAI-compatible servers: the family formats of
// engine/decode/fim_template.h by default, or a custom text template.
#include "server/backends/remote_prompt.h"

#include <catch2/catch.hpp>

using namespace wafer;

namespace {

std::string format(const char* name) {
  REQUIRE(check_fim_format(name));
  return name;
}

CompletionRequest fim(std::vector<ContextFile> extra = {}) {
  CompletionRequest r;
  r.prefix = "x = ";
  r.suffix = "\nprint(x)";
  r.extra = std::move(extra);
  r.file_path = "app/main.py";
  r.repo_name = "shapes";
  return r;
}

}  // namespace

TEST_CASE("remote prompt: the family format by default, auto is Qwen2.5-Coder's") {
  CHECK(remote_fim_prompt("", format("auto"), fim()) == "<|fim_prefix|>x = <|fim_suffix|>\nprint(x)<|fim_middle|>");
  CHECK(remote_fim_prompt("", format("starcoder"), fim()) == "<fim_prefix>x = <fim_suffix>\nprint(x)<fim_middle>");
  CHECK(remote_fim_prompt("", format("codellama"), fim()) == "<PRE> x =  <SUF>\nprint(x) <MID>");
  // Extra files in Qwen's repository-level form, the current file's path last.
  CHECK(remote_fim_prompt("", format("qwen"), fim({{"util.py", "def area(r): ...\n"}})) ==
        "<|repo_name|>shapes\n<|file_sep|>util.py\ndef area(r): ...\n<|file_sep|>app/main.py\n"
        "<|fim_prefix|>x = <|fim_suffix|>\nprint(x)<|fim_middle|>");
}

TEST_CASE("remote prompt: a custom template, placeholders in the code stay") {
  CHECK(remote_fim_prompt("<PRE> {prefix} <SUF>{suffix} <MID>", format("auto"), fim({{"f.c", "int x;"}})) ==
        "<PRE> x =  <SUF>\nprint(x) <MID>");  // no {extra}: extra context left out
  CHECK(render_fim_prompt("{extra}<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>", "x", "y",
                          {{"a.py", "def a(): pass"}, {"b.py", "B = 1\n"}}) ==
        "<|file_sep|>a.py\ndef a(): pass\n<|file_sep|>b.py\nB = 1\n<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>");
  CHECK(render_fim_prompt("{extra}<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>", "p", "s", {{"f.c", "int x;"}}) ==
        "f.c\nint x;\n\n<fim_prefix>p<fim_suffix>s<fim_middle>");
  CHECK(render_fim_prompt("<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>", "s = '{suffix}{prefix}'", "{extra}", {}) ==
        "<|fim_prefix|>s = '{suffix}{prefix}'<|fim_suffix|>{extra}<|fim_middle|>");
}

TEST_CASE("remote prompt: the markers a confused model would echo") {
  using V = std::vector<std::string>;
  CHECK(fim_prompt_markers("", format("auto")) == V{"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_sep|>"});
  CHECK(fim_prompt_markers("", format("codellama")) == V{"<PRE>", "<SUF>", "<MID>"});
  CHECK(fim_prompt_markers("", format("deepseek")) == V{"<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"});
  CHECK(fim_prompt_markers("[{prefix}|{suffix}]", format("auto")).empty());  // too short to tell
}
