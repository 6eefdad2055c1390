// What reading a draft model's weights as Q4_0 or Q5_0 (EngineOptions::draft_quant) costs in the
// tokens it proposes, on a trained model and code it never saw.
//
//   bench_draft_quant --model PATH --file SOURCE [--file SOURCE ...] [--reference PATH]
//                     [--window N] [--tokens N] [--threads N] [--draft-vocab N]
//
// Each file is cut into windows of --window tokens (up to --tokens tokens per file); the
// model runs every window with its weights as stored, read as Q4_0 and read as Q5_0, and at
// every position the greedy next tokens are compared. A requantized draft proposes what the
// stored draft would at the agreeing positions, so its acceptance is at most (1 - agreement)
// below the stored draft's. Drafts are accepted where the model predicts well, so the last
// columns count the positions where the stored weights' token is the text's own next token,
// and of those, the share where the requantized weights pick it too. With --reference (e.g. the same model in F16), the stored
// weights are also compared with it, as a yardstick: what the file's own quantization
// already changes.
//
// With --draft-vocab N (EngineOptions::draft_vocab), a second table: the stored weights
// scoring only the ids below N and those of the window up to the position (a draft's
// history holds at least those) against scoring every id: the share of positions whose
// greedy token is alike, the share of tokens the text has there that such a draft could not
// propose at all, and of the positions where the model is right, the share kept.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "engine/decode/sampler.h"
#include "engine/decode/session.h"
#include "engine/tokenizer/tokenizer_gguf.h"

using namespace wafer;

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_draft_quant: %s\n", why.c_str());
  std::exit(2);
}

std::unique_ptr<Model> load(const std::string& path, ThreadPool& pool, TensorType to = TensorType::F32) {
  ModelLoadOptions options;
  options.requantize_to = to;
  auto m = Model::load(path, kernels::default_backend(), &pool, options);
  if (!m) die(m.error().message);
  return std::move(*m);
}

// The greedy next token after each position of `tokens`; with head > 0, in *restricted the
// best id below head or among tokens[0..i] after position i.
std::vector<int32_t> greedy(const Model& model, ThreadPool& pool, std::span<const int32_t> tokens, int head = 0,
                            std::vector<int32_t>* restricted = nullptr) {
  auto s = Session::create(model, pool, static_cast<int>(tokens.size()), KvType::F32);
  if (!s) die(s.error().message);
  if (Status st = s->eval(tokens, LogitsFor::kAll); !st) die(st.error().message);
  const size_t n_vocab = s->logits().size() / tokens.size();
  std::vector<int32_t> out;
  std::vector<char> seen(n_vocab, 0);
  if (restricted) restricted->clear();
  for (size_t i = 0; i < tokens.size(); ++i) {
    const float* row = s->logits().data() + i * n_vocab;
    out.push_back(greedy_token(std::span<const float>(row, n_vocab)));
    if (!restricted) continue;
    seen[static_cast<size_t>(tokens[i])] = 1;
    int32_t best = 0;
    for (size_t t = 1; t < n_vocab; ++t)
      if ((t < static_cast<size_t>(head) || seen[t]) && row[t] > row[best]) best = static_cast<int32_t>(t);
    restricted->push_back(best);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path, reference_path;
  std::vector<std::string> files;
  int window = 128, max_tokens = 4096, threads = 2, draft_vocab = 0;
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 == args.size()) die(a + " needs a value");
      return args[++i];
    };
    if (a == "--model") model_path = value();
    else if (a == "--reference") reference_path = value();
    else if (a == "--file") files.push_back(value());
    else if (a == "--window") window = std::atoi(value().c_str());
    else if (a == "--tokens") max_tokens = std::atoi(value().c_str());
    else if (a == "--threads") threads = std::atoi(value().c_str());
    else if (a == "--draft-vocab") draft_vocab = std::atoi(value().c_str());
    else die("unknown option " + a);
  }
  if (model_path.empty() || files.empty()) die("usage: bench_draft_quant --model PATH --file SOURCE [--reference PATH]");
  if (window < 2 || max_tokens < window) die("--window must be >= 2 and <= --tokens");

  ThreadPool pool(threads);
  const std::unique_ptr<Model> stored = load(model_path, pool), q4 = load(model_path, pool, TensorType::Q4_0),
                               q5 = load(model_path, pool, TensorType::Q5_0);
  const std::unique_ptr<Model> reference = reference_path.empty() ? nullptr : load(reference_path, pool);
  auto tokenizer = tokenizer_from_gguf(stored->file());
  if (!tokenizer) die(tokenizer.error().message);
  if (window > static_cast<int>(stored->config().context_length)) window = static_cast<int>(stored->config().context_length);
  std::printf("%s: %d of its matrices requantized; windows of %d tokens\n", model_path.c_str(),
              q4->requantized_matrices(), window);
  std::printf("%-52s %7s %14s %14s %19s %16s %16s\n", "greedy next token, share of positions alike", "tokens",
              "Q4_0 = stored", "Q5_0 = stored", reference ? "stored = reference" : "", "stored right", "Q4_0/Q5_0 too");

  auto percent = [](long k, long n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(k) / static_cast<double>(n));
    return std::string(buf);
  };
  long all = 0, all_q4 = 0, all_q5 = 0, all_ref = 0, all_right = 0, all_right_q4 = 0, all_right_q5 = 0;
  long head_alike = 0, head_outside = 0, head_right_kept = 0;  // --draft-vocab
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.empty()) die("cannot read " + f);
    const std::vector<int32_t> ids = tokenizer->encode(text);
    long n = 0, same_q4 = 0, same_q5 = 0, same_ref = 0, right = 0, right_q4 = 0, right_q5 = 0;
    for (size_t at = 0; at + static_cast<size_t>(window) <= ids.size() && n + window <= max_tokens; at += window) {
      const std::span<const int32_t> w(ids.data() + at, static_cast<size_t>(window));
      std::vector<int32_t> h;
      const std::vector<int32_t> a = greedy(*stored, pool, w, draft_vocab, draft_vocab > 0 ? &h : nullptr),
                                 b = greedy(*q4, pool, w), c = greedy(*q5, pool, w);
      const std::vector<int32_t> r = reference ? greedy(*reference, pool, w) : a;
      for (int i = 0; i < window; ++i) {
        // Right: the text's own next token (the last position's is in the next window).
        const bool has_next = at + static_cast<size_t>(i) + 1 < ids.size();
        if (has_next && a[i] == ids[at + static_cast<size_t>(i) + 1]) {
          ++right;
          right_q4 += b[i] == a[i];
          right_q5 += c[i] == a[i];
          if (draft_vocab > 0) head_right_kept += h[static_cast<size_t>(i)] == a[i];
        }
        if (draft_vocab > 0) {
          head_alike += h[static_cast<size_t>(i)] == a[i];
          if (has_next) {
            const int32_t next = ids[at + static_cast<size_t>(i) + 1];
            head_outside += next >= draft_vocab && std::find(w.begin(), w.begin() + i + 1, next) == w.begin() + i + 1;
          }
        }
        same_q4 += a[i] == b[i];
        same_q5 += a[i] == c[i];
        same_ref += a[i] == r[i];
      }
      n += window;
    }
    if (n == 0) die(f + " is shorter than one window");
    std::printf("%-52s %7ld %14s %14s %19s %16s %16s\n", f.c_str(), n, percent(same_q4, n).c_str(),
                percent(same_q5, n).c_str(), reference ? percent(same_ref, n).c_str() : "", percent(right, n).c_str(),
                (percent(right_q4, right) + " / " + percent(right_q5, right)).c_str());
    all += n;
    all_q4 += same_q4;
    all_q5 += same_q5;
    all_ref += same_ref;
    all_right += right;
    all_right_q4 += right_q4;
    all_right_q5 += right_q5;
  }
  std::printf("%-52s %7ld %14s %14s %19s %16s %16s\n", "all", all, percent(all_q4, all).c_str(),
              percent(all_q5, all).c_str(), reference ? percent(all_ref, all).c_str() : "", percent(all_right, all).c_str(),
              (percent(all_right_q4, all_right) + " / " + percent(all_right_q5, all_right)).c_str());
  if (draft_vocab > 0) {
    std::printf("\nstored weights scoring the ids below %d and the window's so far, against every id:\n", draft_vocab);
    std::printf("  greedy next token alike: %s of %ld positions\n", percent(head_alike, all).c_str(), all);
    std::printf("  the text's next token out of reach (id >= %d, not in the window): %s\n", draft_vocab,
                percent(head_outside, all).c_str());
    std::printf("  of the %s of positions where the model is right, kept: %s\n", percent(all_right, all).c_str(),
                percent(head_right_kept, all_right).c_str());
  }
  return 0;
}
