// .gitignore rules as git applies them: globs, anchoring, folder-only rules, negation,
// rules of a nested .gitignore.
#include <catch2/catch.hpp>

#include "server/index/gitignore.h"

using namespace wafer;

TEST_CASE("gitignore: wildmatch globs", "[gitignore]") {
  CHECK(glob_match("*.pyc", "a.pyc"));
  CHECK_FALSE(glob_match("*.pyc", "a.py"));
  CHECK_FALSE(glob_match("*.pyc", "dir/a.pyc"));  // '*' stays inside one name
  CHECK(glob_match("a?c", "abc"));
  CHECK_FALSE(glob_match("a?c", "a/c"));
  CHECK(glob_match("[a-c]x", "bx"));
  CHECK_FALSE(glob_match("[!a-c]x", "bx"));
  CHECK(glob_match("[!a-c]x", "dx"));
  CHECK(glob_match("**/build", "build"));
  CHECK(glob_match("**/build", "a/b/build"));
  CHECK(glob_match("docs/**", "docs/a/b.md"));
  CHECK(glob_match("a/**/b", "a/b"));
  CHECK(glob_match("a/**/b", "a/x/y/b"));
  CHECK_FALSE(glob_match("a/**/b", "a/x/y/c"));
  CHECK(glob_match("\\*lit", "*lit"));
  CHECK_FALSE(glob_match("\\*lit", "xlit"));
  CHECK(glob_match("[oops", "[oops"));  // an unterminated class is a literal '['
}

TEST_CASE("gitignore: rules of a file", "[gitignore]") {
  IgnoreRules r;
  r.add("# build output\n\nbuild/\n*.log\n!keep.log\n/only_root.py\ndocs/gen/\n  \n");
  CHECK(r.ignored("build", true));
  CHECK(r.ignored("src/build", true));    // unanchored: at any depth
  CHECK_FALSE(r.ignored("build", false)); // folder-only rule, a file named build stays
  CHECK(r.ignored("x/y.log", false));
  CHECK_FALSE(r.ignored("keep.log", false));  // re-included by the later rule
  CHECK(r.ignored("only_root.py", false));
  CHECK_FALSE(r.ignored("src/only_root.py", false));  // anchored to the root
  CHECK(r.ignored("docs/gen", true));
  CHECK_FALSE(r.ignored("src/docs/gen", true));  // a slash inside anchors it too
  CHECK_FALSE(r.ignored("main.py", false));
}

TEST_CASE("gitignore: a nested .gitignore applies below its folder only", "[gitignore]") {
  IgnoreRules r;
  r.add("*.tmp\n");
  r.add("/local.py\nvendor/\n", "pkg");
  CHECK(r.ignored("pkg/local.py", false));
  CHECK_FALSE(r.ignored("local.py", false));
  CHECK_FALSE(r.ignored("other/local.py", false));
  CHECK(r.ignored("pkg/sub/vendor", true));
  CHECK_FALSE(r.ignored("vendor", true));
  CHECK(r.ignored("pkg/a.tmp", false));  // the root's rules still apply below
}

TEST_CASE("gitignore: the deciding rule, as written, with its origin", "[gitignore]") {
  IgnoreRules r;
  r.add("*.log\n/build/\n", "", 1);
  r.add("!keep.log\n", "", 2);
  const IgnoreRules::Rule* d = r.deciding("x/app.log", false);
  REQUIRE(d);
  CHECK(d->line == "*.log");
  CHECK(d->origin == 1);
  CHECK_FALSE(d->negate);
  d = r.deciding("keep.log", false);
  REQUIRE(d);
  CHECK(d->line == "!keep.log");
  CHECK(d->origin == 2);
  CHECK(d->negate);  // re-included: decided, but not ignored
  CHECK_FALSE(r.ignored("keep.log", false));
  d = r.deciding("build", true);
  REQUIRE(d);
  CHECK(d->line == "/build/");
  CHECK(r.deciding("main.py", false) == nullptr);
}
