#include "server/document/text_types.h"

namespace wafer {

const char* to_string(PositionEncoding e) { return e == PositionEncoding::kUtf8 ? "utf-8" : "utf-16"; }

}  // namespace wafer
