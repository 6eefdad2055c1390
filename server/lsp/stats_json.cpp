#include "server/lsp/stats_json.h"

#include <cmath>

#include "engine/engine.h"
#include "server/pull/model_catalog.h"
#include "server/pull/model_choice.h"

namespace wafer {

using json = nlohmann::json;

json latency_json(const LatencySeries& s) {
  auto r = [](double v) { return std::round(v * 1000) / 1000; };  // microsecond resolution
  return {{"count", s.count()},        {"p50", r(s.percentile(0.5))}, {"p90", r(s.percentile(0.9))},
          {"p99", r(s.percentile(0.99))}, {"max", r(s.max())},           {"mean", r(s.mean())}};
}

json stats_json(const Stats& stats) {
  json counts = json::object(), stages = json::object();
  for (const auto& [k, v] : stats.counters()) counts[k] = v;
  for (const auto& [k, v] : stats.stage_series()) stages[k] = latency_json(v);
  return {{"counts", counts}, {"latency_ms", stages}};
}

json stats_json(const Stats& stats, const ServiceStatus& status, const Options& options, size_t open_requests) {
  json s = stats_json(stats);
  s["documents"] = status.documents;
  s["engine_busy"] = status.engine_busy;
  if (const ModelInfo* m = status.model) {
    s["model"] = {{"name", m->name}, {"architecture", m->architecture}};
    if (!m->draft_model.empty()) s["model"]["draft"] = m->draft_model;  // "NAME, N parameters[, weights read as T]"
    if (status.model_choice) {  // the local engine's file, and why it was chosen (setting, cache, bundled)
      s["model"]["path"] = status.model_choice->path;
      s["model"]["source"] = to_string(status.model_choice->source);
      // Serving the bundled model: the catalogue model editors offer to pull instead (none
      // when $WAFER_CATALOG cannot be read: the daemon's model choice says why).
      if (status.model_choice->source == ModelSource::kBundled)
        if (Result<Catalog> catalog = model_catalog(); catalog)
          if (const CatalogModel* c = catalog->find(catalog->suggested)) {
            s["model"]["suggested"] = {{"name", c->name}, {"bytes", c->size}};
            // Its draft (faster suggestions, the same text), pulled with it unless the
            // draftModel setting names another draft or none.
            if (const CatalogModel* d = catalog->draft_of(c->name); d && options.draft_model.empty())
              s["model"]["suggested"]["draft"] = {{"name", d->name}, {"bytes", d->size}};
          }
      // Serving a catalogue model without the draft the catalogue pairs with it (pulled
      // without --with-draft): that draft, which editors offer to pull.
      if (m->draft_model.empty())
        if (std::optional<CatalogModel> d = draft_to_pull(options.draft_model, *status.model_choice, default_model_search()))
          s["model"]["suggested_draft"] = {{"name", d->name}, {"bytes", d->size}, {"for", status.model_choice->catalogue_name}};
    }
  } else {
    s["model"] = nullptr;
  }
  s["backend"] = status.backend;
  s["min_confidence"] = status.min_confidence;  // the gate's threshold in force (minConfidence, or the model's)
  // The local engine's kernels and what they chose by timing themselves (engine/kernels).
  const ComputeKernels k = compute_kernels(options.amx, options.amx_bf16);
  s["kernels"] = {{"name", k.name}, {"tuning", k.tuning}};
  // What the daemon holds: its resident memory, and the size of everything kept across
  // requests. Per-document state (open documents and what is kept for each) goes with
  // didClose; the statistics are fixed histograms.
  const HeapUse heap = heap_use();
  s["memory"] = {{"rss_kib", resident_kib()},
                 {"heap_in_use_kib", heap.in_use_kib},
                 {"heap_free_kib", heap.free_kib},
                 {"documents", status.documents},
                 {"typing_cache_entries", status.typing_cache_entries},
                 {"definition_lists", status.definition_lists},
                 {"extra_context_choices", status.extra_context_choices},
                 {"edit_times", status.edit_times},
                 {"waiting_for_model", status.waiting_for_model},
                 {"open_requests", open_requests},
                 {"stats_stages", stats.stages()},
                 {"stats_bytes", stats.bytes()}};
  const ServiceStatus::Index& ix = status.index;
  if (!ix.built) {
    s["workspace_index"] = {{"enabled", ix.enabled}, {"root", ix.root.empty() ? json() : json(ix.root)}};
  } else {
    const WorkspaceIndex::Counts& c = ix.counts;
    s["workspace_index"] = {{"enabled", ix.enabled},        {"root", ix.root},
                            {"files", c.files},             {"definitions", c.definitions},
                            {"kib", c.bytes / 1024},        {"ignored", c.ignored},
                            {"excluded_files", c.excluded}, {"too_large", c.too_large},
                            {"truncated", c.truncated},     {"limit_skipped", c.limit_skipped},
                            {"source_kib", c.source_bytes / 1024}, {"build_ms", ix.build_ms},
                            {"generation", ix.generation}};
  }
  return s;
}

}  // namespace wafer
