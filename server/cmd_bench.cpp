#include "server/commands.h"

namespace wafer {

int run_bench(const Options&) { return not_implemented("bench"); }

}  // namespace wafer
