// libFuzzer target for the GGUF reader: parse arbitrary bytes, and when they parse, use
// everything the reader hands out (every getter on every key, every tensor's bytes, the
// model hyper-parameters) so that ASan sees any view that points outside the input.
#include <cstddef>
#include <cstdint>

#include "engine/gguf/gguf.h"
#include "engine/model/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wafer;
  auto file = GgufFile::parse(data, size);
  if (!file) return 0;
  volatile uint64_t sink = 0;
  for (const GgufKeyValue& kv : file->metadata()) {
    sink = sink + kv.key.size();
    (void)file->get_u32(kv.key);
    (void)file->get_i64(kv.key);
    (void)file->get_f32(kv.key);
    (void)file->get_bool(kv.key);
    if (auto s = file->get_string(kv.key)) sink = sink + (s->empty() ? 0 : static_cast<uint8_t>(s->back()));
    if (auto a = file->get_string_array(kv.key))
      for (std::string_view s : *a) sink = sink + (s.empty() ? 0 : static_cast<uint8_t>(s.back()));
    if (auto a = file->get_i32_array(kv.key)) sink = sink + a->size();
    if (auto a = file->get_f32_array(kv.key)) sink = sink + a->size();
  }
  for (const GgufTensor& t : file->tensors()) {
    if (file->tensor(t.name) == nullptr) __builtin_trap();
    if (t.n_bytes > 0) sink = sink + t.data[0] + t.data[t.n_bytes - 1];
  }
  (void)read_model_config(*file);
  (void)parameter_count(*file);
  return 0;
}
