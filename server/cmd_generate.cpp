#include "server/commands.h"

namespace wafer {

int run_generate(const Options&) { return not_implemented("generate"); }

}  // namespace wafer
