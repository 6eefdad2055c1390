// Extra context: definitions found per language, the names referenced near the cursor,
// chunk order and budget, and no repetition of what the window shows.
#include <catch2/catch.hpp>

#include <algorithm>

#include "server/prompt/extra_context.h"
#include "tests/server/context_fixture.h"

using namespace wafer;
using wafer::test::Doc;

namespace {

std::vector<std::string> names(const std::vector<Definition>& defs) {
  std::vector<std::string> out;
  for (const Definition& d : defs) out.push_back(d.name);
  return out;
}

std::vector<Definition> defs_of(const Doc& d, size_t max_lines = 12) {
  return find_definitions(*d.snap, d.tree.get(), *d.rules, max_lines);
}

}  // namespace

TEST_CASE("extra context: definitions per language, members but not locals", "[extra_context]") {
  struct Case {
    std::string lang, text;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"python", "import os\nclass Cart:\n    def total(self):\n        tmp = 1\n        return tmp\n\ndef helper(x):\n    def inner():\n        pass\n    return x\n",
       {"Cart", "total", "helper"}},
      {"javascript", "export function area(r) { const k = 2; return k * r; }\nclass Shape { size() { return 1; } }\nconst PI = 3.14;\n",
       {"area", "Shape", "size", "PI"}},
      {"typescript", "interface Point { x: number }\ntype Id = string;\nfunction dist(p: Point): number { return p.x; }\n",
       {"Point", "Id", "dist"}},
      {"c", "struct vec { int x; };\nint dot(struct vec a, struct vec b) { int t = a.x * b.x; return t; }\n#define MAX_LEN 10\n",
       {"vec", "dot", "MAX_LEN"}},
      {"cpp", "namespace geo {\nclass Box {\n public:\n  int area() const { return 1; }\n};\n}\n",
       {"Box", "area"}},
      {"rust", "struct Account { id: u32 }\nimpl Account {\n    fn balance(&self) -> u64 { let t = 1; t }\n}\n",
       {"Account", "balance"}},
      {"go", "package m\ntype Store struct{}\nfunc (s *Store) Get(k string) string { v := k; return v }\nfunc New() *Store { return nil }\n",
       {"Store", "Get", "New"}},
      {"java", "class Bank {\n  int rate;\n  int interest(int x) { int y = x; return y; }\n}\n",
       {"Bank", "rate", "interest"}},
  };
  for (const Case& c : cases) {
    INFO(c.lang);
    Doc d(c.lang, c.text);
    std::vector<std::string> got = names(defs_of(d));
    for (const std::string& n : c.expected) {
      INFO("expected definition " << n);
      CHECK(std::count(got.begin(), got.end(), n) >= 1);  // rust: struct Account and impl Account
    }
    for (std::string local : {"tmp", "inner", "k", "t", "v", "y"}) CHECK(std::count(got.begin(), got.end(), local) == 0);
  }
}

TEST_CASE("extra context: large definitions become their signature", "[extra_context]") {
  Doc d("python", "def long_one(a, b):\n    x = 1\n    y = 2\n    z = 3\n    return x\n");
  auto defs = defs_of(d, /*max_lines=*/2);
  REQUIRE(defs.size() == 1);
  CHECK(defs[0].snippet == "def long_one(a, b):\n    ...");
  Doc c("c", "int sum(int a, int b) {\n  int s = a;\n  s += b;\n  return s;\n}\n");
  auto cdefs = defs_of(c, 2);
  REQUIRE(cdefs.size() == 1);
  CHECK(cdefs[0].snippet == "int sum(int a, int b) ...");
  CHECK(defs_of(c)[0].snippet == "int sum(int a, int b) {\n  int s = a;\n  s += b;\n  return s;\n}");
}

TEST_CASE("extra context: identifiers", "[extra_context]") {
  CHECK(identifiers_in("x = cart.total(tax_rate) + 12abc + ab") == std::vector<std::string>{"cart", "tax_rate", "total"});
}

TEST_CASE("extra context: chunks by file in the given order, within budget, not repeating the window", "[extra_context]") {
  Doc a("python", "def price(x):\n    return x * 2\n\ndef unused():\n    pass\n");
  Doc b("python", "class Cart:\n    pass\n");
  Doc cur("python", "def local_helper():\n    return 1\n\nvalue = price(Cart())\nlocal_helper()\n");
  auto da = defs_of(a), db = defs_of(b), dc = defs_of(cur);
  std::vector<std::string> refs = identifiers_in("value = price(Cart())\nlocal_helper()\n");
  std::vector<ExtraSource> sources{{"a.py", &da, 0, 0, false},
                                   {"b.py", &db, 0, 0, false},
                                   {"cur.py", &dc, 33, cur.snap->text.size(), true}};
  auto chunks = build_extra_context(refs, sources, 1000);
  REQUIRE(chunks.size() == 3);
  CHECK(chunks[0].path == "a.py");
  CHECK(chunks[0].text == "def price(x):\n    return x * 2\n");
  CHECK(chunks[1].path == "b.py");
  CHECK(chunks[1].text == "class Cart:\n    pass\n");
  CHECK(chunks[2].path == "cur.py");
  CHECK(chunks[2].text == "def local_helper():\n    return 1\n");  // outside the window
  // The window covers local_helper: not repeated.
  sources[2].window_begin = 0;
  CHECK(build_extra_context(refs, sources, 1000).size() == 2);
  // A tight budget keeps what fits, in order.
  auto small = build_extra_context(refs, sources, 14);
  REQUIRE(small.size() == 1);
  CHECK(small[0].path == "a.py");
  CHECK(build_extra_context(refs, sources, 0).empty());
  CHECK(build_extra_context({}, sources, 1000).empty());
}
