// Entry point of the `wafer` binary.
#include <string>
#include <vector>

#include "server/cli/run.h"
#include "server/platform/platform.h"

int main(int argc, char** argv) {
  // LSP framing and the printed completions are bytes: no newline translation.
  wafer::os::binary_stdio();
  // Paths and text in UTF-8 whatever the OS's own encoding of the command line.
  std::vector<std::string> args = wafer::os::utf8_arguments(argc, argv);
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  return wafer::run_wafer(static_cast<int>(args.size()), ptrs.data());
}
