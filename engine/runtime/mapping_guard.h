// Survives a model file that is truncated while it is mapped. Reading a page of a file
// mapping past the file's new end raises SIGBUS, which would kill the daemon mid-keystroke
// (an editor's "save" of a half-downloaded model, `wafer pull` replacing the file, a user's
// `> model.gguf`). Guarded mappings are registered here; on SIGBUS inside one, the handler
// replaces the whole mapping with zero pages at the same address (so the faulting read,
// and every later one, sees zeros instead of crashing) and counts the event. Whoever owns
// the model then notices mapping_faults() change, drops that model's answers and reloads
// it from disk (which then fails or succeeds with a clear message). A SIGBUS outside every
// guarded mapping keeps its default action.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wafer {

// Registers [addr, addr + len) (a read-only file mapping) and installs the handler once.
// At most 32 mappings at a time; further ones are simply not guarded.
void guard_mapping(const void* addr, size_t len);
// Removes the registration (before munmap).
void unguard_mapping(const void* addr);
// How many guarded mappings have lost their file so far (monotonic).
uint64_t mapping_faults();

}  // namespace wafer
