#include "server/commands.h"

namespace wafer {

int run_info(const Options&) { return not_implemented("info"); }

}  // namespace wafer
