// `wafer/stats` as JSON: the service's counters and latency percentiles, and what it holds
// (documents, caches, the model, the kernels, memory, the workspace index).
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "server/config/options.h"
#include "server/service/completion_service.h"
#include "server/service/stats.h"

namespace wafer {

// {count, p50, p90, p99, max, mean}, to the microsecond.
nlohmann::json latency_json(const LatencySeries& series);
// {"counts": {...}, "latency_ms": {stage: {...}}}
nlohmann::json stats_json(const Stats& stats);
// The whole `wafer/stats` answer: stats_json() plus the service's state; `open_requests`
// counts the protocol's requests still unanswered.
nlohmann::json stats_json(const Stats& stats, const ServiceStatus& status, const Options& options,
                          size_t open_requests);

}  // namespace wafer
