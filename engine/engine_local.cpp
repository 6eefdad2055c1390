#include "engine/engine_local.h"

#include <cctype>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "engine/base/path_utf8.h"
#include "engine/decode/chunk_reuse.h"
#include "engine/decode/completion_run.h"
#include "engine/decode/copy_predictor.h"
#include "engine/decode/speculation/draft_vocab.h"
#include "engine/runtime/cpu_features.h"
#include "engine/runtime/float_mode.h"
#include "engine/runtime/platform.h"
#include "engine/decode/fim_template.h"
#include "engine/compute/kv_cache.h"
#include "engine/model/gate_threshold.h"
#include "engine/model/model_config.h"
#include "engine/tokenizer/tokenizer_gguf.h"

namespace wafer {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

Result<std::unique_ptr<LocalEngine>> LocalEngine::load(const EngineOptions& options) {
  const std::string& path = options.model_path;
  if (path.empty()) return make_error("no model file given");
  const std::filesystem::path file = path_from_utf8(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    if (std::filesystem::exists(file, ec)) return make_error("cannot load '" + path + "': not a regular file");
    // Opening it says why, where there is more to say than "missing" (a locked file, an
    // unreachable share); a name only the OS's own calls take (Windows' "\\?\" long paths)
    // opens, and loads below.
    platform::FileView view;
    std::string why;
    if (!platform::map_file(file, view, why)) {
      if (why == "No such file or directory") why = "no such file";
      return make_error("cannot load '" + path + "': " + why);
    }
    platform::unmap_file(view);
  }
  // The pool first: its threads repack the weights they will multiply.
  auto pool = std::make_unique<ThreadPool>(options.threads);
  auto model = Model::load(file, kernels::default_backend(options.amx, options.amx_bf16), pool.get());
  if (!model) return make_error("cannot load " + model.error().message);
  auto tokenizer = tokenizer_from_gguf((*model)->file());
  if (!tokenizer) return make_error("cannot load '" + path + "': " + tokenizer.error().message);
  auto fim = find_fim_tokens(*tokenizer);
  if (!fim)
    return make_error("'" + path + "' cannot fill in the middle (inline completion needs a code model with FIM tokens): " +
                      fim.error().message);
  auto tmpl = parse_fim_template(options.fim_format);
  if (!tmpl) return make_error(tmpl.error().message);
  auto kv = parse_kv_type(options.kv_type);
  if (!kv) return make_error(kv.error().message);
  if (*kv == KvType::Q8_0 && (*model)->config().head_dim_k % 32 != 0)
    return make_error("'" + path + "' cannot use a q8_0 KV cache: its key head size " +
                      std::to_string((*model)->config().head_dim_k) + " is not a multiple of 32 (use f16)");
  const FimTemplate resolved =
      resolve_fim_template(*tmpl, *fim, *tokenizer, preferred_fim_order((*model)->file()));
  std::unique_ptr<LocalEngine> engine(
      new LocalEngine(options, std::move(pool), std::move(*model), std::move(*tokenizer), std::move(*fim), resolved));
  if (!options.draft_model_path.empty()) {
    if (Status s = engine->load_draft(); !s) return s.error();
  }
  return engine;
}

namespace {
std::string upper_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

Status LocalEngine::load_draft() {
  const std::string& path = options_.draft_model_path;
  ModelLoadOptions load_options;
  if (options_.draft_quant == "q4_0") load_options.requantize_to = TensorType::Q4_0;
  else if (options_.draft_quant == "q5_0") load_options.requantize_to = TensorType::Q5_0;
  else if (options_.draft_quant != "keep")
    return make_error("unknown draft weights '" + options_.draft_quant + "' (q4_0, q5_0 or keep)");
  auto model = Model::load(path_from_utf8(path), kernels::default_backend(options_.amx, options_.amx_bf16),
                           pool_.get(), load_options);
  if (!model) return make_error("cannot load the draft model " + model.error().message);
  auto tokenizer = tokenizer_from_gguf((*model)->file());
  if (!tokenizer) return make_error("cannot load the draft model '" + path + "': " + tokenizer.error().message);
  auto fim = find_fim_tokens(*tokenizer);
  if (!fim) return make_error("the draft model '" + path + "' has no FIM tokens: " + fim.error().message);
  const DraftVocab mine{static_cast<size_t>(model_->config().n_vocab), &tokenizer_, &fim_};
  const DraftVocab theirs{static_cast<size_t>((*model)->config().n_vocab), &*tokenizer, &*fim};
  if (Status s = check_draft_vocab(mine, theirs); !s)
    return make_error("cannot use '" + path + "' as the draft model: " + s.error().message);
  const auto kv_type = parse_kv_type(options_.kv_type);  // checked by load()
  auto draft = DraftModel::create(**model, *pool_, info_.context_length, kv_type ? *kv_type : KvType::F32,
                                  options_.max_draft, options_.chunk_reuse_min, options_.draft_vocab);
  if (!draft) return make_error("the draft model's KV cache: " + draft.error().message);
  draft_weights_ = std::move(*model);
  draft_ = std::make_unique<DraftModel>(std::move(*draft));
  const ModelConfig& c = draft_weights_->config();
  info_.draft_model = (!c.name.empty() ? c.name : utf8_from_path(path_from_utf8(path).filename())) + ", " +
                      std::to_string(parameter_count(draft_weights_->file())) + " parameters" +
                      (draft_weights_->requantized_matrices() > 0 ? ", weights read as " + upper_case(options_.draft_quant) : "");
  return {};
}

LocalEngine::LocalEngine(EngineOptions options, std::unique_ptr<ThreadPool> pool, std::unique_ptr<Model> model,
                         Tokenizer tokenizer, FimTokens fim, FimTemplate fim_template)
    : options_(std::move(options)),
      model_(std::move(model)),
      tokenizer_(std::move(tokenizer)),
      fim_(std::move(fim)),
      template_(fim_template),
      healer_(tokenizer_) {
  const ModelConfig& c = model_->config();
  int n_ctx = static_cast<int>(c.context_length);
  if (options_.context_length > 0 && (n_ctx <= 0 || options_.context_length < n_ctx)) n_ctx = options_.context_length;
  info_.name = !c.name.empty() ? c.name : utf8_from_path(path_from_utf8(options_.model_path).filename());
  info_.architecture = std::string(c.arch->name);
  info_.has_fim = true;
  info_.fim_format = fim_template_name(template_);
  info_.context_length = n_ctx;
  std::vector<TokenId> sample;
  tokenizer_.encode(kTokenDensitySample, EncodeOptions{}, sample);
  info_.sample_tokens = static_cast<int>(sample.size());
  info_.parameters = static_cast<int64_t>(parameter_count(model_->file()));
  copy_strength_ = options_.copy_strength < 0 ? model_copy_strength(model_->file()) : options_.copy_strength;
  info_.copy_strength = copy_strength_;
  info_.min_confidence = model_min_confidence(model_->file());
  if (options_.lock_memory) {
    auto locked = model_->lock_in_ram();
    const auto size = [](uint64_t b) {
      return b < (uint64_t{1} << 20) ? std::to_string(b >> 10) + " KiB" : std::to_string((b + (1 << 19)) >> 20) + " MiB";
    };
    info_.memory_lock = locked ? "locked " + size(*locked) + " of weights in RAM"
                               : "cannot lock the weights in RAM: " + locked.error().message;
  }

  const auto parsed_kv = parse_kv_type(options_.kv_type);  // checked by load()
  const KvType kv_type = parsed_kv ? *parsed_kv : KvType::F32;
  // Fewer sessions when the memory cap cannot hold max_sessions caches of n_ctx tokens.
  int max_sessions = std::max(1, options_.max_sessions);
  if (options_.max_cache_mb > 0) {
    const double per_session = KvCache::bytes_per_token(c, kv_type) * n_ctx;
    const int fit = static_cast<int>(static_cast<double>(options_.max_cache_mb) * 1024 * 1024 / per_session);
    max_sessions = std::max(1, std::min(max_sessions, fit));
  }
  pool_ = std::move(pool);
  sessions_ = std::make_unique<SessionPool>(*model_, *pool_, n_ctx, max_sessions, kv_type);
  char kv[160];
  std::snprintf(kv, sizeof kv, "KV cache %s: up to %d session%s of %d tokens, %.1f MiB each", kv_type_name(kv_type),
                max_sessions, max_sessions == 1 ? "" : "s", n_ctx,
                KvCache::bytes_per_token(c, kv_type) * n_ctx / (1 << 20));
  info_.kv_cache = kv;
  info_.kernels = "kernels " + std::string(model_->backend().name()) + ", " + std::to_string(pool_->size()) +
                  (pool_->size() == 1 ? " thread" : " threads");
  // On a CPU with AMX, say whether the tiles are used and if not why.
  const CpuFeatures& cpu = cpu_features();
  const kernels::Backend& b = model_->backend();
  const bool tiles = b.simd() && (b.simd()->isa == KernelIsa::Amx || b.simd()->isa == KernelIsa::AmxBf16);
  if (cpu.amx_tile && cpu.amx_int8 && !tiles)
    info_.kernels += options_.amx ? std::string(" (AMX: ") + to_string(amx_state()) + ")" : " (AMX: off by --amx off)";
  else if (options_.amx && options_.amx_bf16 && b.simd() && b.simd()->isa == KernelIsa::Amx)
    info_.kernels += std::string(" (BF16 tiles: ") + to_string(amx_bf16_state()) + ")";
  if (tiles && cpu.amx_bf16)
    info_.kernels += b.simd()->attend_f16_tiles ? std::string(", prefill attention on BF16 tiles")
                                                : std::string(" (attention tiles: ") + to_string(attend_tiles_state()) + ")";
}

const std::vector<TokenId>& LocalEngine::tokenized(TokenizedText& cache, const std::string& text) {
  if (cache.text != text) {  // starts empty, and "" has no tokens
    cache.text = text;
    cache.tokens.clear();
    tokenizer_.encode(text, EncodeOptions{}, cache.tokens);
  }
  return cache.tokens;
}

// `reading` ends with a separator and the prefix's tokens (build_fim_prompt_within); the
// text after the suffix goes before that separator and the text before the prefix after it.
std::vector<TokenId> LocalEngine::copy_reading(const CompletionRequest& request, std::vector<TokenId> reading) {
  if (request.copy_before.empty() && request.copy_after.empty()) return reading;
  const auto sep = std::find(reading.rbegin(), reading.rend(), kCopySeparator);
  if (sep == reading.rend()) return reading;
  const size_t at = static_cast<size_t>(reading.rend() - sep) - 1;  // index of the separator
  const std::vector<TokenId>& after = tokenized(copy_after_, request.copy_after);
  const std::vector<TokenId>& before = tokenized(copy_before_, request.copy_before);
  std::vector<TokenId> out;
  out.reserve(reading.size() + after.size() + before.size());
  out.insert(out.end(), reading.begin(), reading.begin() + static_cast<std::ptrdiff_t>(at));
  out.insert(out.end(), after.begin(), after.end());
  out.push_back(kCopySeparator);
  out.insert(out.end(), before.begin(), before.end());
  out.insert(out.end(), reading.begin() + static_cast<std::ptrdiff_t>(at) + 1, reading.end());
  return out;
}

void LocalEngine::complete(const CompletionRequest& request, const CompletionCallback& on_event) {
  flush_denormals_in_this_thread();  // the calling (engine) thread runs arithmetic too
  RunContext ctx;
  ctx.start = Clock::now();
  std::lock_guard lock(mu_);
  const auto t_locked = Clock::now();
  ctx.timings.queue_ms = ms_between(ctx.start, t_locked);

  // Room for the answer: the prompt may take the context minus max_tokens (at most half).
  const size_t n_ctx = static_cast<size_t>(info_.context_length);
  const size_t answer = std::min(static_cast<size_t>(std::max(request.max_tokens, 1)), n_ctx / 2);
  // The copy predictor reads all of the text the caller sent, also what the context cannot hold.
  std::vector<TokenId> reading, prompt;
  auto build = [&](const CompletionRequest& r) {
    FimParts parts{&r.extra, r.prefix, r.suffix, r.file_path, r.repo_name, r.line_comment};
    reading.clear();
    ctx.healed.clear();
    prompt = build_fim_prompt_within(tokenizer_, fim_, template_, parts, n_ctx - answer, nullptr,
                                     copy_strength_ > 0 ? &reading : nullptr,
                                     options_.token_healing ? &ctx.healed : nullptr, &ctx.layout);
    if (copy_strength_ > 0) reading = copy_reading(r, std::move(reading));
  };
  build(request);

  auto session = sessions_->acquire(request.session_key);
  if (!session) {
    CompletionEvent e;
    e.kind = CompletionEvent::Kind::kError;
    e.stop = StopReason::kError;
    e.error = session.error().message;
    e.timings = ctx.timings;
    e.timings.total_ms = ms_between(ctx.start, Clock::now());
    on_event(e);
    return;
  }
  ctx.session = *session;
  // Over the latency budget: the same request with a shorter suffix.
  std::optional<CompletionRequest> shrunk;
  if (std::optional<size_t> keep = budget_suffix_once(request, prompt, (*session)->tokens())) {
    shrunk = request;
    shrunk->suffix.resize(*keep);
    const size_t before = prompt.size();
    build(*shrunk);
    ctx.timings.budget_cut_tokens = static_cast<int>(before - std::min(before, prompt.size()));
  }
  ctx.timings.tokenize_ms = ms_between(t_locked, Clock::now());
  ctx.tokenizer = &tokenizer_;
  ctx.fim = &fim_;
  ctx.healer = &healer_;
  ctx.n_vocab = model_->config().n_vocab;
  ctx.settings.prefill_chunk = options_.prefill_chunk;
  ctx.settings.chunk_reuse_min = options_.chunk_reuse_min;
  ctx.settings.draft.max_draft = options_.max_draft;
  ctx.settings.prompt_lookup = options_.prompt_lookup;
  ctx.settings.draft_filter = draft_filter_;
  ctx.settings.pass_observer = pass_observer_;
  ctx.draft_model = draft_.get();
  ctx.settings.copy.strength = copy_strength_;
  auto observe = [&](const CompletionEvent& e) {
    if (e.kind == CompletionEvent::Kind::kDone) costs_.observe(e.timings);
    on_event(e);
  };
  run_completion(ctx, shrunk ? *shrunk : request, prompt, observe, copy_strength_ > 0 ? &reading : nullptr);
}

std::optional<size_t> LocalEngine::budget_suffix(const CompletionRequest& request, const std::vector<TokenId>& prompt,
                                                 const std::vector<int32_t>& cached) {
  if (request.first_token_budget_ms <= 0 || request.suffix.empty()) return std::nullopt;
  const long fits = costs_.prefill_within(request.first_token_budget_ms);
  if (fits < 0) return std::nullopt;  // nothing measured yet
  size_t common = 0;
  while (common < cached.size() && common < prompt.size() && cached[common] == prompt[common]) ++common;
  size_t to_prefill = prompt.size() - common;
  // Spans the cache holds at other positions are moved, not prefilled (chunk reuse): their
  // cost is a copy, so only the rest counts against the budget.
  if (options_.chunk_reuse_min > 0 && to_prefill > static_cast<size_t>(fits)) {
    for (const ReusedChunk& c : plan_chunk_reuse(cached, prompt, static_cast<int>(common), options_.chunk_reuse_min))
      to_prefill -= std::min(to_prefill, static_cast<size_t>(c.n));
  }
  if (to_prefill <= static_cast<size_t>(fits)) return std::nullopt;
  const std::vector<TokenId>& suffix = tokenized(suffix_, request.suffix);
  const size_t excess = to_prefill - static_cast<size_t>(fits);
  const size_t keep = suffix.size() > excess ? suffix.size() - excess : 0;
  const size_t bytes = suffix_bytes_within(request.suffix, suffix, keep, tokenizer_);
  if (bytes >= request.suffix.size()) return std::nullopt;
  return bytes;
}

std::optional<size_t> LocalEngine::budget_suffix_once(const CompletionRequest& request,
                                                      const std::vector<TokenId>& prompt,
                                                      const std::vector<int32_t>& cached) {
  if (request.first_token_budget_ms <= 0 || request.suffix.empty()) return std::nullopt;
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the prompt's ids and the budget
  auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
  };
  for (TokenId t : prompt) mix(static_cast<uint32_t>(t));
  mix(static_cast<uint64_t>(request.first_token_budget_ms * 1000));
  if (auto it = budget_choices_.find(request.session_key); it != budget_choices_.end() && it->second.prompt_hash == h)
    return it->second.keep;
  std::optional<size_t> keep = budget_suffix(request, prompt, cached);
  if (budget_choices_.size() >= kMaxBudgetChoices && !budget_choices_.count(request.session_key))
    budget_choices_.erase(budget_choices_.begin());
  budget_choices_[request.session_key] = BudgetChoice{h, keep};
  return keep;
}

Result<std::unique_ptr<Engine>> load_engine(const EngineOptions& options) {
  flush_denormals_in_this_thread();
  auto engine = LocalEngine::load(options);
  if (!engine) return engine.error();
  return std::unique_ptr<Engine>(std::move(*engine));
}

}  // namespace wafer
