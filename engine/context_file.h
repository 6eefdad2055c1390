// One piece of another file (or of the same file beyond the prompt window) given to the
// model as extra context: definitions and signatures the code near the cursor refers to.
// The path is relative to the workspace when the server knows the workspace root; FIM
// templates that have file markers show it to the model (Qwen2.5-Coder and StarCoder2
// repository-level prompts, llama.cpp's `input_extra` chunks).
#pragma once

#include <string>

namespace wafer {

struct ContextFile {
  std::string path;
  std::string text;
};

}  // namespace wafer
