#include "server/benchtool/training_split.h"

#include <catch2/catch.hpp>

using wafer::training_key_held_out;
using wafer::training_provenance;
using wafer::TrainingRole;

TEST_CASE("training split: the keys tools/train/corpus.py holds out", "[benchtool][quality]") {
  // corpus.is_heldout over the top-level modules of Python 3.11's standard library holds out
  // exactly these seven; the others were trained on.
  for (const char* name : {"bdb.py", "bz2.py", "contextvars.py", "linecache.py", "sched.py", "struct.py", "uu.py"}) {
    INFO(name);
    CHECK(training_key_held_out(std::string("python-stdlib/") + name));
  }
  for (const char* name : {"argparse.py", "ast.py", "asyncio.py", "typing.py", "json.py"}) {
    INFO(name);
    CHECK_FALSE(training_key_held_out(std::string("python-stdlib/") + name));
  }
}

TEST_CASE("training split: a file's source, key and role", "[benchtool][quality]") {
  auto held = training_provenance("/usr/lib/python3.11/bdb.py");
  CHECK(held.role == TrainingRole::kHeldOut);
  CHECK(held.key == "python-stdlib/bdb.py");
  auto trained = training_provenance("/usr/lib/python3.11/argparse.py");
  CHECK(trained.role == TrainingRole::kTrained);
  CHECK(trained.key == "python-stdlib/argparse.py");
  CHECK(training_provenance("/usr/lib/python3.12/json/decoder.py").key == "python-stdlib/json/decoder.py");
  CHECK(training_provenance("/usr/include/uv/unix.h").role == TrainingRole::kTrained);
  CHECK(training_provenance("/usr/include/nlohmann/json.hpp").key == "nlohmann-json/json.hpp");
  CHECK(training_provenance("/src/wafer/grammars/node_modules/tree-sitter-c/bindings/node/index.js").key ==
        "tree-sitter-grammars/tree-sitter-c/bindings/node/index.js");

  // Not read by corpus.py: folders it skips, extensions it does not take, other packages.
  CHECK(training_provenance("/usr/lib/python3.11/site-packages/x.py").role == TrainingRole::kNotASource);
  CHECK(training_provenance("/usr/lib/python3.11/__pycache__/x.py").role == TrainingRole::kNotASource);
  CHECK(training_provenance("/usr/lib/python3.11/LICENSE.txt").role == TrainingRole::kNotASource);
  CHECK(training_provenance("/usr/lib/python3/dist-packages/requests/api.py").role == TrainingRole::kNotASource);
  CHECK(training_provenance("/usr/lib/python3/dist-packages/numpy/core/numeric.py").role == TrainingRole::kTrained);
  CHECK(training_provenance("/usr/include/stdio.h").role == TrainingRole::kNotASource);
  CHECK(training_provenance("/usr/include/uv.h").role == TrainingRole::kNotASource);
  CHECK(training_provenance("/src/wafer/grammars/node_modules/tree-sitter-c/src/parser.c").role ==
        TrainingRole::kNotASource);
  CHECK(training_provenance("/src/wafer/grammars/node_modules/x/build/a.js").role == TrainingRole::kNotASource);
  CHECK(training_provenance("/usr/lib/python3.11x/a.py").role == TrainingRole::kNotASource);
}
