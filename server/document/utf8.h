// UTF-8 helpers for the LSP layer: validation, repair of invalid bytes, and counting
// UTF-16 code units, which LSP positions use unless the client negotiates UTF-8.
// Invalid bytes are never trusted as sequence lengths: each counts as one unit (U+FFFD).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/base/utf8.h"

namespace wafer {

// Length of the well-formed UTF-8 sequence starting at s[i] (1..4), or 0 when the bytes
// there are not one (stray continuation, overlong form, surrogate, truncated, > U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i);

// is_valid_utf8() is the engine's (engine/base/utf8.h): one strict checker for the project.

// Replaces every ill-formed byte with U+FFFD; well-formed text is returned unchanged.
std::string sanitize_utf8(std::string_view s);

// UTF-16 code units needed for s (a 4-byte sequence is two units; an invalid byte is one).
size_t utf16_length(std::string_view s);

}  // namespace wafer
