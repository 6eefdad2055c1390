// GgufFile: the read-only mapping and the typed metadata getters (parsing is in
// gguf_parse.cpp).
#include "engine/gguf/gguf.h"

#include "engine/base/path_utf8.h"
#include "engine/runtime/mapping_guard.h"
#include "engine/runtime/platform.h"

#include <cstring>
#include <limits>

namespace wafer {

struct GgufFile::Mapping {
  platform::FileView view;
  ~Mapping() {
    if (!view.data) return;
    unguard_mapping(view.data);
    platform::unmap_file(view);
  }
};

GgufFile::GgufFile() = default;
GgufFile::GgufFile(GgufFile&&) noexcept = default;
GgufFile& GgufFile::operator=(GgufFile&&) noexcept = default;
GgufFile::~GgufFile() = default;

std::string gguf_type_name(GgufType type) {
  switch (type) {
    case GgufType::UINT8: return "uint8";
    case GgufType::INT8: return "int8";
    case GgufType::UINT16: return "uint16";
    case GgufType::INT16: return "int16";
    case GgufType::UINT32: return "uint32";
    case GgufType::INT32: return "int32";
    case GgufType::FLOAT32: return "float32";
    case GgufType::BOOL: return "bool";
    case GgufType::STRING: return "string";
    case GgufType::ARRAY: return "array";
    case GgufType::UINT64: return "uint64";
    case GgufType::INT64: return "int64";
    case GgufType::FLOAT64: return "float64";
  }
  return "type " + std::to_string(static_cast<uint32_t>(type));
}

size_t gguf_scalar_size(GgufType type) {
  switch (type) {
    case GgufType::UINT8:
    case GgufType::INT8:
    case GgufType::BOOL: return 1;
    case GgufType::UINT16:
    case GgufType::INT16: return 2;
    case GgufType::UINT32:
    case GgufType::INT32:
    case GgufType::FLOAT32: return 4;
    case GgufType::UINT64:
    case GgufType::INT64:
    case GgufType::FLOAT64: return 8;
    default: return 0;
  }
}

GgufValue gguf_read_scalar(GgufType type, const uint8_t* q) {
  GgufValue v;
  v.type = type;
  auto get = [&](auto x) {
    std::memcpy(&x, q, sizeof x);
    return x;
  };
  switch (type) {
    case GgufType::UINT8: v.u = get(uint8_t{}); break;
    case GgufType::UINT16: v.u = get(uint16_t{}); break;
    case GgufType::UINT32: v.u = get(uint32_t{}); break;
    case GgufType::UINT64: v.u = get(uint64_t{}); break;
    case GgufType::INT8: v.i = get(int8_t{}); break;
    case GgufType::INT16: v.i = get(int16_t{}); break;
    case GgufType::INT32: v.i = get(int32_t{}); break;
    case GgufType::INT64: v.i = get(int64_t{}); break;
    case GgufType::BOOL: v.i = get(uint8_t{}) != 0; break;
    case GgufType::FLOAT32: v.f = get(float{}); break;
    case GgufType::FLOAT64: v.f = get(double{}); break;
    default: break;
  }
  return v;
}

Result<GgufFile> GgufFile::open(const std::filesystem::path& path) {
  auto fail = [&](const std::string& msg) { return make_error(utf8_from_path(path) + ": " + msg); };
  auto mapping = std::make_unique<Mapping>();
  std::string error;
  if (!platform::map_file(path, mapping->view, error)) return fail(error);
  const size_t size = mapping->view.bytes;
  // A file truncated while mapped must not kill us (SIGBUS, an in-page error).
  if (mapping->view.data) guard_mapping(mapping->view.data, size);
  Result<GgufFile> parsed = parse(mapping->view.data, size);
  if (!parsed) return fail(parsed.error().message);
  parsed->mapping_ = std::move(mapping);
  return parsed;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  auto it = kv_index_.find(key);
  return it == kv_index_.end() ? nullptr : &kvs_[it->second].value;
}

const GgufTensor* GgufFile::tensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

void GgufFile::release(const GgufTensor& t) const {
  if (mapping_ && t.data && t.n_bytes > 0) platform::release_file_pages(t.data, static_cast<size_t>(t.n_bytes));
}

namespace {

Error missing(std::string_view key) { return make_error("gguf: missing key '" + std::string(key) + "'"); }

Error mismatch(std::string_view key, GgufType got, const char* expected) {
  return make_error("gguf: key '" + std::string(key) + "' is " + gguf_type_name(got) + ", expected " +
                    expected);
}

bool is_unsigned(GgufType t) {
  return t == GgufType::UINT8 || t == GgufType::UINT16 || t == GgufType::UINT32 || t == GgufType::UINT64;
}
bool is_signed(GgufType t) {
  return t == GgufType::INT8 || t == GgufType::INT16 || t == GgufType::INT32 || t == GgufType::INT64;
}

// An integer value checked against the range of T.
template <typename T>
Result<T> integer(const GgufValue* v, std::string_view key, const char* type_name) {
  if (!v) return missing(key);
  using L = std::numeric_limits<T>;
  if (is_unsigned(v->type)) {
    if (v->u <= static_cast<uint64_t>(L::max())) return static_cast<T>(v->u);
  } else if (is_signed(v->type)) {
    bool fits = v->i >= 0 ? static_cast<uint64_t>(v->i) <= static_cast<uint64_t>(L::max())
                          : (L::is_signed && v->i >= static_cast<int64_t>(L::min()));
    if (fits) return static_cast<T>(v->i);
  } else {
    return mismatch(key, v->type, type_name);
  }
  std::string shown = is_unsigned(v->type) ? std::to_string(v->u) : std::to_string(v->i);
  return make_error("gguf: key '" + std::string(key) + "' value " + shown + " does not fit " + type_name);
}

Error elem_mismatch(std::string_view key, GgufType got, const char* expected) {
  return make_error("gguf: key '" + std::string(key) + "' is an array of " + gguf_type_name(got) + ", expected " +
                    expected);
}

Result<const GgufArray*> array_of(const GgufValue* v, std::string_view key) {
  if (!v) return missing(key);
  if (v->type != GgufType::ARRAY) return mismatch(key, v->type, "an array");
  return &v->array;
}

}  // namespace

Result<uint32_t> GgufFile::get_u32(std::string_view key) const { return integer<uint32_t>(find(key), key, "uint32"); }
Result<uint64_t> GgufFile::get_u64(std::string_view key) const { return integer<uint64_t>(find(key), key, "uint64"); }
Result<int32_t> GgufFile::get_i32(std::string_view key) const { return integer<int32_t>(find(key), key, "int32"); }
Result<int64_t> GgufFile::get_i64(std::string_view key) const { return integer<int64_t>(find(key), key, "int64"); }

Result<double> GgufFile::get_f64(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return missing(key);
  if (v->type != GgufType::FLOAT32 && v->type != GgufType::FLOAT64) return mismatch(key, v->type, "a float");
  return v->f;
}

Result<float> GgufFile::get_f32(std::string_view key) const {
  Result<double> d = get_f64(key);
  if (!d) return d.error();
  return static_cast<float>(*d);
}

Result<bool> GgufFile::get_bool(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return missing(key);
  if (v->type != GgufType::BOOL) return mismatch(key, v->type, "bool");
  return v->i != 0;
}

Result<std::string_view> GgufFile::get_string(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return missing(key);
  if (v->type != GgufType::STRING) return mismatch(key, v->type, "string");
  return v->str;
}

Result<std::span<const std::string_view>> GgufFile::get_string_array(std::string_view key) const {
  auto a = array_of(find(key), key);
  if (!a) return a.error();
  if ((*a)->elem_type != GgufType::STRING)
    return elem_mismatch(key, (*a)->elem_type, "strings");
  return std::span<const std::string_view>((*a)->strings);
}

Result<uint64_t> GgufFile::get_array_length(std::string_view key) const {
  auto a = array_of(find(key), key);
  if (!a) return a.error();
  return (*a)->count;
}

Result<std::vector<int32_t>> GgufFile::get_i32_array(std::string_view key) const {
  auto ar = array_of(find(key), key);
  if (!ar) return ar.error();
  const GgufArray& a = **ar;
  std::vector<int32_t> out(a.count);
  if (a.elem_type == GgufType::INT32) {
    if (a.count) std::memcpy(out.data(), a.data, a.count * 4);
    return out;
  }
  if (!is_signed(a.elem_type) && !is_unsigned(a.elem_type))
    return elem_mismatch(key, a.elem_type, "integers");
  size_t n = gguf_scalar_size(a.elem_type);
  for (uint64_t i = 0; i < a.count; ++i) {
    GgufValue v = gguf_read_scalar(a.elem_type, a.data + i * n);
    auto x = integer<int32_t>(&v, key, "int32");
    if (!x) return make_error(x.error().message + " (element " + std::to_string(i) + ")");
    out[i] = *x;
  }
  return out;
}

Result<std::vector<float>> GgufFile::get_f32_array(std::string_view key) const {
  auto ar = array_of(find(key), key);
  if (!ar) return ar.error();
  const GgufArray& a = **ar;
  std::vector<float> out(a.count);
  if (a.elem_type == GgufType::FLOAT32) {
    if (a.count) std::memcpy(out.data(), a.data, a.count * 4);
  } else if (a.elem_type == GgufType::FLOAT64) {
    for (uint64_t i = 0; i < a.count; ++i) {
      double d;
      std::memcpy(&d, a.data + i * 8, 8);
      out[i] = static_cast<float>(d);
    }
  } else {
    return elem_mismatch(key, a.elem_type, "floats");
  }
  return out;
}

}  // namespace wafer
