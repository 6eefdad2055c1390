// The `wafer` command line: parse options once, dispatch to a subcommand, return the
// process exit code. main() is one call to wafer_main (server/cli/main.cpp), so test
// binaries can add what they need before running the same CLI the same way.
#pragma once

namespace wafer {

// The process's entry: binary stdin/stdout (LSP framing and printed completions are
// bytes), the arguments in UTF-8 whatever the OS's encoding of the command line (Windows:
// from the wide command line, not the ANSI code page), then run_wafer.
int wafer_main(int argc, char** argv);
// The CLI on UTF-8 arguments.
int run_wafer(int argc, char** argv);

}  // namespace wafer
