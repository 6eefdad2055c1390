#include "engine/model/requantize.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "engine/gguf/gguf_writer.h"
#include "engine/quant/quant.h"

namespace wafer {

bool is_requantize_target(TensorType to) { return to == TensorType::Q4_0 || to == TensorType::Q5_0; }

bool requantize_shrinks(TensorType type, TensorType to, int64_t cols) {
  if (!is_requantize_target(to) || cols <= 0 || !quant::is_supported_weight_type(type)) return false;
  const auto from_row = row_bytes(type, static_cast<uint64_t>(cols));
  const auto to_row = row_bytes(to, static_cast<uint64_t>(cols));
  return from_row && to_row && *from_row > *to_row;
}

Result<Requantized> requantize(const kernels::MatrixView& w, TensorType to, ThreadPool* pool) {
  if (!is_requantize_target(to))
    return make_error("cannot requantize to " + std::string(tensor_type_name(to)) + " (Q4_0 or Q5_0)");
  const auto out_row = w.cols > 0 ? row_bytes(to, static_cast<uint64_t>(w.cols)) : std::nullopt;
  if (!out_row)
    return make_error("rows of " + std::to_string(w.cols) + " are not whole " + std::string(tensor_type_name(to)) +
                      " blocks");
  const size_t bytes = static_cast<size_t>(w.rows) * *out_row;
  std::shared_ptr<uint8_t> owned(new uint8_t[std::max<size_t>(bytes, 1)], std::default_delete<uint8_t[]>());

  // Slices of rows, one per thread; a row that cannot be dequantized fails the whole.
  const int n_tasks = pool ? pool->size() : 1;
  std::atomic<bool> failed{false};
  auto slice = [&](int task, int /*thread*/) {
    const int64_t begin = w.rows * task / n_tasks, end = w.rows * (task + 1) / n_tasks;
    std::vector<float> row(static_cast<size_t>(w.cols));
    for (int64_t r = begin; r < end; ++r) {
      const uint8_t* src = w.data + static_cast<size_t>(r) * w.row_bytes;
      if (!quant::dequantize_row(w.type, src, row.data(), w.cols)) {
        failed.store(true, std::memory_order_relaxed);
        return;
      }
      encode_row(to, row.data(), static_cast<uint64_t>(w.cols), owned.get() + static_cast<size_t>(r) * *out_row);
    }
  };
  if (pool)
    pool->run_tasks(n_tasks, slice);
  else
    slice(0, 0);
  if (failed.load()) return make_error("cannot read rows of type " + std::string(tensor_type_name(w.type)));

  Requantized r;
  r.view = w;
  r.view.type = to;
  r.view.row_bytes = *out_row;
  r.view.data = owned.get();
  r.owned = std::move(owned);
  return r;
}

}  // namespace wafer
