// `wafer generate MODEL.gguf --prompt TEXT | --prompt-ids 1,15,300 [-n N] [--temp T]
// [--seed S] [--threads N] [--context N] [--logits-json FILE]`: runs the model on a prompt
// and streams the generated text (or ids) to stdout, timings to stderr. --logits-json
// records the top-20 logits at every prompt position, for checking against llama.cpp.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/base/path_utf8.h"
#include "engine/model/model.h"
#include "engine/decode/session.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "server/cli/commands.h"
#include "server/pull/model_catalog.h"
#include "server/pull/model_choice.h"

namespace wafer {

namespace {

Result<std::vector<int32_t>> parse_ids(const std::string& text) {
  std::vector<int32_t> ids;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    int32_t v = 0;
    const char* b = text.data() + start;
    const char* e = text.data() + end;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e || v < 0)
      return make_error("--prompt-ids: expected comma-separated token ids, got '" + text + "'");
    ids.push_back(v);
    start = end + 1;
  }
  return ids;
}

// {"pos": i, "argmax": id, "top": [[id, logit] x 20, descending, ties to the lower id]}.
nlohmann::json position_entry(int pos, const float* logits, size_t vocab) {
  std::vector<int32_t> ids(vocab);
  for (size_t i = 0; i < vocab; ++i) ids[i] = static_cast<int32_t>(i);
  const size_t k = std::min<size_t>(20, vocab);
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(), [&](int32_t a, int32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  });
  nlohmann::json top = nlohmann::json::array();
  for (size_t i = 0; i < k; ++i) top.push_back({ids[i], logits[ids[i]]});
  return {{"pos", pos}, {"argmax", ids[0]}, {"top", std::move(top)}};
}

int fail(const std::string& message) {
  std::fprintf(stderr, "wafer generate: %s\n", message.c_str());
  return kExitFailure;
}

}  // namespace

int run_generate(const Options& o) {
  std::string path = o.model;
  if (path.empty() && !o.positional.empty()) path = o.positional[0];
  if (path.empty() || o.positional.size() > (o.model.empty() ? 1u : 0u) ||
      (o.prompt.has_value() == !o.prompt_ids.empty())) {
    std::fprintf(stderr, "wafer generate: expected MODEL.gguf and one of --prompt or --prompt-ids "
                         "(try 'wafer generate --help')\n");
    return kExitUsage;
  }
  Result<std::string> expanded = expand_user_path(path);  // ~ and $VAR, as the daemon's model setting
  if (!expanded) return fail(expanded.error().message);
  auto resolved = resolve_model_path(*expanded, o.cache_dir);
  if (!resolved) return fail(resolved.error().message);
  ThreadPool pool(o.threads > 0 ? o.threads : 0);  // 0: one thread per physical core, as the daemon
  auto model = Model::load(path_from_utf8(*resolved), kernels::default_backend(o.amx, o.amx_bf16), &pool);  // repacked by the pool's threads
  if (!model) return fail(model.error().message);
  const ModelConfig& c = (*model)->config();

  // The model's tokenizer, if its metadata has one: output is text then, ids otherwise.
  auto tokenizer = tokenizer_from_gguf((*model)->file());
  std::vector<int32_t> prompt;
  if (o.prompt) {
    if (!tokenizer) return fail("cannot tokenize --prompt: " + tokenizer.error().message);
    EncodeOptions enc;
    enc.add_special = true;    // BOS where the model's metadata asks for it
    enc.parse_special = true;  // control tokens such as <|fim_prefix|> typed in the prompt
    prompt = tokenizer->encode(*o.prompt, enc);
  } else {
    auto ids = parse_ids(o.prompt_ids);
    if (!ids) return fail(ids.error().message);
    prompt = std::move(*ids);
  }
  if (prompt.empty()) return fail("the prompt has no tokens");

  const int threads = pool.size();
  const int n_ctx = std::min<int>(o.context, static_cast<int>(std::max<uint32_t>(c.context_length, 16)));
  auto session = Session::create(**model, pool, n_ctx, *parse_kv_type(o.kv_type));  // checked by the parser
  if (!session) return fail(session.error().message);

  nlohmann::json positions = nlohmann::json::array();
  double logits_ms = 0;  // the prompt is evaluated here (all positions) and reused by generate
  if (!o.logits_json.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    if (Status s = session->eval(prompt, LogitsFor::kAll); !s) return fail(s.error().message);
    logits_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (size_t i = 0; i < prompt.size(); ++i)
      positions.push_back(position_entry(static_cast<int>(i), session->logits().data() + i * c.n_vocab, c.n_vocab));
  }

  GenerateParams params;
  params.max_tokens = o.n_predict;
  params.sampling.temperature = o.temperature;
  params.sampling.seed = o.seed;
  std::optional<StreamDecoder> decoder;
  if (tokenizer) {
    const Tokenizer& tok = *tokenizer;
    params.stop_tokens = tok.eog_tokens();
    params.token_text = [&tok](int32_t id) { return tok.token_bytes(id); };
    decoder.emplace(tok);
  }
  bool first = true;
  auto result = session->generate(prompt, params, [&](int32_t token) {
    if (decoder) {
      const std::string piece = decoder->push(token);  // whole UTF-8 characters only
      std::fwrite(piece.data(), 1, piece.size(), stdout);
    } else {
      std::printf("%s%d", first ? "" : " ", token);
    }
    first = false;
    std::fflush(stdout);
    return true;
  });
  if (!result) return fail(result.error().message);
  if (decoder) {
    const std::string rest = decoder->finish();
    std::fwrite(rest.data(), 1, rest.size(), stdout);
  }
  std::printf("\n");
  const double prompt_ms = result->prompt_ms + logits_ms;

  const double tok_s = result->decode_ms > 0 ? 1000.0 * static_cast<double>(result->tokens.size()) / result->decode_ms : 0;
  std::fprintf(stderr, "prompt: %d tokens in %.1f ms (%.1f tok/s); generated: %zu tokens in %.1f ms (%.2f tok/s); threads %d\n",
               result->prompt_tokens, prompt_ms, prompt_ms > 0 ? 1000.0 * result->prompt_tokens / prompt_ms : 0,
               result->tokens.size(), result->decode_ms, tok_s, threads);

  if (!o.logits_json.empty()) {
    nlohmann::json out = {{"positions", std::move(positions)}, {"greedy", result->tokens}};
    std::ofstream f(path_from_utf8(o.logits_json));
    f << out.dump() << "\n";
    if (!f) return fail("cannot write " + o.logits_json);
  }
  return kExitOk;
}

}  // namespace wafer
