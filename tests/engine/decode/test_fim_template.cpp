// FIM prompt templates: each family's layout (read as text with the family's marker
// spellings), PSM and SPM orders, repository-level headers, the tokens built from a real
// vocabulary, cutting to fit, and special tokens only from the template.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/decode/fim_template.h"
#include "engine/gguf/gguf.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

struct Vocab {
  Tokenizer tokenizer;
  FimTokens fim;
};

Vocab vocab_of(const std::filesystem::path& model) {
  auto file = GgufFile::open(model);
  REQUIRE(file.ok());
  auto t = tokenizer_from_gguf(*file);
  REQUIRE(t.ok());
  auto fim = find_fim_tokens(*t);
  REQUIRE(fim.ok());
  return Vocab{std::move(*t), std::move(*fim)};
}

Vocab synthetic() {
  test::TempDir dir;
  REQUIRE(write_synthetic_model(SyntheticModelSpec{}, dir / "m.gguf").ok());
  return vocab_of(dir / "m.gguf");
}

Vocab testdata_vocab(const std::string& relative) { return vocab_of(test::require_testdata(relative)); }

FimTemplate named(const std::string& name) {
  auto t = parse_fim_template(name);
  REQUIRE(t.ok());
  return *t;
}

const std::vector<ContextFile> kExtra{{"util.py", "def area(r):\n    return 3.14 * r * r"}};

std::string text_of(const std::string& name, bool with_files) {
  FimParts parts{with_files ? &kExtra : nullptr, "x = ", "\nprint(x)"};
  if (with_files) {
    parts.file_path = "app/main.py";
    parts.repo_name = "shapes";
  }
  return render_fim_text(named(name), parts);
}

}  // namespace

TEST_CASE("fim template: names parse, print back, and bad names are errors", "[fim_template]") {
  CHECK(fim_template_name(named("auto")) == "auto");
  CHECK(fim_template_name(named("")) == "auto");
  CHECK(fim_template_name(named("qwen")) == "qwen");
  CHECK(fim_template_name(named("starcoder-spm")) == "starcoder-spm");
  CHECK(fim_template_name(named("codellama-psm")) == "codellama");
  CHECK(named("spm").format == FimFormat::kAuto);
  CHECK(named("spm").order == FimOrder::kSpm);
  for (const char* bad : {"qwen2", "qwen-", "-spm", "SPM", "starcoder-spm-spm"}) {
    auto t = parse_fim_template(bad);
    CHECK_FALSE(t.ok());
    if (!t.ok()) CHECK(t.error().message.find("unknown FIM template") != std::string::npos);
  }
}

TEST_CASE("fim template: file-level prompts of each family", "[fim_template]") {
  CHECK(text_of("qwen", false) == "<|fim_prefix|>x = <|fim_suffix|>\nprint(x)<|fim_middle|>");
  CHECK(text_of("starcoder", false) == "<fim_prefix>x = <fim_suffix>\nprint(x)<fim_middle>");
  CHECK(text_of("deepseek", false) == "<｜fim▁begin｜>x = <｜fim▁hole｜>\nprint(x)<｜fim▁end｜>");
  CHECK(text_of("codellama", false) == "<PRE> x =  <SUF>\nprint(x) <MID>");
  CHECK(text_of("codegemma", false) == "<|fim_prefix|>x = <|fim_suffix|>\nprint(x)<|fim_middle|>");
}

TEST_CASE("fim template: SPM orders put the suffix first", "[fim_template]") {
  CHECK(text_of("qwen-spm", false) == "<|fim_suffix|>\nprint(x)<|fim_prefix|>x = <|fim_middle|>");
  CHECK(text_of("starcoder-spm", false) == "<fim_suffix>\nprint(x)<fim_prefix>x = <fim_middle>");
  // CodeLlama's own SPM: both markers, the suffix, the middle marker, then the prefix, so
  // that the middle continues the prefix directly.
  CHECK(text_of("codellama-spm", false) == "<PRE>  <SUF>\nprint(x) <MID>x = ");
}

TEST_CASE("fim template: repository-level prompts with other files", "[fim_template]") {
  CHECK(text_of("qwen", true) ==
        "<|repo_name|>shapes\n"
        "<|file_sep|>util.py\ndef area(r):\n    return 3.14 * r * r\n"
        "<|file_sep|>app/main.py\n"
        "<|fim_prefix|>x = <|fim_suffix|>\nprint(x)<|fim_middle|>");
  CHECK(text_of("starcoder", true) ==
        "<repo_name>shapes"
        "<file_sep>util.py\ndef area(r):\n    return 3.14 * r * r\n"
        "<file_sep><fim_prefix>app/main.py\nx = <fim_suffix>\nprint(x)<fim_middle>");
  CHECK(text_of("codegemma", true) ==
        "util.py\ndef area(r):\n    return 3.14 * r * r\n<|file_separator|>"
        "<|fim_prefix|>x = <|fim_suffix|>\nprint(x)<|fim_middle|>");
  // No file markers: the files open the prefix, each under a comment naming it.
  CHECK(text_of("deepseek", true) ==
        "<｜fim▁begin｜># util.py\ndef area(r):\n    return 3.14 * r * r\n# app/main.py\nx = "
        "<｜fim▁hole｜>\nprint(x)<｜fim▁end｜>");
  // SPM keeps the headers first: they do not change while the user types.
  CHECK(text_of("qwen-spm", true) ==
        "<|repo_name|>shapes\n"
        "<|file_sep|>util.py\ndef area(r):\n    return 3.14 * r * r\n"
        "<|file_sep|>app/main.py\n"
        "<|fim_suffix|>\nprint(x)<|fim_prefix|>x = <|fim_middle|>");
  // Without other files the prompt is the plain single-file form, path or not.
  FimParts only_path{nullptr, "a", "b", "m.py", "proj"};
  CHECK(render_fim_text(named("qwen"), only_path) == "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>");
  CHECK(render_fim_text(named("deepseek"), only_path) == "<｜fim▁begin｜>a<｜fim▁hole｜>b<｜fim▁end｜>");
  FimParts c_file{&kExtra, "a", "b", "m.c"};
  c_file.line_comment = "//";
  CHECK(render_fim_text(named("codellama"), c_file).starts_with("<PRE> // util.py\ndef area"));
}

TEST_CASE("fim template: automatic format from the model's tokens", "[fim_template]") {
  Vocab v = synthetic();
  CHECK(resolve_fim_template(FimTemplate{}, v.fim, v.tokenizer).format == FimFormat::kQwen);
  CHECK(resolve_fim_template(named("spm"), v.fim, v.tokenizer).order == FimOrder::kSpm);
  CHECK(resolve_fim_template(named("deepseek"), v.fim, v.tokenizer).format == FimFormat::kDeepSeek);
}

TEST_CASE("fim template: the model's preferred order applies unless the name gives one", "[fim_template]") {
  Vocab v = synthetic();
  const FimOrder spm = FimOrder::kSpm, psm = FimOrder::kPsm;
  CHECK(resolve_fim_template(named("auto"), v.fim, v.tokenizer, spm).order == spm);
  CHECK(resolve_fim_template(named("qwen"), v.fim, v.tokenizer, spm).order == spm);
  CHECK(resolve_fim_template(named("psm"), v.fim, v.tokenizer, spm).order == psm);
  CHECK(resolve_fim_template(named("qwen-psm"), v.fim, v.tokenizer, spm).order == psm);
  CHECK(resolve_fim_template(named("auto"), v.fim, v.tokenizer, psm).order == psm);
  CHECK(fim_template_name(resolve_fim_template(named("auto"), v.fim, v.tokenizer, spm)) == "qwen-spm");
  // A resolved template keeps its order when the prompt is built (which resolves again).
  const FimTemplate resolved = resolve_fim_template(named("auto"), v.fim, v.tokenizer, spm);
  const auto prompt = build_fim_prompt(v.tokenizer, v.fim, resolved, FimParts{nullptr, "a = ", "\nb"});
  REQUIRE(!prompt.empty());
  CHECK(prompt.front() == v.fim.suffix);
  CHECK(prompt.back() == v.fim.middle);

  test::TempDir dir;
  auto order_in = [&](const char* value) {
    GgufWriter w;
    w.add_string("general.architecture", "llama");
    if (value) w.add_string(kFimOrderKey, value);
    REQUIRE(w.write(dir / "m.gguf").ok());
    auto file = GgufFile::open(dir / "m.gguf");
    REQUIRE(file.ok());
    return preferred_fim_order(*file);
  };
  CHECK(order_in("spm") == spm);
  CHECK(order_in("psm") == psm);
  CHECK(order_in(nullptr) == psm);
  CHECK(order_in("sideways") == psm);
}

TEST_CASE("fim template: automatic format of StarCoder and DeepSeek-Coder vocabularies", "[fim_template][testdata]") {
  Vocab sc = testdata_vocab("tokenizer/ggml-vocab-starcoder.gguf");
  CHECK(resolve_fim_template(FimTemplate{}, sc.fim, sc.tokenizer).format == FimFormat::kStarCoder);
  const auto p = build_fim_prompt(sc.tokenizer, sc.fim, FimTemplate{}, FimParts{nullptr, "def f(", "):"});
  REQUIRE(p.size() > 3);
  CHECK(p.front() == sc.fim.prefix);
  CHECK(p.back() == sc.fim.middle);
  CHECK(sc.tokenizer.decode(p) == "def f():");
  Vocab ds = testdata_vocab("tokenizer/ggml-vocab-deepseek-coder.gguf");
  CHECK(resolve_fim_template(FimTemplate{}, ds.fim, ds.tokenizer).format == FimFormat::kDeepSeek);
  const auto q = build_fim_prompt(ds.tokenizer, ds.fim, FimTemplate{}, FimParts{&kExtra, "a", "b", "m.py"});
  // DeepSeek has no file separator: the other file is text right after the begin marker.
  const size_t begin = ds.tokenizer.add_bos() ? 1 : 0;
  REQUIRE(q.size() > begin + 1);
  CHECK(q[begin] == ds.fim.prefix);
  CHECK(std::count(q.begin(), q.end(), ds.fim.prefix) == 1);
}

TEST_CASE("fim template: tokens are the markers' ids and the texts' encodings, in order", "[fim_template]") {
  Vocab v = synthetic();
  REQUIRE(v.fim.repo != kNoToken);
  REQUIRE(v.fim.file_sep != kNoToken);
  auto enc = [&](std::string_view s) { return v.tokenizer.encode(s); };
  auto append = [](std::vector<TokenId>& to, const std::vector<TokenId>& from) { to.insert(to.end(), from.begin(), from.end()); };

  std::vector<TokenId> psm{v.fim.prefix};
  append(psm, enc("a = "));
  psm.push_back(v.fim.suffix);
  append(psm, enc("\nb"));
  psm.push_back(v.fim.middle);
  CHECK(build_fim_prompt(v.tokenizer, v.fim, FimTemplate{}, FimParts{nullptr, "a = ", "\nb"}) == psm);

  FimParts parts{&kExtra, "a = ", "\nb", "m.py", "proj"};
  std::vector<TokenId> spm{v.fim.repo};
  append(spm, enc("proj\n"));
  spm.push_back(v.fim.file_sep);
  append(spm, enc("util.py\n" + kExtra[0].text + "\n"));
  spm.push_back(v.fim.file_sep);
  append(spm, enc("m.py\n"));
  spm.push_back(v.fim.suffix);
  append(spm, enc("\nb"));
  spm.push_back(v.fim.prefix);
  append(spm, enc("a = "));
  spm.push_back(v.fim.middle);
  CHECK(build_fim_prompt(v.tokenizer, v.fim, named("spm"), parts) == spm);
}

TEST_CASE("fim template: cutting to fit drops other files first, then trims suffix end and prefix start",
          "[fim_template]") {
  Vocab v = synthetic();
  std::vector<ContextFile> big{{"big.py", std::string(400, 'z')}};
  const std::string prefix = std::string(200, 'p') + "END";
  const std::string suffix = "BEGIN" + std::string(200, 's');
  for (const char* name : {"qwen", "qwen-spm", "deepseek", "codellama-spm"}) {
    INFO(name);
    FimParts parts{&big, prefix, suffix, "m.py", "proj"};
    bool cut = false;
    const auto whole = build_fim_prompt(v.tokenizer, v.fim, named(name), parts);
    const auto same = build_fim_prompt_within(v.tokenizer, v.fim, named(name), parts, whole.size(), &cut);
    CHECK_FALSE(cut);
    CHECK(same == whole);
    const auto p = build_fim_prompt_within(v.tokenizer, v.fim, named(name), parts, 120, &cut);
    CHECK(cut);
    CHECK(p.size() <= 120);
    const std::string text = v.tokenizer.decode(p);
    CHECK(text.find('z') == std::string::npos);                   // the other file went first
    CHECK(text.find("pEND") != std::string::npos);                // the prefix keeps its end
    CHECK(text.find("BEGINs") != std::string::npos);              // the suffix keeps its start
    CHECK(std::count(p.begin(), p.end(), v.fim.middle) == 1);     // markers stay
    CHECK(std::count(p.begin(), p.end(), v.fim.prefix) == 1);
    CHECK(std::count(p.begin(), p.end(), v.fim.suffix) == 1);
  }
}

TEST_CASE("fim template: markers in user text are plain text", "[fim_template]") {
  Vocab v = synthetic();
  const auto p = build_fim_prompt(v.tokenizer, v.fim, FimTemplate{}, FimParts{nullptr, "s = '<|fim_middle|>'", "<|endoftext|>"});
  CHECK(std::count(p.begin(), p.end(), v.fim.middle) == 1);
  CHECK(p.back() == v.fim.middle);
  CHECK(std::count_if(p.begin(), p.end(), [&](TokenId t) { return v.tokenizer.is_control(t); }) == 3);
}

TEST_CASE("fim template: the layout says which tokens are which part of the prompt", "[fim_template]") {
  Vocab v = synthetic();
  FimParts parts{&kExtra, "x = 1\ny = ", "\nprint(y)\n", "app/main.py", "shapes"};
  std::vector<PromptPart> layout;
  const std::vector<TokenId> prompt =
      build_fim_prompt_within(v.tokenizer, v.fim, named("qwen"), parts, SIZE_MAX, nullptr, nullptr, nullptr, &layout);
  REQUIRE_FALSE(layout.empty());
  // Contiguous, covering the whole prompt, neighbours of one role merged.
  CHECK(layout.front().begin == 0);
  CHECK(layout.back().end == prompt.size());
  for (size_t i = 1; i < layout.size(); ++i) {
    CHECK(layout[i].begin == layout[i - 1].end);
    CHECK(layout[i].role != layout[i - 1].role);
  }
  auto text_of_role = [&](FimRole role) {
    std::string s;
    for (const PromptPart& p : layout)
      if (p.role == role)
        for (size_t i = p.begin; i < p.end; ++i) s += v.tokenizer.token_bytes(prompt[i]);
    return s;
  };
  CHECK(text_of_role(FimRole::kPrefix) == "x = 1\ny = ");
  CHECK(text_of_role(FimRole::kSuffix) == "\nprint(y)\n");
  CHECK(text_of_role(FimRole::kExtra).find("def area(r):") != std::string::npos);
  // Healing takes the prefix's last token off: the layout follows.
  std::string healed;
  const std::vector<TokenId> shorter = build_fim_prompt_within(v.tokenizer, v.fim, named("qwen"), parts, SIZE_MAX,
                                                               nullptr, nullptr, &healed, &layout);
  CHECK(layout.back().end == shorter.size());
}
