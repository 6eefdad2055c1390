// Draft-model speculative decoding at set acceptance rates.
//
//   bench_draft [--shape 1.5b|3b|7b] [--draft-shape 0.5b] [--threads N] [--predict N]
//               [--weights q8_0|q4_0|q4_k_m] [--draft-weights q8_0|q4_0|q4_k_m] [--draft-quant q4_0|keep]
//               [--repeats N] [--prompts N] [--accept 0.5,0.7,0.9] [--max-draft N]
//               [--file SOURCE] [--kv-type f16|f32|q8_0] [--far-draft] [--catch-up-later] [--settle] [--json]
//
// Random-weight models agree on nothing, so a draft model's real acceptance cannot be
// measured on them. Here the draft model (the --draft-shape synthetic model, shape_model.h)
// really runs, its cost included, but its proposal is replaced (DraftFilter) token by token
// by the model's own next greedy token with probability p -- known from a reference run of
// the model alone -- and by a wrong token otherwise. Prompt lookup is off in every run.
//
// For each of --prompts FIM prompts (a cursor in SOURCE, ~400 tokens before it and a line
// after it), after an untimed warm-up that fills both caches, each of --repeats rounds runs
// the model alone and then the model with its draft at every p, on the same cached prompt,
// --predict tokens each. Reported: median decode tokens/s (the draft's forward passes are
// part of decode time), the ratio to the model alone (of the medians, and "paired": the
// median of each run's ratio to the model alone's run just before it; "overall": all runs'
// tokens over all their decode time, against the model alone's, what many suggestions give
// together, where the median run is faster than the mean), and the share of drafted tokens
// accepted; the outputs must be identical to the model alone's. Then the costs the timed runs
// met (DecodePass): the model alone's one-token pass, the verification passes by size and
// what a verified row adds to the step, and the draft's time per drafted token, with the
// bench/draft/draft_ceiling.py command that gives the most those costs allow.
//
// --far-draft: before each timed run with the draft, a warm-up at another place of the file
// takes the draft's cache there (as a request in another document does), so the run's
// first draft catches the draft up with its whole prompt first. An untimed run that drafts
// at each cursor first measures what drafting saves, as the requests between two switches
// of a working daemon do. --catch-up-later: the
// timed runs may leave that catch-up to later (CompletionRequest::draft_catch_up_later, as
// the daemon's requests do); "sat out" counts the runs that decoded without the draft.
//
// --settle: before the timed runs, completions with and without the draft at the first
// cursor until the kernels' prefetch trials (kernels/simd_backend.cpp) have chosen, as they
// have in a daemon after its first suggestions; without it the trials run during the timed
// runs. The kernels' choices are printed either way.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/draft/synthetic_draft.h"
#include "bench/kernels/trials.h"
#include "bench/latency/shape_model.h"
#include "engine/engine_local.h"

using namespace wafer;
using bench::SyntheticDraft;

namespace {

struct Options {
  std::string shape = "1.5b", draft_shape = "0.5b", file = "/usr/lib/python3.11/textwrap.py";
  std::string kv_type = "f16";  // the daemon's default
  std::string weights = "q8_0", draft_weights = "q8_0";
  std::string draft_quant = EngineOptions{}.draft_quant;  // how the engine reads the draft's weights
  int draft_vocab = EngineOptions{}.draft_vocab;          // the draft scores ids below this and the history's
  int threads = 2, predict = 16, repeats = 5, prompts = 4, max_draft = 8;
  std::vector<double> accept{0.5, 0.7, 0.9};
  bool json = false;
  bool far_draft = false, catch_up_later = false;
  bool settle = false;
};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_draft: %s\n", why.c_str());
  std::exit(2);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The median of each run's tokens/s over the model alone's run of the same round and prompt
// (measured just before it): steadier than the ratio of the medians where the machine's
// memory speed drifts within the bench.
double paired_ratio(const std::vector<double>& tps, const std::vector<double>& alone) {
  std::vector<double> r;
  for (size_t j = 0; j < tps.size() && j < alone.size(); ++j) r.push_back(tps[j] / std::max(1e-9, alone[j]));
  return median(std::move(r));
}

CompletionEvent run(LocalEngine& e, const CompletionRequest& r) {
  CompletionEvent last;
  e.complete(r, [&](const CompletionEvent& ev) {
    if (ev.kind != CompletionEvent::Kind::kText) last = ev;
  });
  if (last.kind != CompletionEvent::Kind::kDone) die("completion failed: " + last.error);
  return last;
}

struct Row {
  double p = 0;  // < 0: the model alone
  std::vector<double> tps;
  int proposed = 0, accepted = 0;
  long tokens = 0;
  double draft_ms = 0, decode_ms = 0;
  bool identical = true;
  int off_reference = 0;  // runs whose output left the reference
  int sat_out = 0;        // runs that decoded without the draft (Timings::draft_behind)
  // The costs in place (DecodePass): the model's passes by their tokens (index: tokens),
  // and the draft model's time per drafted token of each typical draft (a first draft in a
  // new place, which prefills the draft's cache, left out).
  std::vector<std::vector<double>> pass_ms = std::vector<std::vector<double>>(2);
  std::vector<double> draft_token_ms;
  void observe(const DecodePass& pass) {
    if (pass.rows >= static_cast<int>(pass_ms.size())) pass_ms.resize(static_cast<size_t>(pass.rows) + 1);
    pass_ms[static_cast<size_t>(pass.rows)].push_back(pass.ms);
    if (pass.typical && pass.rows > 1) draft_token_ms.push_back(pass.draft_ms / (pass.rows - 1));
  }
};

// What a verification pass costs per token over the one-token step: the median pass of each
// size over the step, per drafted token, weighted by how many passes had that size.
double verify_row_ms(const Row& r, double step_ms) {
  double extra = 0, rows = 0;
  for (size_t n = 2; n < r.pass_ms.size(); ++n) {
    const auto& v = r.pass_ms[n];
    if (v.empty()) continue;
    extra += static_cast<double>(v.size()) * (median(v) - step_ms);
    rows += static_cast<double>(v.size() * (n - 1));
  }
  return rows > 0 ? extra / rows : 0;
}

CompletionRequest prompt_at(const std::string& text, size_t cursor, int predict, const std::string& key) {
  CompletionRequest r;
  r.session_key = key;
  const size_t begin = cursor > 1600 ? cursor - 1600 : 0;  // ~400 tokens of code
  r.prefix = text.substr(begin, cursor - begin);
  const size_t eol = text.find('\n', cursor);
  r.suffix = text.substr(cursor, (eol == std::string::npos ? text.size() : eol + 1) - cursor);
  r.max_tokens = predict;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 == args.size()) die(a + " needs a value");
      return args[++i];
    };
    if (a == "--shape") o.shape = value();
    else if (a == "--draft-shape") o.draft_shape = value();
    else if (a == "--weights") o.weights = value();
    else if (a == "--draft-weights") o.draft_weights = value();
    else if (a == "--draft-quant") o.draft_quant = value();
    else if (a == "--draft-vocab") o.draft_vocab = std::atoi(value().c_str());
    else if (a == "--threads") o.threads = std::atoi(value().c_str());
    else if (a == "--predict") o.predict = std::atoi(value().c_str());
    else if (a == "--repeats") o.repeats = std::atoi(value().c_str());
    else if (a == "--prompts") o.prompts = std::atoi(value().c_str());
    else if (a == "--max-draft") o.max_draft = std::atoi(value().c_str());
    else if (a == "--file") o.file = value();
    else if (a == "--kv-type") o.kv_type = value();
    else if (a == "--json") o.json = true;
    else if (a == "--far-draft") o.far_draft = true;
    else if (a == "--catch-up-later") o.catch_up_later = true;
    else if (a == "--settle") o.settle = true;
    else if (a == "--accept") {
      o.accept.clear();
      std::stringstream ss(value());
      for (std::string p; std::getline(ss, p, ',');) o.accept.push_back(std::atof(p.c_str()));
    } else die("unknown option " + a);
  }
  auto target = bench::shape_model(o.shape, "qwen2", o.weights);
  if (!target) die(target.error().message);
  auto draft = bench::shape_model(o.draft_shape, "qwen2", o.draft_weights);
  if (!draft) die(draft.error().message);
  std::ifstream in(o.file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() < 4000) die("cannot read enough of " + o.file);

  EngineOptions eo;
  eo.model_path = *target;
  eo.draft_model_path = *draft;
  eo.draft_quant = o.draft_quant;
  eo.draft_vocab = o.draft_vocab;
  eo.threads = o.threads;
  eo.context_length = 2048;
  eo.max_draft = o.max_draft;
  eo.prompt_lookup = false;
  eo.copy_strength = 0;
  eo.kv_type = o.kv_type;
  auto loaded = LocalEngine::load(eo);
  if (!loaded) die(loaded.error().message);
  LocalEngine& e = **loaded;
  auto synthetic = std::make_shared<SyntheticDraft>();
  synthetic->n_vocab = static_cast<int32_t>(e.tokenizer().n_vocab());
  e.set_draft_filter([synthetic](std::span<const int32_t> output, std::vector<int32_t>& d) { (*synthetic)(output, d); });
  Row* observed = nullptr;  // the row whose timed run is decoding (null: an untimed run)
  e.set_pass_observer([&observed](const DecodePass& pass) {
    if (observed) observed->observe(pass);
  });

  const auto tuning = [&eo] { return compute_kernels(eo.amx, eo.amx_bf16).tuning; };
  if (o.settle) {
    size_t cursor = text.find('\n', text.size() / static_cast<size_t>(o.prompts + 1)) + 1;
    const CompletionRequest req = prompt_at(text, cursor, o.predict, "bench");
    if (!bench::record_reference(e, *synthetic, req, o.max_draft)) die("the reference run failed");
    constexpr int kMaxSettleRuns = 200;
    int runs = 0;
    // Settled: the trials of the model's weight type (one token and batches) and of the
    // draft's one-token steps have chosen (the draft's few-token catch-ups seldom finish one).
    const std::string draft_type = o.draft_quant == "keep" ? o.draft_weights : o.draft_quant;
    std::vector<std::string> trials{o.weights + " decode", o.weights + " batch"};
    if (draft_type != o.weights) trials.push_back(draft_type + " decode");
    const auto settled = [&] { return bench::trials_chosen(tuning(), trials); };
    for (; runs < kMaxSettleRuns && !settled(); ++runs) {
      e.set_max_draft(runs % 2 ? 0 : o.max_draft);
      synthetic->p = 0.9;
      synthetic->rng.seed(static_cast<uint32_t>(runs));
      run(e, req);
    }
    if (!o.json) std::fprintf(stderr, "settled after %d runs%s\n", runs, runs == kMaxSettleRuns ? " (not all chosen)" : "");
  }

  std::vector<Row> rows(1 + o.accept.size());
  rows[0].p = -1;
  for (size_t i = 0; i < o.accept.size(); ++i) rows[i + 1].p = o.accept[i];
  for (int k = 0; k < o.prompts; ++k) {
    // Cursors spread over the file, each at a line's first non-blank character.
    size_t cursor = text.size() * static_cast<size_t>(k + 1) / static_cast<size_t>(o.prompts + 1);
    cursor = text.find('\n', cursor) + 1;
    while (cursor < text.size() && text[cursor] == ' ') ++cursor;
    const CompletionRequest req = prompt_at(text, cursor, o.predict, "bench");
    // The reference (synthetic_draft.h), which also warms both caches.
    if (!bench::record_reference(e, *synthetic, req, o.max_draft)) die("the reference run failed");
    e.set_max_draft(0);
    const CompletionEvent alone_warm = run(e, req);
    if (o.far_draft && rows.size() > 1) {  // drafting at the cursor first measures what drafting saves, as the
      e.set_max_draft(o.max_draft);         // daemon's requests between two switches do
      synthetic->p = rows[1].p;
      synthetic->rng.seed(static_cast<uint32_t>(1000 * k));
      run(e, req);
    }
    for (int r = 0; r < o.repeats; ++r) {
      for (Row& row : rows) {
        e.set_max_draft(row.p < 0 ? 0 : o.max_draft);
        synthetic->p = row.p;
        synthetic->rng.seed(static_cast<uint32_t>(1000 * k + r + 1));
        synthetic->off_reference = false;
        if (o.far_draft && row.p >= 0) {  // the draft's cache goes elsewhere (the file's start)
          CompletionRequest away = prompt_at(text, 1700, o.predict, "away");
          away.prefill_only = true;
          away.warm_draft = true;
          run(e, away);
        }
        CompletionRequest timed = req;
        timed.draft_catch_up_later = o.catch_up_later;
        observed = &row;
        const CompletionEvent ev = run(e, timed);
        observed = nullptr;
        row.off_reference += synthetic->off_reference ? 1 : 0;
        const Timings& t = ev.timings;
        row.tps.push_back(1000.0 * t.tokens_generated / std::max(1e-3, t.decode_ms));
        row.proposed += t.model_drafts_proposed;
        row.accepted += t.model_drafts_accepted;
        row.draft_ms += t.draft_ms;
        row.decode_ms += t.decode_ms;
        row.tokens += t.tokens_generated;
        row.identical = row.identical && ev.text == alone_warm.text;
        row.sat_out += t.draft_behind ? 1 : 0;
      }
    }
  }

  const double base = median(rows[0].tps);
  const double step_ms = median(rows[0].pass_ms[1]);  // the model alone's one-token pass
  const auto overall = [&rows](const Row& r) {  // all tokens over all decode time, against the model alone's
    const auto rate = [](const Row& x) { return x.decode_ms > 0 ? x.tokens / x.decode_ms : 0.0; };
    return rate(rows[0]) > 0 ? rate(r) / rate(rows[0]) : 0.0;
  };
  if (o.json) {
    std::printf("{\"shape\":\"%s\",\"weights\":\"%s\",\"draft_shape\":\"%s\",\"draft_weights\":\"%s\","
                "\"draft_quant\":\"%s\",\"threads\":%d,\"predict\":%d,\"repeats\":%d,\"prompts\":%d,\"max_draft\":%d,\"rows\":[",
                o.shape.c_str(), o.weights.c_str(), o.draft_shape.c_str(), o.draft_weights.c_str(),
                o.draft_quant.c_str(), o.threads, o.predict, o.repeats, o.prompts, o.max_draft);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::printf("%s{\"p\":%s,\"tokens_per_s\":%.2f,\"ratio\":%.3f,\"paired_ratio\":%.3f,\"overall_ratio\":%.3f,\"accepted\":%d,"
                  "\"proposed\":%d,\"draft_share\":%.3f,\"identical\":%s,\"off_reference\":%d,\"sat_out\":%d,"
                  "\"step_ms\":%.2f,\"verify_row_ms\":%.2f,\"draft_token_ms\":%.2f}",
                  i ? "," : "", r.p < 0 ? "null" : std::to_string(r.p).c_str(), median(r.tps),
                  median(r.tps) / std::max(1e-9, base), paired_ratio(r.tps, rows[0].tps), overall(r), r.accepted, r.proposed,
                  r.decode_ms > 0 ? r.draft_ms / r.decode_ms : 0, r.identical ? "true" : "false", r.off_reference, r.sat_out,
                  step_ms, r.p < 0 ? 0.0 : verify_row_ms(r, step_ms), median(r.draft_token_ms));
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("%s %s model, %s %s draft (read as %s), %d threads, %d-token suggestions, median of %d runs (%d "
              "prompts x %d)\n",
              o.shape.c_str(), o.weights.c_str(), o.draft_shape.c_str(), o.draft_weights.c_str(),
              o.draft_quant == "keep" ? "stored" : o.draft_quant.c_str(), o.threads, o.predict,
              o.repeats * o.prompts, o.prompts, o.repeats);
  std::printf("%-14s %10s %7s %7s %8s %18s %12s %10s\n", "", "tokens/s", "ratio", "paired", "overall", "drafts accepted",
              "draft time", "identical");
  for (const Row& r : rows) {
    char name[32];
    if (r.p < 0) std::snprintf(name, sizeof name, "model alone");
    else std::snprintf(name, sizeof name, "draft p=%.2f", r.p);
    char acc[32] = "-";
    if (r.proposed) std::snprintf(acc, sizeof acc, "%d/%d (%.0f%%)", r.accepted, r.proposed, 100.0 * r.accepted / r.proposed);
    std::printf("%-14s %10.2f %6.2fx %6.2fx %7.2fx %18s %11.0f%% %10s\n", name, median(r.tps),
                median(r.tps) / std::max(1e-9, base), paired_ratio(r.tps, rows[0].tps), overall(r), acc,
                r.decode_ms > 0 ? 100 * r.draft_ms / r.decode_ms : 0.0, r.identical ? "yes" : "NO");
  }
  std::printf("kernels: %s\n", tuning().c_str());
  for (const Row& r : rows) {
    if (r.p < 0 || r.draft_token_ms.empty()) continue;
    std::string sizes;
    for (size_t n = 2; n < r.pass_ms.size(); ++n) {
      if (r.pass_ms[n].empty()) continue;
      char cell[48];
      std::snprintf(cell, sizeof cell, " %zu: %.1f (%zu)", n, median(r.pass_ms[n]), r.pass_ms[n].size());
      sizes += cell;
    }
    const double row_ms = verify_row_ms(r, step_ms), draft_ms = median(r.draft_token_ms);
    std::printf("draft p=%.2f in place: model step %.1f ms (alone); verification +%.2f ms per drafted token (median ms of "
                "passes by tokens (count):%s); the draft %.2f ms per drafted token (median of %zu drafts)\n",
                r.p, step_ms, row_ms, sizes.c_str(), draft_ms, r.draft_token_ms.size());
    std::printf("  the most these costs give: python3 bench/draft/draft_ceiling.py --step %.1f --verify-row %.2f "
                "--draft-token %.2f --accept %.2f --predict %d --max-draft %d\n",
                step_ms, row_ms, draft_ms, r.p, o.predict, o.max_draft);
  }
  for (const Row& r : rows) {
    if (o.catch_up_later && r.p >= 0)
      std::printf("draft p=%.2f: the draft sat out %d of %d runs\n", r.p, r.sat_out, o.repeats * o.prompts);
    if (r.off_reference)
      std::printf("draft p=%.2f: the output of %d of %d runs left the reference; their acceptance is not p's\n", r.p,
                  r.off_reference, o.repeats * o.prompts);
  }
  return 0;
}
