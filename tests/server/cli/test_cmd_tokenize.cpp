// `wafer tokenize`: ids in the .out-file form, pieces, stdin byte for byte, --special, errors.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <sys/wait.h>

#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/testing.h"

namespace {

struct Run {
  int status;
  std::string out, err;
};

Run run(const std::string& args, const std::string& input = "") {
  wafer::test::TempDir dir;
  wafer::test::write_file(dir / "in", input);
  std::string cmd = "'" + wafer::test::wafer_binary().string() + "' " + args + " >'" + (dir / "out").string() +
                    "' 2>'" + (dir / "err").string() + "' <'" + (dir / "in").string() + "'";
  int raw = std::system(cmd.c_str());
  return Run{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, wafer::test::read_file(dir / "out"),
             wafer::test::read_file(dir / "err")};
}

}  // namespace

TEST_CASE("wafer tokenize --ids prints a .out line", "[cli][tokenize][testdata]") {
  auto model = wafer::test::require_testdata("reference/tiny-qwen2-q8_0.gguf").string();
  Run r = run("tokenize '" + model + "' --ids 'Hello world'");
  CHECK(r.status == 0);
  CHECK(r.out == " 9707 1879\n");
  // Standard input, byte for byte (trailing newline included).
  Run s = run("tokenize --ids '" + model + "'", "Hello world\n");
  CHECK(s.out == " 9707 1879 198\n");
  Run special = run("tokenize --ids --special '" + model + "' '<|fim_prefix|>'");
  CHECK(special.out == " 151659\n");
  Run plain = run("tokenize --ids '" + model + "' '<|fim_prefix|>'");
  CHECK(plain.out != " 151659\n");
}

TEST_CASE("wafer tokenize --pieces prints one escaped token per line", "[cli][tokenize]") {
  wafer::test::TempDir dir;
  REQUIRE(wafer::write_synthetic_model(wafer::SyntheticModelSpec{}, dir / "m.gguf").ok());
  Run r = run("tokenize '" + (dir / "m.gguf").string() + "' --pieces", "def\n");
  CHECK(r.status == 0);
  CHECK(r.out.find("\tdef\n") != std::string::npos);
  CHECK(r.out.find("\t\\n\n") != std::string::npos);
}

TEST_CASE("wafer tokenize errors", "[cli][tokenize]") {
  Run missing = run("tokenize /nonexistent/model.gguf x");
  CHECK(missing.status == 1);
  CHECK(missing.err.find("wafer tokenize:") == 0);
  CHECK(run("tokenize").status == 2);
  CHECK(run("tokenize a b c").status == 2);
}

TEST_CASE("wafer tokenize and generate expand ~ and $VAR in the model path", "[cli][tokenize]") {
  wafer::test::TempDir dir;
  REQUIRE(wafer::write_synthetic_model(wafer::SyntheticModelSpec{}, dir / "m.gguf").ok());
  const std::string home = "HOME='" + dir.path().string() + "' ";
  std::string cmd = home + "'" + wafer::test::wafer_binary().string() + "' tokenize '~/m.gguf' def >/dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  cmd = "WAFER_T_DIR='" + dir.path().string() + "' '" + wafer::test::wafer_binary().string() +
        "' generate '${WAFER_T_DIR}/m.gguf' --prompt def -n 1 >/dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  Run unset = run("tokenize '$WAFER_SURELY_UNSET_VAR/m.gguf' def");
  CHECK(unset.status == 1);
  CHECK(unset.err.find("WAFER_SURELY_UNSET_VAR is not set") != std::string::npos);
}
