// The `wafer` subcommands, one file each (cmd_*.cpp). Each returns the process exit code:
// 0 success, 1 failure (with one clear line on stderr), 2 usage error or not implemented.
#pragma once

#include "server/config/options.h"

namespace wafer {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

int run_lsp(const Options& options);
int run_complete(const Options& options);
int run_tokenize(const Options& options);
int run_generate(const Options& options);
int run_info(const Options& options);
// `wafer info --workspace DIR` (info_exclusion.cpp).
int run_info_workspace(const Options& options);
int run_bench(const Options& options);
int run_pull(const Options& options);

// For subcommands whose issue has not landed yet: a clear message and exit code 2.
int not_implemented(const char* command);

}  // namespace wafer
