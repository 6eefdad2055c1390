// A model catalogue file ($WAFER_CATALOG): its line format, every kind of bad line reported
// with the file and line, and model_catalog() taking the file and $HF_ENDPOINT into account.
#include <catch2/catch.hpp>

#include <string>

#include "server/pull/catalog_file.h"
#include "server/pull/model_catalog.h"
#include "tests/support/testing.h"

using namespace wafer;
using test::ScopedEnv;

namespace {

const std::string kDigest = "29871c94d15727a6e243f79a37113d4ae625a6215b5e800bf41a23af2da32832";

// The error of parsing `text` as "team.txt", or "" when it parsed.
std::string error_of(const std::string& text) {
  Result<Catalog> c = parse_catalog(text, "team.txt");
  return c ? "" : c.error().message;
}

}  // namespace

TEST_CASE("catalogue file: one model per line, optional file name, license and note", "[pull][catalog]") {
  const std::string text = "# our mirror\n"
                           "\n"
                           "small  1000  " + kDigest + "  https://models.example/a/small.gguf?x=1\n"
                           "  big\t2000\t" + std::string(64, 'A') + "\thttp://10.0.0.1:8080/big-q8.gguf  team-big.gguf"
                           " | Apache-2.0 | slow but good \r\n"
                           "mid 1500 " + kDigest.substr(0, 63) + "b https://m.example/mid.gguf | Custom License\n";
  Result<Catalog> c = parse_catalog(text, "team.txt");
  REQUIRE(c.ok());
  REQUIRE(c->models.size() == 3);
  CHECK(c->suggested == "small");  // the first one

  const CatalogModel& small = c->models[0];
  CHECK(small.name == "small");
  CHECK(small.size == 1000);
  CHECK(small.sha256 == kDigest);
  CHECK(small.url == "https://models.example/a/small.gguf?x=1");
  CHECK(small.file == "small.gguf");  // the URL's last segment, without the query
  CHECK(small.license.empty());
  CHECK(small.note.empty());

  const CatalogModel* big = c->find("big");
  REQUIRE(big);
  CHECK(big->file == "team-big.gguf");
  CHECK(big->sha256 == std::string(64, 'a'));  // lowercased
  CHECK(big->license == "Apache-2.0");
  CHECK(big->note == "slow but good");
  CHECK(c->find("mid")->license == "Custom License");
  CHECK(c->find("mid")->note.empty());
  CHECK(c->find("none") == nullptr);

  // The catalogue is what `wafer pull NAME` resolves against.
  Result<PullTarget> t = resolve_pull_target("big", "", *c);
  REQUIRE(t.ok());
  CHECK(t->url == "http://10.0.0.1:8080/big-q8.gguf");
  CHECK(t->file == "team-big.gguf");
  CHECK(t->size == 2000);
  Result<PullTarget> builtin_name = resolve_pull_target("qwen2.5-coder-1.5b", "", *c);
  REQUIRE_FALSE(builtin_name.ok());
  CHECK(builtin_name.error().message.find("one of small, big, mid") != std::string::npos);
}

TEST_CASE("catalogue file: a bad line is an error naming the file and the line", "[pull][catalog]") {
  const std::string ok = "a 10 " + kDigest + " https://x.example/a.gguf\n";
  CHECK(error_of(ok).empty());
  CHECK(error_of(ok + "b 10\n") ==
        "team.txt:2: expected NAME SIZE SHA256 URL [FILE] [draft=NAME] [| LICENSE [| NOTE]], got 2 fields");
  CHECK(error_of("# c\n\nb 10 " + kDigest + " https://x.example/b.gguf f.gguf extra\n").starts_with("team.txt:3: expected NAME"));
  CHECK(error_of("b ten " + kDigest + " https://x.example/b.gguf\n") ==
        "team.txt:1: SIZE must be a number of bytes above 0, got 'ten'");
  CHECK(error_of("b 0 " + kDigest + " https://x.example/b.gguf\n").starts_with("team.txt:1: SIZE must be"));
  CHECK(error_of("b 10x " + kDigest + " https://x.example/b.gguf\n").starts_with("team.txt:1: SIZE must be"));
  CHECK(error_of("b 99999999999999999999999 " + kDigest + " https://x.example/b.gguf\n").starts_with("team.txt:1: SIZE"));
  CHECK(error_of("b 10 abc https://x.example/b.gguf\n") == "team.txt:1: SHA256 must be 64 hex digits, got 'abc'");
  CHECK(error_of("b 10 " + std::string(64, 'g') + " https://x.example/b.gguf\n").starts_with("team.txt:1: SHA256"));
  CHECK(error_of("b 10 " + kDigest + " ftp://x.example/b.gguf\n") ==
        "team.txt:1: URL must start with http:// or https://, got 'ftp://x.example/b.gguf'");
  CHECK(error_of("b 10 " + kDigest + " https://x.example/b.bin\n").starts_with("team.txt:1: the file name 'b.bin' must be"));
  CHECK(error_of("b 10 " + kDigest + " https://x.example/\n").starts_with("team.txt:1: the file name '' must be"));
  CHECK(error_of("b 10 " + kDigest + " https://x.example/b.gguf ../b.gguf\n").starts_with("team.txt:1: the file name"));
  CHECK(error_of("a/b 10 " + kDigest + " https://x.example/b.gguf\n").starts_with("team.txt:1: the name 'a/b'"));
  CHECK(error_of(ok + ok) == "team.txt:2: the name 'a' is listed twice");
  CHECK(error_of(ok + "b 10 " + kDigest + " https://y.example/a.gguf\n") ==
        "team.txt:2: the file name 'a.gguf' is listed twice");
  CHECK(error_of("# only comments\n\n") == "team.txt: no models listed (one per line: NAME SIZE SHA256 URL [FILE])");
  CHECK(error_of("") .starts_with("team.txt: no models listed"));
}

TEST_CASE("catalogue file: draft=NAME pairs a model with another of the file", "[pull][catalog]") {
  const std::string small = "small 10 " + kDigest + " https://x.example/small.gguf | MIT\n";
  Result<Catalog> c = parse_catalog(small + "big 20 " + kDigest + " https://x.example/b.gguf big.gguf draft=small | MIT | a note\n" +
                                        "mid 15 " + kDigest + " https://x.example/m.gguf draft=small\n",
                                    "team.txt");
  REQUIRE(c.ok());
  CHECK(c->models[0].draft.empty());
  CHECK(c->models[1].draft == "small");
  CHECK(c->models[1].file == "big.gguf");
  CHECK(c->models[1].license == "MIT");
  CHECK(c->models[2].draft == "small");
  CHECK(c->models[2].file == "m.gguf");
  // The draft is listed first (smallest first) but drafts: the first other model is suggested.
  CHECK(c->suggested == "big");
  CHECK(error_of(small + "big 20 " + kDigest + " https://x.example/b.gguf draft=nothing\n") ==
        "team.txt: the draft 'nothing' of 'big' is not a model of the catalogue");
  CHECK(error_of("big 20 " + kDigest + " https://x.example/b.gguf draft=big\n") ==
        "team.txt: the model 'big' cannot draft for itself");
  CHECK(error_of("big 20 " + kDigest + " https://x.example/b.gguf draft=\n") ==
        "team.txt:1: draft= needs the name of a model of the file");
}

TEST_CASE("catalogue file: a missing or unreadable file is an error naming it", "[pull][catalog]") {
  test::TempDir dir;
  Result<Catalog> missing = load_catalog_file(dir / "none.txt");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == (dir / "none.txt").string() + ": cannot read the model catalogue");
  Result<Catalog> folder = load_catalog_file(dir.path());
  REQUIRE_FALSE(folder.ok());
  CHECK(folder.error().message.find("cannot read") != std::string::npos);
  test::write_file(dir / "bad.txt", "x 1 " + kDigest + " https://a.example/x.gguf\nnot a model\n");
  Result<Catalog> bad = load_catalog_file(dir / "bad.txt");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.starts_with((dir / "bad.txt").string() + ":2: expected NAME"));
}

TEST_CASE("HF_ENDPOINT moves the catalogue's huggingface.co URLs to a mirror", "[pull][catalog]") {
  Catalog c = builtin_catalog();
  c.models.push_back({"other", "https://models.example/x.gguf", "x.gguf", 1, kDigest, "", ""});
  c.models.push_back({"lookalike", "https://huggingface.com/x.gguf", "y.gguf", 1, kDigest, "", ""});
  const std::string first = c.models[0].url;
  REQUIRE(first.starts_with("https://huggingface.co/ggml-org/"));

  REQUIRE(apply_hf_endpoint(c, "").ok());  // unset or empty: nothing changes
  CHECK(c.models[0].url == first);
  REQUIRE(apply_hf_endpoint(c, "https://hf-mirror.com/").ok());
  CHECK(c.models[0].url == "https://hf-mirror.com" + first.substr(std::string("https://huggingface.co").size()));
  CHECK(c.models[0].file == builtin_catalog().models[0].file);  // same file, digest and size
  CHECK(c.models[0].sha256 == builtin_catalog().models[0].sha256);
  CHECK(c.models.end()[-2].url == "https://models.example/x.gguf");  // not on huggingface.co: unchanged
  CHECK(c.models.end()[-1].url == "https://huggingface.com/x.gguf");

  Catalog d = builtin_catalog();
  REQUIRE(apply_hf_endpoint(d, "http://127.0.0.1:9000/hf").ok());  // a base with a path
  CHECK(d.models[1].url.starts_with("http://127.0.0.1:9000/hf/ggml-org/"));

  for (const char* bad : {"hf-mirror.com", "ftp://m.example", "https://", "https://m.example/?a", "https://a b"}) {
    Catalog e = builtin_catalog();
    Status s = apply_hf_endpoint(e, bad);
    INFO(bad);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "HF_ENDPOINT: expected a base URL such as https://hf-mirror.com, got '" + std::string(bad) + "'");
  }
}

TEST_CASE("model_catalog(): $WAFER_CATALOG replaces the built-in list, $HF_ENDPOINT applies to it", "[pull][catalog]") {
  test::TempDir dir;
  {
    ScopedEnv no_file("WAFER_CATALOG", nullptr), no_endpoint("HF_ENDPOINT", nullptr);
    Result<Catalog> c = model_catalog();
    REQUIRE(c.ok());
    CHECK(c->models.size() == builtin_catalog().models.size());
    CHECK(c->suggested == kSuggestedModel);
  }
  test::write_file(dir / "team.txt", "t1 10 " + kDigest + " https://huggingface.co/team/t1.gguf\n"
                                     "t2 20 " + kDigest + " https://models.example/t2.gguf\n");
  ScopedEnv file("WAFER_CATALOG", (dir / "team.txt").string().c_str());
  {
    ScopedEnv endpoint("HF_ENDPOINT", "https://hf-mirror.com");
    Result<Catalog> c = model_catalog();
    REQUIRE(c.ok());
    REQUIRE(c->models.size() == 2);
    CHECK(c->suggested == "t1");
    CHECK(c->models[0].url == "https://hf-mirror.com/team/t1.gguf");
    CHECK(c->models[1].url == "https://models.example/t2.gguf");
  }
  {
    ScopedEnv endpoint("HF_ENDPOINT", "mirror");
    Result<Catalog> c = model_catalog();
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message.starts_with("HF_ENDPOINT: expected a base URL"));
  }
  test::write_file(dir / "team.txt", "t1 10 " + kDigest + "\n");
  Result<Catalog> bad = model_catalog();
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.starts_with("WAFER_CATALOG: " + (dir / "team.txt").string() + ":1: expected NAME"));
}
