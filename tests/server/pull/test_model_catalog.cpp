// The `wafer pull` catalogue and name/URL resolution, and the cache directory's rules (XDG on
// Linux, ~/Library/Caches on macOS).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "server/pull/model_catalog.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("catalogue entries are complete and unique", "[pull][catalog]") {
  std::set<std::string_view> names, files;
  const Catalog catalog = builtin_catalog();
  REQUIRE(catalog.models.size() >= 4);
  for (const CatalogModel& m : catalog.models) {
    CHECK(names.insert(m.name).second);
    CHECK(files.insert(m.file).second);
    CHECK(m.url.starts_with("https://"));
    CHECK(m.url.ends_with("/" + m.file));
    CHECK(m.file.ends_with(".gguf"));
    CHECK(m.size > 100'000'000);
    CHECK(m.sha256.size() == 64);
    CHECK(m.sha256.find_first_not_of("0123456789abcdef") == std::string_view::npos);
  }
  CHECK(names.count("qwen2.5-coder-1.5b") == 1);
  CHECK(check_drafts(catalog).ok());  // every draft is a model of the catalogue
  CHECK(catalog.find("qwen2.5-coder-7b")->draft == "qwen2.5-coder-0.5b");
  CHECK(catalog.find("qwen2.5-coder-1.5b")->draft == "qwen2.5-coder-0.5b");
  CHECK(catalog.find("qwen2.5-coder-0.5b")->draft.empty());
  CHECK(catalog.suggested == kSuggestedModel);
  CHECK(catalog.find(catalog.suggested) != nullptr);
}

TEST_CASE("a short name resolves to the catalogue's URL, size and digest", "[pull][catalog]") {
  auto t = resolve_pull_target("qwen2.5-coder-0.5b", "", builtin_catalog());
  REQUIRE(t.ok());
  CHECK(t->file == "qwen2.5-coder-0.5b-q8_0.gguf");
  CHECK(t->size == 531068128ULL);
  CHECK(t->sha256 == "d0f8cd6c49bab52a0abdbe47948518b1f4d9b1a8a2a6825099cea31cea10ac56");

  auto bad = resolve_pull_target("qwen9-coder", "", builtin_catalog());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("unknown model 'qwen9-coder'") != std::string::npos);
  CHECK(bad.error().message.find("qwen2.5-coder-1.5b") != std::string::npos);
}

TEST_CASE("a URL names its file by the last path segment, --sha256 is checked and lowercased", "[pull][catalog]") {
  const std::string digest(64, 'A');
  auto t = resolve_pull_target("http://127.0.0.1:8080/models/tiny.gguf?download=1", digest, {});
  REQUIRE(t.ok());
  CHECK(t->url == "http://127.0.0.1:8080/models/tiny.gguf?download=1");
  CHECK(t->file == "tiny.gguf");
  CHECK(t->sha256 == std::string(64, 'a'));
  CHECK(t->size == 0);

  CHECK_FALSE(resolve_pull_target("https://example.com/", "", {}).ok());
  CHECK_FALSE(resolve_pull_target("https://example.com/dir/..", "", {}).ok());
  auto short_digest = resolve_pull_target("https://example.com/a.gguf", "abc", {});
  REQUIRE_FALSE(short_digest.ok());
  CHECK(short_digest.error().message.find("64 hex digits") != std::string::npos);
}

#if defined(__APPLE__)
TEST_CASE("cache directory: --cache-dir, then ~/Library/Caches", "[pull][catalog]") {
  const char* old_home = std::getenv("HOME");
  std::string saved_home = old_home ? old_home : "";

  CHECK(*model_cache_dir("/tmp/x") == "/tmp/x");
  setenv("HOME", "/Users/me", 1);
  CHECK(*model_cache_dir("") == "/Users/me/Library/Caches/wafer/models");
  unsetenv("HOME");
  CHECK_FALSE(model_cache_dir("").ok());

  if (old_home) setenv("HOME", saved_home.c_str(), 1);
}
#else
TEST_CASE("cache directory: --cache-dir, then XDG_CACHE_HOME, then ~/.cache", "[pull][catalog]") {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const char* old_home = std::getenv("HOME");
  std::string saved_xdg = old_xdg ? old_xdg : "", saved_home = old_home ? old_home : "";

  CHECK(*model_cache_dir("/tmp/x") == "/tmp/x");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(*model_cache_dir("") == "/xdg/wafer/models");
  setenv("XDG_CACHE_HOME", "relative/ignored", 1);  // the XDG spec: relative paths are invalid
  setenv("HOME", "/home/me", 1);
  CHECK(*model_cache_dir("") == "/home/me/.cache/wafer/models");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  CHECK_FALSE(model_cache_dir("").ok());

  if (old_xdg) setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  if (old_home) setenv("HOME", saved_home.c_str(), 1);
}
#endif

TEST_CASE("model argument: a file as given, a pulled catalogue name from the cache, else a message to pull",
          "[pull][catalog]") {
  test::TempDir dir;
  const std::string cache = (dir / "cache").string();
  const CatalogModel m = builtin_catalog().models[0];
  const std::string name(m.name);
  test::write_file(dir / "local.gguf", "GGUF");
  CHECK(*resolve_model_path((dir / "local.gguf").string(), cache) == (dir / "local.gguf").string());
  CHECK(*resolve_model_path("", cache) == "");
  CHECK(*resolve_model_path("/no/such/dir/m.gguf", cache) == "/no/such/dir/m.gguf");  // the loader says it is missing

  auto missing = resolve_model_path(name, cache);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("run: wafer pull " + name) != std::string::npos);
  std::filesystem::create_directories(dir / "cache");
  test::write_file(dir / "cache" / std::string(m.file), "GGUF");
  CHECK(*resolve_model_path(name, cache) == (dir / "cache" / std::string(m.file)).string());

  auto word = resolve_model_path("qwen-coder-giant", cache);
  REQUIRE_FALSE(word.ok());
  CHECK(word.error().message.find("wafer pull --list") != std::string::npos);
}
