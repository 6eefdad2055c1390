// Which source files the bundled model was trained on, by the rule of tools/train/corpus.py:
// a file under one of its training sources (the Python standard library, numpy, the npm
// modules bundled with Node.js, the repository's tree-sitter grammars, the nlohmann/json,
// Catch2 and libuv headers) is held out only when the first 8 bytes of SHA-256 of its key
// ("<source>/<path below the source's root>") modulo 100 are below 3. bench_quality scores
// only code the model never saw: held-out files, and files of no training source.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace wafer {

enum class TrainingRole {
  kNotASource,  // no training source holds the file: the model never read it
  kHeldOut,     // a source holds it, and the split held it out
  kTrained,     // the model was trained on it
};

struct TrainingProvenance {
  TrainingRole role = TrainingRole::kNotASource;
  std::string key;  // corpus.py's key ("python-stdlib/argparse.py"); empty for kNotASource
};

// The split of one key: true when corpus.py holds it out (3 % of keys).
bool training_key_held_out(std::string_view key);

// Where `file` (absolute, normalized) falls. The source roots are the ones corpus.py reads
// on Debian 12 (any /usr/lib/python3.N for the standard library, any
// `grammars/node_modules` folder for the grammars); an extension corpus.py does not read,
// or a folder it skips, is not a source.
TrainingProvenance training_provenance(const std::filesystem::path& file);

}  // namespace wafer
