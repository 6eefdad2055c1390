// SHA-256 (FIPS 180-4), streaming: used by `wafer pull` to verify downloaded models against
// the digest the catalogue (or --sha256) promises. Small and dependency-free so that the
// verification does not depend on which TLS library libcurl was built with.
//
//   Sha256 h;  h.update(bytes);  ...;  std::string hex = h.hex_digest();
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/base/result.h"

namespace wafer {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // Finishes the hash (the object is spent afterwards) and returns 64 lowercase hex digits.
  std::string hex_digest();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_{};
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

// The digest of a whole file, read in chunks; an error names the file.
Result<std::string> sha256_file(const std::filesystem::path& path);

}  // namespace wafer
