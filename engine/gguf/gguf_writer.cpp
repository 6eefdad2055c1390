#include "engine/gguf/gguf_writer.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "engine/base/path_utf8.h"
#include "engine/quant/float16.h"
#include "engine/quant/quant_basic.h"
#include "engine/quant/quant_kquants.h"

namespace wafer {
namespace {

template <typename T>
void put(std::vector<uint8_t>& out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

void put_string(std::vector<uint8_t>& out, std::string_view s) {
  put<uint64_t>(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

}  // namespace

bool can_encode(TensorType type) {
  return type == TensorType::F32 || type == TensorType::F16 || type == TensorType::BF16 ||
         type == TensorType::Q8_0 || type == TensorType::Q4_0 || type == TensorType::Q5_0 ||
         type == TensorType::Q4_K || type == TensorType::Q6_K;
}

bool encode_row(TensorType type, const float* x, uint64_t n, uint8_t* out) {
  switch (type) {
    case TensorType::F32: std::memcpy(out, x, n * 4); return true;
    case TensorType::F16:
    case TensorType::BF16:
      for (uint64_t i = 0; i < n; ++i) {
        uint16_t h = type == TensorType::F16 ? f32_to_f16(x[i]) : f32_to_bf16(x[i]);
        std::memcpy(out + 2 * i, &h, 2);
      }
      return true;
    case TensorType::Q8_0: quantize_row_q8_0(x, out, n); return true;
    case TensorType::Q4_0: quantize_row_q4_0(x, out, n); return true;
    case TensorType::Q5_0: quantize_row_q5_0_simple(x, out, n); return true;
    case TensorType::Q4_K: quantize_row_q4_k_simple(x, out, n); return true;
    case TensorType::Q6_K: quantize_row_q6_k_simple(x, out, n); return true;
    default: return false;
  }
}

void GgufWriter::key(std::string_view k, GgufType type) {
  put_string(kv_bytes_, k);
  put<uint32_t>(kv_bytes_, static_cast<uint32_t>(type));
  ++n_kv_;
}

template <typename T>
void GgufWriter::scalar(std::string_view k, GgufType type, T v) {
  key(k, type);
  put<T>(kv_bytes_, v);
}

void GgufWriter::add_u8(std::string_view k, uint8_t v) { scalar(k, GgufType::UINT8, v); }
void GgufWriter::add_i8(std::string_view k, int8_t v) { scalar(k, GgufType::INT8, v); }
void GgufWriter::add_u16(std::string_view k, uint16_t v) { scalar(k, GgufType::UINT16, v); }
void GgufWriter::add_i16(std::string_view k, int16_t v) { scalar(k, GgufType::INT16, v); }
void GgufWriter::add_u32(std::string_view k, uint32_t v) { scalar(k, GgufType::UINT32, v); }
void GgufWriter::add_i32(std::string_view k, int32_t v) { scalar(k, GgufType::INT32, v); }
void GgufWriter::add_u64(std::string_view k, uint64_t v) { scalar(k, GgufType::UINT64, v); }
void GgufWriter::add_i64(std::string_view k, int64_t v) { scalar(k, GgufType::INT64, v); }
void GgufWriter::add_f32(std::string_view k, float v) { scalar(k, GgufType::FLOAT32, v); }
void GgufWriter::add_f64(std::string_view k, double v) { scalar(k, GgufType::FLOAT64, v); }
void GgufWriter::add_bool(std::string_view k, bool v) { scalar<uint8_t>(k, GgufType::BOOL, v ? 1 : 0); }

void GgufWriter::add_string(std::string_view k, std::string_view v) {
  key(k, GgufType::STRING);
  put_string(kv_bytes_, v);
}

void GgufWriter::add_string_array(std::string_view k, std::span<const std::string> v) {
  key(k, GgufType::ARRAY);
  put<uint32_t>(kv_bytes_, static_cast<uint32_t>(GgufType::STRING));
  put<uint64_t>(kv_bytes_, v.size());
  for (const std::string& s : v) put_string(kv_bytes_, s);
}

void GgufWriter::add_array(std::string_view k, GgufType elem_type, uint64_t count, std::span<const uint8_t> elems) {
  key(k, GgufType::ARRAY);
  put<uint32_t>(kv_bytes_, static_cast<uint32_t>(elem_type));
  put<uint64_t>(kv_bytes_, count);
  kv_bytes_.insert(kv_bytes_.end(), elems.begin(), elems.end());
}

void GgufWriter::add_i32_array(std::string_view k, std::span<const int32_t> v) {
  add_array(k, GgufType::INT32, v.size(),
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size_bytes()));
}

void GgufWriter::add_f32_array(std::string_view k, std::span<const float> v) {
  add_array(k, GgufType::FLOAT32, v.size(),
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size_bytes()));
}

void GgufWriter::add_tensor(std::string_view name, TensorType type, std::vector<uint64_t> ne,
                            std::span<const float> data) {
  auto copy = std::make_shared<std::vector<float>>(data.begin(), data.end());
  uint64_t row = ne.empty() ? 0 : ne[0];
  uint64_t n = copy->size();
  add_tensor(name, type, std::move(ne), [copy, row, n](uint64_t r, float* out) {
    // The size is checked in plan(); guard anyway so a mismatch cannot read past the copy.
    if ((r + 1) * row <= n) std::memcpy(out, copy->data() + r * row, row * sizeof(float));
  });
  tensors_.back().n_floats = n;
}

void GgufWriter::add_tensor(std::string_view name, TensorType type, std::vector<uint64_t> ne, RowFiller fill) {
  Tensor t;
  t.name = name;
  t.type = type;
  t.ne = std::move(ne);
  t.fill = std::move(fill);
  tensors_.push_back(std::move(t));
}

void GgufWriter::add_tensor_raw(std::string_view name, TensorType type, std::vector<uint64_t> ne,
                                std::vector<uint8_t> bytes) {
  Tensor t;
  t.name = name;
  t.type = type;
  t.ne = std::move(ne);
  t.raw = std::move(bytes);
  t.is_raw = true;
  tensors_.push_back(std::move(t));
}

// Validates every tensor, assigns data offsets and encodes everything before the data.
Status GgufWriter::plan(std::vector<Layout>& layout, std::vector<uint8_t>& h) const {
  if (alignment_ == 0 || (alignment_ & (alignment_ - 1)) != 0)
    return make_error("gguf writer: alignment " + std::to_string(alignment_) + " is not a power of two");
  layout.clear();
  uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    std::string what = "gguf writer: tensor '" + t.name + "'";
    if (t.ne.empty() || t.ne.size() > 4) return make_error(what + ": needs 1 to 4 dimensions");
    uint64_t n = 1;
    for (uint64_t d : t.ne) n *= d;
    auto rb = row_bytes(t.type, t.ne[0]);
    if (!rb) return make_error(what + ": row length " + std::to_string(t.ne[0]) + " does not fit type " +
                               std::string(tensor_type_name(t.type)));
    uint64_t bytes = *rb * (t.ne[0] ? n / t.ne[0] : 0);
    if (t.is_raw) {
      if (t.raw.size() != bytes)
        return make_error(what + ": " + std::to_string(t.raw.size()) + " raw bytes, shape needs " +
                          std::to_string(bytes));
    } else {
      if (!can_encode(t.type))
        return make_error(what + ": cannot convert float to " + std::string(tensor_type_name(t.type)));
      if (t.n_floats && *t.n_floats != n)
        return make_error(what + ": " + std::to_string(*t.n_floats) + " floats, shape needs " + std::to_string(n));
    }
    layout.push_back({bytes, offset});
    offset += (bytes + alignment_ - 1) / alignment_ * alignment_;
  }

  std::vector<uint8_t> align_kv;
  uint64_t n_kv = n_kv_;
  if (alignment_ != 32) {
    put_string(align_kv, "general.alignment");
    put<uint32_t>(align_kv, static_cast<uint32_t>(GgufType::UINT32));
    put<uint32_t>(align_kv, alignment_);
    ++n_kv;
  }
  h.clear();
  put<uint32_t>(h, 0x46554747);  // "GGUF"
  put<uint32_t>(h, 3);
  put<uint64_t>(h, tensors_.size());
  put<uint64_t>(h, n_kv);
  h.insert(h.end(), kv_bytes_.begin(), kv_bytes_.end());
  h.insert(h.end(), align_kv.begin(), align_kv.end());
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    put_string(h, t.name);
    put<uint32_t>(h, static_cast<uint32_t>(t.ne.size()));
    for (uint64_t d : t.ne) put<uint64_t>(h, d);
    put<uint32_t>(h, static_cast<uint32_t>(t.type));
    put<uint64_t>(h, layout[i].offset);
  }
  h.resize((h.size() + alignment_ - 1) / alignment_ * alignment_, 0);
  return {};
}

// Writes header then each tensor's data (row by row for generated tensors) and padding.
template <typename Sink>
Status GgufWriter::emit(Sink& sink) const {
  std::vector<Layout> layout;
  std::vector<uint8_t> header;
  if (Status s = plan(layout, header); !s) return s;
  if (!sink(header.data(), header.size())) return make_error("gguf writer: write failed");
  std::vector<float> row;
  std::vector<uint8_t> enc;
  const uint8_t zeros[256] = {};
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    const uint64_t n_bytes = layout[i].n_bytes;
    if (t.is_raw) {
      if (!t.raw.empty() && !sink(t.raw.data(), t.raw.size())) return make_error("gguf writer: write failed");
    } else if (t.ne[0] > 0) {
      uint64_t rows = n_bytes / *row_bytes(t.type, t.ne[0]);
      row.assign(t.ne[0], 0.0f);
      enc.resize(*row_bytes(t.type, t.ne[0]));
      for (uint64_t r = 0; r < rows; ++r) {
        t.fill(r, row.data());
        encode_row(t.type, row.data(), t.ne[0], enc.data());
        if (!sink(enc.data(), enc.size())) return make_error("gguf writer: write failed");
      }
    }
    uint64_t pad = (alignment_ - n_bytes % alignment_) % alignment_;
    while (pad > 0) {
      uint64_t k = pad < sizeof zeros ? pad : sizeof zeros;
      if (!sink(zeros, k)) return make_error("gguf writer: write failed");
      pad -= k;
    }
  }
  return {};
}

Status GgufWriter::write(const std::filesystem::path& path) const {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return make_error("gguf writer: cannot create " + utf8_from_path(path));
  auto sink = [&](const void* p, size_t n) {
    f.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
    return static_cast<bool>(f);
  };
  Status s = emit(sink);
  if (s && !f.flush()) s = make_error("gguf writer: write failed");
  if (s) return s;
  f.close();
  std::error_code ec;
  std::filesystem::remove(path, ec);  // no half-written model left behind
  return make_error(s.error().message + " (" + utf8_from_path(path) + ")");
}

Result<std::vector<uint8_t>> GgufWriter::to_bytes() const {
  std::vector<uint8_t> out;
  auto sink = [&](const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
    return true;
  };
  if (Status s = emit(sink); !s) return s.error();
  return out;
}

}  // namespace wafer
