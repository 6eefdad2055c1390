// The GGUF parser behind GgufFile::open/parse. Every read goes through a cursor that checks
// the bytes left first; every count is compared with what the remaining bytes could hold
// before anything is reserved for it; sizes and offsets are computed with overflow checks.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "engine/gguf/gguf.h"

namespace wafer {

static_assert(std::endian::native == std::endian::little,
              "the GGUF reader maps little-endian files directly");

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr uint32_t kMaxDims = 4;
constexpr uint64_t kHeaderBytes = 4 + 4 + 8 + 8;
// Smallest encodings, used to bound counts before reserving memory for them.
constexpr uint64_t kMinKvBytes = 8 + 4 + 1;          // empty key, type, 1-byte value
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;  // empty name, n_dims 0, type, offset

// A name made safe for one line of an error message.
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  if (s.size() > 80) out += "...";
  return out;
}

}  // namespace

class GgufParser {
 public:
  explicit GgufParser(GgufFile& f) : f_(f), p_(f.base_), size_(f.size_) {}

  Status run() {
    if (Status s = header(); !s) return s;
    for (uint64_t k = 0; k < n_kv_; ++k)
      if (Status s = key_value(k); !s) return s;
    if (Status s = alignment(); !s) return s;
    for (uint64_t t = 0; t < n_tensors_; ++t)
      if (Status s = tensor_info(t); !s) return s;
    return place_tensor_data();
  }

 private:
  uint64_t left() const { return size_ - pos_; }

  Error fail(uint64_t at, const std::string& msg) const {
    return make_error("gguf: " + msg + " (at byte " + std::to_string(at) + ")");
  }
  Error truncated(uint64_t at, const std::string& what, uint64_t need) const {
    return fail(at, what + ": needs " + std::to_string(need) + " bytes but the file ends after " +
                        std::to_string(size_ - at) + " (file size " + std::to_string(size_) + ")");
  }

  template <typename T>
  Status read(T& out, const std::string& what) {
    if (sizeof(T) > left()) return truncated(pos_, what, sizeof(T));
    std::memcpy(&out, p_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return {};
  }

  // Reads a string without building an error context unless it fails (string arrays hold
  // ~150k entries in real vocabularies).
  bool read_string_fast(std::string_view& out) {
    uint64_t len;
    if (8 > left()) return false;
    std::memcpy(&len, p_ + pos_, 8);
    if (len > left() - 8) return false;
    out = std::string_view(reinterpret_cast<const char*>(p_ + pos_ + 8), len);
    pos_ += 8 + len;
    return true;
  }

  Status read_string(std::string_view& out, const std::string& what) {
    uint64_t at = pos_;
    if (read_string_fast(out)) return {};
    if (8 > left()) return truncated(at, what + " length", 8);
    uint64_t len;
    std::memcpy(&len, p_ + pos_, 8);
    return fail(at, what + ": string length " + std::to_string(len) + " exceeds the " +
                        std::to_string(left() - 8) + " bytes left in the file");
  }

  Status header() {
    if (size_ < kHeaderBytes)
      return make_error("gguf: file is " + std::to_string(size_) +
                        " bytes, too small for a GGUF header (24 bytes)");
    uint32_t magic = 0;
    (void)read(magic, "magic");
    if (magic != kMagic)
      return fail(0, "bad magic '" + printable(std::string_view(reinterpret_cast<const char*>(p_), 4)) +
                         "', not a GGUF file");
    uint32_t version = 0;
    (void)read(version, "version");
    if (version == 1)
      return fail(4, "GGUF version 1 is not supported (32-bit counts, files from before "
                     "2023-09); re-convert the model with a current llama.cpp");
    if (version == 0x02000000 || version == 0x03000000)
      return fail(4, "big-endian GGUF files are not supported");
    if (version != 2 && version != 3)
      return fail(4, "unsupported GGUF version " + std::to_string(version) + " (expected 2 or 3)");
    f_.version_ = version;
    (void)read(n_tensors_, "tensor count");
    (void)read(n_kv_, "metadata count");
    // Coarse bounds first: every entry takes a minimum number of bytes.
    if (n_kv_ > left() / kMinKvBytes)
      return fail(16, "metadata count " + std::to_string(n_kv_) + " exceeds what the remaining " +
                          std::to_string(left()) + " bytes can hold");
    if (n_tensors_ > left() / kMinTensorInfoBytes)
      return fail(8, "tensor count " + std::to_string(n_tensors_) + " exceeds what the remaining " +
                         std::to_string(left()) + " bytes can hold");
    f_.kvs_.reserve(n_kv_);
    f_.tensors_.reserve(n_tensors_);
    return {};
  }

  Status key_value(uint64_t k) {
    GgufKeyValue kv;
    kv.offset = pos_;
    std::string what = "metadata entry " + std::to_string(k);
    if (Status s = read_string(kv.key, what + " key"); !s) return s;
    what += " '" + printable(kv.key) + "'";
    uint32_t type = 0;
    uint64_t type_at = pos_;
    if (Status s = read(type, what + " type"); !s) return s;
    if (type > static_cast<uint32_t>(GgufType::FLOAT64))
      return fail(type_at, what + ": unknown value type " + std::to_string(type));
    kv.value.type = static_cast<GgufType>(type);
    if (Status s = value(kv.value, what); !s) return s;
    if (!f_.kv_index_.emplace(kv.key, f_.kvs_.size()).second)
      return fail(kv.offset, what + ": duplicate key");
    f_.kvs_.push_back(std::move(kv));
    return {};
  }

  Status value(GgufValue& v, const std::string& what) {
    if (v.type == GgufType::STRING) return read_string(v.str, what);
    if (v.type == GgufType::ARRAY) return array(v.array, what);
    size_t n = gguf_scalar_size(v.type);
    if (n > left()) return truncated(pos_, what + " value", n);
    v = gguf_read_scalar(v.type, p_ + pos_);
    pos_ += n;
    return {};
  }

  Status array(GgufArray& a, const std::string& what) {
    uint32_t type = 0;
    uint64_t at = pos_;
    if (Status s = read(type, what + " array element type"); !s) return s;
    if (type == static_cast<uint32_t>(GgufType::ARRAY))
      return fail(at, what + ": nested arrays are not supported");
    if (type > static_cast<uint32_t>(GgufType::FLOAT64))
      return fail(at, what + ": unknown array element type " + std::to_string(type));
    a.elem_type = static_cast<GgufType>(type);
    at = pos_;
    if (Status s = read(a.count, what + " array length"); !s) return s;
    if (a.elem_type == GgufType::STRING) {
      if (a.count > left() / 8)
        return fail(at, what + ": array of " + std::to_string(a.count) +
                            " strings exceeds the " + std::to_string(left()) + " bytes left");
      a.strings.resize(a.count);
      for (uint64_t i = 0; i < a.count; ++i) {
        if (read_string_fast(a.strings[i])) continue;
        return read_string(a.strings[i], what + " element " + std::to_string(i));
      }
      return {};
    }
    size_t n = gguf_scalar_size(a.elem_type);
    if (a.count > left() / n)
      return fail(at, what + ": array of " + std::to_string(a.count) + " " +
                          gguf_type_name(a.elem_type) + " exceeds the " + std::to_string(left()) +
                          " bytes left");
    a.data = p_ + pos_;
    pos_ += a.count * n;
    return {};
  }

  Status alignment() {
    auto it = f_.kv_index_.find("general.alignment");
    if (it == f_.kv_index_.end()) return {};
    const GgufKeyValue& kv = f_.kvs_[it->second];
    if (kv.value.type != GgufType::UINT32)
      return fail(kv.offset, "general.alignment is " + gguf_type_name(kv.value.type) +
                                 ", expected uint32");
    uint64_t a = kv.value.u;
    if (a == 0 || !std::has_single_bit(a))
      return fail(kv.offset, "general.alignment " + std::to_string(a) + " is not a power of two");
    f_.alignment_ = static_cast<uint32_t>(a);
    return {};
  }

  Status tensor_info(uint64_t t) {
    GgufTensor ti;
    uint64_t start = pos_;
    std::string what = "tensor " + std::to_string(t);
    if (Status s = read_string(ti.name, what + " name"); !s) return s;
    what += " '" + printable(ti.name) + "'";
    uint64_t at = pos_;
    if (Status s = read(ti.n_dims, what + " n_dims"); !s) return s;
    if (ti.n_dims > kMaxDims)
      return fail(at, what + ": " + std::to_string(ti.n_dims) + " dimensions (at most 4)");
    uint64_t n_elements = 1;
    for (uint32_t d = 0; d < ti.n_dims; ++d) {
      at = pos_;
      if (Status s = read(ti.ne[d], what + " dimension " + std::to_string(d)); !s) return s;
      if (ti.ne[d] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
          __builtin_mul_overflow(n_elements, ti.ne[d], &n_elements) ||
          n_elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return fail(at, what + ": dimension " + std::to_string(d) + " = " +
                            std::to_string(ti.ne[d]) + " makes the element count overflow");
    }
    ti.n_elements = n_elements;
    uint32_t raw_type = 0;
    at = pos_;
    if (Status s = read(raw_type, what + " type"); !s) return s;
    auto info = tensor_type_info(raw_type);
    if (!info)
      return fail(at, what + ": tensor type " + std::to_string(raw_type) + " is not supported");
    ti.type = info->type;
    if (ti.ne[0] % info->block_elems != 0)
      return fail(at, what + ": row length " + std::to_string(ti.ne[0]) +
                          " is not a multiple of the " + std::string(info->name) + " block size " +
                          std::to_string(info->block_elems));
    // n_elements / block_elems <= 2^63 and block_bytes is small, but check anyway.
    if (__builtin_mul_overflow(n_elements / info->block_elems, uint64_t{info->block_bytes},
                               &ti.n_bytes))
      return fail(at, what + ": byte size overflows");
    at = pos_;
    if (Status s = read(ti.offset, what + " data offset"); !s) return s;
    if (ti.offset % f_.alignment_ != 0)
      return fail(at, what + ": data offset " + std::to_string(ti.offset) +
                          " is not a multiple of the alignment " + std::to_string(f_.alignment_));
    if (!f_.tensor_index_.emplace(ti.name, f_.tensors_.size()).second)
      return fail(start, what + ": duplicate tensor name");
    f_.tensors_.push_back(ti);
    return {};
  }

  Status place_tensor_data() {
    uint64_t a = f_.alignment_;
    uint64_t data_offset = (pos_ + a - 1) / a * a;  // pos_ <= size_ < 2^63: no overflow
    f_.data_offset_ = data_offset;
    if (f_.tensors_.empty()) return {};
    if (data_offset > size_)
      return fail(pos_, "tensor data section starts at " + std::to_string(data_offset) +
                            ", past the end of the file (size " + std::to_string(size_) + ")");
    uint64_t data_size = size_ - data_offset;
    for (size_t t = 0; t < f_.tensors_.size(); ++t) {
      GgufTensor& ti = f_.tensors_[t];
      if (ti.offset > data_size || ti.n_bytes > data_size - ti.offset)
        return make_error("gguf: tensor " + std::to_string(t) + " '" + printable(ti.name) +
                          "': data offset " + std::to_string(ti.offset) + " + " +
                          std::to_string(ti.n_bytes) + " bytes past end of file (data section at " +
                          std::to_string(data_offset) + ", file size " + std::to_string(size_) + ")");
      ti.data = p_ + data_offset + ti.offset;
    }
    // No two tensors may share bytes (a hostile file could alias weights otherwise).
    std::vector<const GgufTensor*> order;
    order.reserve(f_.tensors_.size());
    for (const GgufTensor& ti : f_.tensors_)
      if (ti.n_bytes > 0) order.push_back(&ti);
    std::sort(order.begin(), order.end(),
              [](const GgufTensor* x, const GgufTensor* y) { return x->offset < y->offset; });
    for (size_t i = 1; i < order.size(); ++i)
      if (order[i - 1]->offset + order[i - 1]->n_bytes > order[i]->offset)
        return make_error("gguf: tensors '" + printable(order[i - 1]->name) + "' (offset " +
                          std::to_string(order[i - 1]->offset) + ", " +
                          std::to_string(order[i - 1]->n_bytes) + " bytes) and '" +
                          printable(order[i]->name) + "' (offset " +
                          std::to_string(order[i]->offset) + ") overlap");
    return {};
  }

  GgufFile& f_;
  const uint8_t* p_;
  uint64_t size_;
  uint64_t pos_ = 0;
  uint64_t n_tensors_ = 0;
  uint64_t n_kv_ = 0;
};

Result<GgufFile> GgufFile::parse(const void* data, size_t size) {
  GgufFile f;
  f.base_ = static_cast<const uint8_t*>(data);
  f.size_ = size;
  if (Status s = GgufParser(f).run(); !s) return s.error();
  return f;
}

}  // namespace wafer
