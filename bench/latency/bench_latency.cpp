// Per-keystroke latency of the in-process engine.
//
//   bench_latency [--model FILE] [--file SOURCE] [--chars N] [--threads N] [--predict N]
//                 [--prompt-tokens N] [--suffix-tokens N] [--no-speculation]
//                 [--spec-tokens N] [--skip-replay] [--skip-spec] [--skip-cancel] [--json]
//                 [--chunk-reuse N [--check-exact]] [--fim-format NAME] [--kv-type f16|f32|q8_0]
//                 [--shape 0.5b|1.5b|3b|7b] [--vocab qwen2|filler] [--write-model]
//                 [--context daemon|fixed] [--latency-budget-ms N]
//
// Without --model, a Qwen2.5-Coder-0.5B-shaped (--shape 1.5b, 7b: 1.5B-, 7B-shaped) synthetic
// Q8_0 model with random weights is written to the temp directory once (shape_model.h);
// --write-model writes it, prints its path and stops. Its vocabulary (--vocab) is Qwen2's
// real one (151,936 tokens, the same BPE as Qwen2.5-Coder), read from the reference data in
// tests/data, so text tokenizes as it does for the real model; `filler` is a byte-level
// vocabulary padded with word-like tokens, which splits code into about four times as many
// tokens and so stands for no real model.
//
// 1. Typing replay: N characters of SOURCE (default /usr/lib/python3.11/textwrap.py) are
//    removed at the cursor (the middle of the file) and typed back one at a time, one FIM
//    request per character. With --context daemon (the default) each request is the one
//    the daemon builds (daemon_prompts.h: its window, extra context, file header, token
//    healing, stop rules and first-token budget - --latency-budget-ms N, 0: none - with
//    default settings), so the figures predict what `wafer bench replay` shows of the
//    engine. With --context fixed the prompt is a plain window of
//    ~prompt-tokens tokens with the suffix cut to suffix-tokens, its start fixed while
//    typing. Reports median/p90 of tokens prefilled, time to first token and total time
//    per request (the first, cold request is reported separately).
// 2. Speculation: a prompt whose continuation repeats earlier text, greedy, with and
//    without prompt-lookup drafts: tokens/s, acceptance, identical output checked.
// 3. Cancellation latency: flag set from another thread during prefill and during decode,
//    time until complete() returns.
//
// --chunk-reuse N moves cached spans of at least N tokens instead of recomputing them (the
// suffix after each keystroke; engine/decode/chunk_reuse.h). --check-exact then also runs every
// request without it (on another session, untimed) and reports how often the two outputs
// are identical and how far apart the first-token choices are.
//
// --fim-format NAME picks the prompt format (engine/decode/fim_template.h); with an -spm format the
// suffix comes first and a keystroke changes only the end of the prompt.
//
// --kv-type picks the KV cache's elements (default f16, the daemon's default).
//
// --json prints one JSON object instead of the readable summary.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/latency/daemon_prompts.h"
#include "bench/latency/shape_model.h"
#include "engine/engine_local.h"

using namespace wafer;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string model, file = "/usr/lib/python3.11/textwrap.py";
  int chars = 200, threads = 2, predict = 16, prompt_tokens = 1500, suffix_tokens = 64, spec_tokens = 64;
  int chunk_reuse = 0;
  std::string shape = "0.5b";     // the synthetic model's shape when --model is not given
  std::string vocab = "qwen2";    // its vocabulary: Qwen2's real one, or "filler"
  bool write_model_only = false;  // --write-model: write it, print its path, stop
  std::string fim_format = "auto";  // e.g. "qwen-spm": suffix first, a keystroke changes only the prompt end
  std::string kv_type = "f16";
  int latency_budget_ms = -1;       // --context daemon: the first-token budget (-1: the daemon's default)
  std::string context = "daemon";  // daemon: prompts by the daemon's context builder; fixed: a fixed window
  bool speculation = true, replay = true, spec = true, cancel = true, json = false, check_exact = false;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double at = p * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

CompletionEvent run(Engine& e, const CompletionRequest& r) {
  CompletionEvent last;
  e.complete(r, [&](const CompletionEvent& ev) {
    if (ev.kind != CompletionEvent::Kind::kText) last = ev;
  });
  return last;
}

// The synthetic stand-in for a real model of the given shape (shape_model.h), or exit.
std::string default_model(const std::string& shape, const std::string& vocab) {
  auto path = bench::shape_model(shape, vocab);
  if (!path) {
    std::fprintf(stderr, "bench_latency: %s\n", path.error().message.c_str());
    std::exit(2);
  }
  return *path;
}

// The longest tail of `text` starting at a line start with at most `budget` tokens.
size_t window_start(const Tokenizer& tok, const std::string& text, size_t budget) {
  size_t start = text.size();
  for (;;) {
    if (start == 0) return 0;
    size_t prev = text.rfind('\n', start >= 2 ? start - 2 : 0);
    prev = prev == std::string::npos ? 0 : prev + 1;
    if (tok.encode(std::string_view(text).substr(prev)).size() > budget) return start;
    start = prev;
  }
}

struct Replay {
  int requests = 0;
  double prefilled_p50 = 0, prefilled_p90 = 0, ttft_p50 = 0, ttft_p90 = 0, total_p50 = 0, total_p90 = 0;
  double generated_p50 = 0, prompt_p50 = 0, cold_total_ms = 0, cold_prefilled = 0, moved_p50 = 0;
  double warm_ms = 0, after_warm_ttft_ms = 0, after_warm_total_ms = 0;  // a prefill-only request, then the real one
  int compared = 0, identical = 0, same_first_token = 0;  // --check-exact
  int budget_cut = 0;  // requests whose suffix the first-token budget shortened
  double cut_tokens_p50 = 0;  // suffix tokens left out, median over those requests
};

// A completion's first word with its leading whitespace: a proxy for its first token (the
// events carry text, not token ids).
std::string first_word(const std::string& s) {
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n')) ++b;
  size_t e = b;
  while (e < s.size() && s[e] != ' ' && s[e] != '\t' && s[e] != '\n') ++e;
  return s.substr(0, e);
}

Replay typing_replay(LocalEngine& e, const Options& o) {
  std::ifstream in(o.file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string source = ss.str();
  if (source.size() < static_cast<size_t>(4 * o.chars)) {
    std::fprintf(stderr, "bench_latency: %s is too small\n", o.file.c_str());
    std::exit(1);
  }
  const Tokenizer& tok = e.tokenizer();
  size_t cursor = source.size() / 2;
  cursor = source.find('\n', cursor) + 1;  // the cursor starts on a fresh line
  const std::string typed = source.substr(cursor, static_cast<size_t>(o.chars));
  const std::string after = source.substr(cursor + typed.size());
  // Suffix: its first suffix-tokens tokens, fixed while typing (text after the cursor).
  auto suffix_ids = tok.encode(after);
  suffix_ids.resize(std::min(suffix_ids.size(), static_cast<size_t>(o.suffix_tokens)));
  const std::string suffix = tok.decode(suffix_ids);
  const std::string before = source.substr(0, cursor);
  const size_t prefix_budget = static_cast<size_t>(std::max(16, o.prompt_tokens - o.suffix_tokens - 3));
  const size_t start = window_start(tok, before, prefix_budget);

  // The request after `i` characters are typed back.
  std::unique_ptr<bench::DaemonPrompts> daemon;
  if (o.context == "daemon") daemon = std::make_unique<bench::DaemonPrompts>(o.file, e.info(), o.predict, o.latency_budget_ms);
  auto make = [&](int i) {
    if (daemon) {
      const std::string text = before + typed.substr(0, static_cast<size_t>(i)) + after;
      return daemon->request(text, cursor + static_cast<size_t>(i));
    }
    CompletionRequest req;
    req.session_key = o.file;
    req.prefix = source.substr(start, cursor - start) + typed.substr(0, static_cast<size_t>(i));
    req.suffix = suffix;
    req.max_tokens = o.predict;
    return req;
  };

  Replay r;
  {  // The daemon's wafer/warm: a prefill-only request, then the cold request's prompt on that session.
    CompletionRequest req = make(0);
    req.session_key += "#warm";
    req.prefill_only = true;
    r.warm_ms = run(e, req).timings.total_ms;
    req.prefill_only = false;
    const Timings t = run(e, req).timings;
    r.after_warm_ttft_ms = t.first_token_ms;
    r.after_warm_total_ms = t.total_ms;
  }
  std::vector<double> prefilled, ttft, total, generated, prompt, moved, cut;
  for (int i = 0; i <= o.chars; ++i) {
    CompletionRequest req = make(i);
    const CompletionEvent done = run(e, req);
    if (done.kind == CompletionEvent::Kind::kError) {
      std::fprintf(stderr, "bench_latency: %s\n", done.error.c_str());
      std::exit(1);
    }
    const Timings& t = done.timings;
    if (o.check_exact && i > 0) {  // the same request without chunk reuse, on its own session
      req.session_key += "#exact";
      e.set_chunk_reuse_min(0);
      const CompletionEvent exact = run(e, req);
      e.set_chunk_reuse_min(o.chunk_reuse);
      ++r.compared;
      r.identical += exact.text == done.text;
      r.same_first_token += first_word(exact.text) == first_word(done.text);
    } else if (o.check_exact) {
      req.session_key += "#exact";
      e.set_chunk_reuse_min(0);
      run(e, req);
      e.set_chunk_reuse_min(o.chunk_reuse);
    }
    if (i == 0) {  // the cold request fills the cache: reported on its own
      r.cold_total_ms = t.total_ms;
      r.cold_prefilled = t.tokens_prefilled;
      continue;
    }
    prefilled.push_back(t.tokens_prefilled);
    ttft.push_back(t.first_token_ms);
    total.push_back(t.total_ms);
    generated.push_back(t.tokens_generated);
    prompt.push_back(t.tokens_reused + t.tokens_prefilled);
    moved.push_back(t.tokens_moved);
    if (t.budget_cut_tokens > 0) cut.push_back(t.budget_cut_tokens);
    if (!o.json)
      std::fprintf(stderr, "\r  request %d/%d: prefilled %d, ttft %.0f ms, total %.0f ms   ", i, o.chars,
                   t.tokens_prefilled, t.first_token_ms, t.total_ms);
  }
  if (!o.json) std::fprintf(stderr, "\n");
  r.requests = static_cast<int>(total.size());
  r.prefilled_p50 = percentile(prefilled, 0.5);
  r.prefilled_p90 = percentile(prefilled, 0.9);
  r.ttft_p50 = percentile(ttft, 0.5);
  r.ttft_p90 = percentile(ttft, 0.9);
  r.total_p50 = percentile(total, 0.5);
  r.total_p90 = percentile(total, 0.9);
  r.generated_p50 = percentile(generated, 0.5);
  r.prompt_p50 = percentile(prompt, 0.5);
  r.moved_p50 = percentile(moved, 0.5);
  r.budget_cut = static_cast<int>(cut.size());
  r.cut_tokens_p50 = percentile(cut, 0.5);
  return r;
}

struct Spec {
  double plain_tps = 0, spec_tps = 0, acceptance = 0;
  int tokens = 0, proposed = 0, accepted = 0;
  bool identical = false;
};

Spec speculation(LocalEngine& e, const Options& o) {
  // Repetitive code: the second copy of a block is being completed.
  std::string block;
  for (int i = 0; i < 6; ++i)
    block += "    self.field_" + std::to_string(i) + " = kwargs.get('field_" + std::to_string(i) + "', None)\n";
  CompletionRequest req;
  req.prefix = "class A:\n  def __init__(self, **kwargs):\n" + block + "\nclass B:\n  def __init__(self, **kwargs):\n";
  req.suffix = "\n";
  req.max_tokens = o.spec_tokens;
  Spec s;
  e.set_max_draft(0);
  req.session_key = "spec-plain";
  run(e, req);  // warm: prefill, then decode from the same cache state twice
  const CompletionEvent plain = run(e, req);
  e.set_max_draft(8);
  req.session_key = "spec-draft";
  run(e, req);
  const CompletionEvent drafted = run(e, req);
  if (!o.speculation) e.set_max_draft(0);
  s.tokens = plain.timings.tokens_generated;
  s.plain_tps = 1000.0 * plain.timings.tokens_generated / std::max(1e-3, plain.timings.decode_ms);
  s.spec_tps = 1000.0 * drafted.timings.tokens_generated / std::max(1e-3, drafted.timings.decode_ms);
  s.proposed = drafted.timings.drafts_proposed;
  s.accepted = drafted.timings.drafts_accepted;
  s.acceptance = s.proposed ? static_cast<double>(s.accepted) / s.proposed : 0;
  s.identical = plain.text == drafted.text && plain.timings.tokens_generated == drafted.timings.tokens_generated;
  return s;
}

// Time from setting the cancel flag (after `delay_ms`) to complete() returning.
double cancel_latency(LocalEngine& e, const std::string& prefix, double delay_ms, const std::string& key) {
  CompletionRequest req;
  req.session_key = key;
  req.prefix = prefix;
  req.max_tokens = 100000;
  req.cancel = std::make_shared<std::atomic<bool>>(false);
  Clock::time_point set_at{};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delay_ms));
    set_at = Clock::now();
    req.cancel->store(true);
  });
  run(e, req);
  const auto returned = Clock::now();
  t.join();
  return ms_between(set_at, returned);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_latency: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--model") o.model = value();
    else if (a == "--shape") o.shape = value();
    else if (a == "--vocab") o.vocab = value();
    else if (a == "--write-model") o.write_model_only = true;
    else if (a == "--file") o.file = value();
    else if (a == "--chars") o.chars = std::atoi(value().c_str());
    else if (a == "--threads") o.threads = std::atoi(value().c_str());
    else if (a == "--predict") o.predict = std::atoi(value().c_str());
    else if (a == "--prompt-tokens") o.prompt_tokens = std::atoi(value().c_str());
    else if (a == "--suffix-tokens") o.suffix_tokens = std::atoi(value().c_str());
    else if (a == "--spec-tokens") o.spec_tokens = std::atoi(value().c_str());
    else if (a == "--no-speculation") o.speculation = false;
    else if (a == "--skip-replay") o.replay = false;
    else if (a == "--skip-spec") o.spec = false;
    else if (a == "--skip-cancel") o.cancel = false;
    else if (a == "--json") o.json = true;
    else if (a == "--chunk-reuse") o.chunk_reuse = std::atoi(value().c_str());
    else if (a == "--check-exact") o.check_exact = true;
    else if (a == "--fim-format") o.fim_format = value();
    else if (a == "--kv-type") o.kv_type = value();
    else if (a == "--latency-budget-ms") o.latency_budget_ms = std::atoi(value().c_str());
    else if (a == "--context") {
      o.context = value();
      if (o.context != "daemon" && o.context != "fixed") {
        std::fprintf(stderr, "bench_latency: --context daemon or fixed, not '%s'\n", o.context.c_str());
        return 2;
      }
    }
    else {
      std::fprintf(stderr, "bench_latency: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (o.model.empty()) o.model = default_model(o.shape, o.vocab);
  if (o.write_model_only) {
    std::printf("%s\n", o.model.c_str());
    return 0;
  }
  EngineOptions eo;
  eo.model_path = o.model;
  eo.threads = o.threads;
  eo.context_length = 4096;
  eo.max_draft = o.speculation ? 8 : 0;
  eo.chunk_reuse_min = o.chunk_reuse;
  eo.fim_format = o.fim_format;
  eo.kv_type = o.kv_type;
  auto loaded = LocalEngine::load(eo);
  if (!loaded) {
    std::fprintf(stderr, "bench_latency: %s\n", loaded.error().message.c_str());
    return 1;
  }
  LocalEngine& e = **loaded;

  Replay r;
  if (o.replay) r = typing_replay(e, o);
  Spec s;
  if (o.spec) s = speculation(e, o);
  double cancel_prefill = 0, cancel_prefill_max = 0, cancel_decode = 0;
  if (o.cancel) {
    std::string long_prefix;
    for (int i = 0; long_prefix.size() < 3000; ++i) long_prefix += "x_" + std::to_string(i) + " = f(" + std::to_string(i) + ")\n";
    // Five cancels at different points of a prefill (each prompt new to the cache): the
    // median, and the worst in cancel_prefill_max.
    std::vector<double> samples;
    for (int i = 0; i < 5; ++i)
      samples.push_back(cancel_latency(e, "# sample " + std::to_string(i) + "\n" + long_prefix, 120 + 40 * i,
                                       "cancel-prefill"));
    cancel_prefill = percentile(samples, 0.5);
    cancel_prefill_max = *std::max_element(samples.begin(), samples.end());
    run(e, [&] {  // fill the cache so the next request is all decode
      CompletionRequest warm;
      warm.session_key = "cancel-decode";
      warm.prefix = "def f():\n";
      warm.max_tokens = 1;
      return warm;
    }());
    cancel_decode = cancel_latency(e, "def f():\n", 500, "cancel-decode");
  }

  if (o.json) {
    std::printf(
        "{\"model\":\"%s\",\"context\":\"%s\",\"threads\":%d,\"requests\":%d,\"prompt_tokens_p50\":%.0f,\"prefilled_tokens_p50\":%.1f,"
        "\"prefilled_tokens_p90\":%.1f,\"ttft_ms_p50\":%.1f,\"ttft_ms_p90\":%.1f,\"total_ms_p50\":%.1f,"
        "\"total_ms_p90\":%.1f,\"generated_tokens_p50\":%.1f,\"cold_prefilled_tokens\":%.0f,\"cold_total_ms\":%.1f,"
        "\"warm_ms\":%.1f,\"after_warm_ttft_ms\":%.1f,\"after_warm_total_ms\":%.1f,"
        "\"spec_plain_tokens_per_s\":%.2f,\"spec_tokens_per_s\":%.2f,\"spec_acceptance\":%.3f,"
        "\"spec_identical\":%s,\"cancel_prefill_ms\":%.1f,\"cancel_prefill_max_ms\":%.1f,\"cancel_decode_ms\":%.1f,\"chunk_reuse\":%d,"
        "\"moved_tokens_p50\":%.1f,\"exact_compared\":%d,\"exact_identical\":%d,\"exact_same_first_word\":%d,"
        "\"budget_cut_requests\":%d,\"budget_cut_tokens_p50\":%.0f}\n",
        e.info().name.c_str(), o.context.c_str(), o.threads, r.requests, r.prompt_p50, r.prefilled_p50, r.prefilled_p90, r.ttft_p50,
        r.ttft_p90, r.total_p50, r.total_p90, r.generated_p50, r.cold_prefilled, r.cold_total_ms, r.warm_ms,
        r.after_warm_ttft_ms, r.after_warm_total_ms, s.plain_tps,
        s.spec_tps, s.acceptance, s.identical ? "true" : "false", cancel_prefill, cancel_prefill_max, cancel_decode, o.chunk_reuse,
        r.moved_p50, r.compared, r.identical, r.same_first_token, r.budget_cut, r.cut_tokens_p50);
    return s.identical || !o.spec ? 0 : 1;
  }
  std::printf("model %s, %d threads\n", e.info().name.c_str(), o.threads);
  if (o.replay) {
    std::printf("typing replay: %d requests (%s), %s prompts ~%.0f tokens, %d predicted\n", r.requests,
                o.file.c_str(), o.context.c_str(), r.prompt_p50, o.predict);
    std::printf("  cold first request: %.0f tokens prefilled, %.0f ms\n", r.cold_prefilled, r.cold_total_ms);
    std::printf("  after a warm-up (prefill only, %.0f ms): first token %.0f ms, total %.0f ms\n", r.warm_ms,
                r.after_warm_ttft_ms, r.after_warm_total_ms);
    std::printf("  prefilled tokens  p50 %.1f  p90 %.1f", r.prefilled_p50, r.prefilled_p90);
    if (o.chunk_reuse > 0) std::printf("  (chunk reuse >= %d tokens: p50 %.0f moved)", o.chunk_reuse, r.moved_p50);
    std::printf("\n");
    std::printf("  first token ms    p50 %.1f  p90 %.1f\n", r.ttft_p50, r.ttft_p90);
    std::printf("  total ms          p50 %.1f  p90 %.1f  (generated tokens p50 %.0f)\n", r.total_p50, r.total_p90,
                r.generated_p50);
    if (r.budget_cut > 0)
      std::printf("  first-token budget: suffix shortened on %d of %d requests (p50 %.0f tokens left out)\n",
                  r.budget_cut, r.requests, r.cut_tokens_p50);
    if (r.compared > 0)
      std::printf("  vs. exact prefill: %d/%d outputs identical, %d/%d same first word\n", r.identical, r.compared,
                  r.same_first_token, r.compared);
  }
  if (o.spec)
    std::printf("speculation (repetitive code, greedy, %d tokens): %.2f tok/s plain, %.2f tok/s drafted (x%.2f), "
                "%d/%d drafts accepted (%.0f%%), output %s\n",
                s.tokens, s.plain_tps, s.spec_tps, s.spec_tps / std::max(1e-9, s.plain_tps), s.accepted, s.proposed,
                100 * s.acceptance, s.identical ? "identical" : "DIFFERENT");
  if (o.cancel)
    std::printf("cancellation latency: %.1f ms during prefill (median of 5, worst %.1f), %.1f ms during decode\n",
                cancel_prefill, cancel_prefill_max, cancel_decode);
  return s.identical || !o.spec ? 0 : 1;
}
