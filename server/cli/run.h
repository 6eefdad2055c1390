// The `wafer` command line: parse options once, dispatch to a subcommand, return the
// process exit code. main() is one call to it (server/cli/main.cpp), so test binaries can
// add what they need before running the same CLI.
#pragma once

namespace wafer {

int run_wafer(int argc, char** argv);

}  // namespace wafer
