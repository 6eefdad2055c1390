#include "server/commands.h"

namespace wafer {

int run_tokenize(const Options&) { return not_implemented("tokenize"); }

}  // namespace wafer
