// A GGUF file built in memory for a test: general.architecture "llama" and whatever `add`
// writes, handed to `read` while its bytes are alive.
#pragma once

#include <catch2/catch.hpp>

#include <functional>

#include "engine/gguf/gguf.h"
#include "engine/gguf/gguf_writer.h"

namespace wafer {

template <class T>
T read_built_gguf(const std::function<void(GgufWriter&)>& add, const std::function<T(const GgufFile&)>& read) {
  GgufWriter w;
  w.add_string("general.architecture", "llama");
  add(w);
  auto bytes = w.to_bytes();
  REQUIRE(bytes.ok());
  auto file = GgufFile::parse(bytes->data(), bytes->size());
  REQUIRE(file.ok());
  return read(*file);
}

}  // namespace wafer
