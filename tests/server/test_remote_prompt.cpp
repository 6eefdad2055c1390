// The FIM prompt text for OpenAI-compatible servers.
#include "server/remote_prompt.h"

#include <catch2/catch.hpp>

using namespace wafer;

TEST_CASE("remote prompt: Qwen2.5-Coder default, with repository-level extra context") {
  CHECK(render_fim_prompt(kDefaultFimTemplate, "def f(", "\n", {}) == "<|fim_prefix|>def f(<|fim_suffix|>\n<|fim_middle|>");
  CHECK(render_fim_prompt(kDefaultFimTemplate, "x", "y", {"a.py\ndef a(): pass", "b.py\nB = 1\n"}) ==
        "<|file_sep|>a.py\ndef a(): pass\n<|file_sep|>b.py\nB = 1\n<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>");
}

TEST_CASE("remote prompt: other templates; placeholders in the code stay") {
  // CodeLlama's PSM layout, no {extra}: extra context is left out.
  CHECK(render_fim_prompt("<PRE> {prefix} <SUF>{suffix} <MID>", "a", "b", {"f.c\nint x;"}) == "<PRE> a <SUF>b <MID>");
  // A template without Qwen's tokens separates chunks by a blank line.
  CHECK(render_fim_prompt("{extra}<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>", "p", "s", {"f.c\nint x;"}) ==
        "f.c\nint x;\n\n<fim_prefix>p<fim_suffix>s<fim_middle>");
  CHECK(render_fim_prompt(kDefaultFimTemplate, "s = '{suffix}{prefix}'", "{extra}", {}) ==
        "<|fim_prefix|>s = '{suffix}{prefix}'<|fim_suffix|>{extra}<|fim_middle|>");
}
