#include "server/commands.h"

namespace wafer {

int run_lsp(const Options&) { return not_implemented("lsp"); }

}  // namespace wafer
