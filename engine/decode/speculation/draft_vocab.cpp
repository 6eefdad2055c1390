#include "engine/decode/speculation/draft_vocab.h"

#include <string>

namespace wafer {

namespace {

std::string id_text(TokenId id) { return id == kNoToken ? std::string("none") : std::to_string(id); }

}  // namespace

Status check_draft_vocab(const DraftVocab& target, const DraftVocab& draft) {
  if (!target.tokenizer || !target.fim || !draft.tokenizer || !draft.fim)
    return make_error("draft model: no tokenizer to compare");
  if (target.n_logits != draft.n_logits)
    return make_error("draft model: its vocabulary has " + std::to_string(draft.n_logits) + " tokens, the model's " +
                      std::to_string(target.n_logits));
  const Tokenizer& a = *target.tokenizer;
  const Tokenizer& b = *draft.tokenizer;
  if (a.n_vocab() != b.n_vocab())
    return make_error("draft model: its tokenizer has " + std::to_string(b.n_vocab()) + " tokens, the model's " +
                      std::to_string(a.n_vocab()));
  for (TokenId id = 0; static_cast<size_t>(id) < a.n_vocab(); ++id) {
    if (a.token_text(id) != b.token_text(id))
      return make_error("draft model: token " + std::to_string(id) + " differs ('" + std::string(b.token_text(id)) +
                        "', the model's '" + std::string(a.token_text(id)) + "')");
  }
  const FimTokens& f = *target.fim;
  const FimTokens& g = *draft.fim;
  const struct {
    const char* name;
    TokenId mine, theirs;
  } markers[] = {{"FIM prefix", f.prefix, g.prefix}, {"FIM suffix", f.suffix, g.suffix},
                 {"FIM middle", f.middle, g.middle}, {"FIM pad", f.pad, g.pad},
                 {"repository", f.repo, g.repo},     {"file separator", f.file_sep, g.file_sep}};
  for (const auto& m : markers) {
    if (m.mine != m.theirs)
      return make_error(std::string("draft model: its ") + m.name + " token is " + id_text(m.theirs) +
                        ", the model's " + id_text(m.mine));
  }
  if (f.end_of_generation != g.end_of_generation || a.eog_tokens() != b.eog_tokens())
    return make_error("draft model: its end-of-generation tokens differ from the model's");
  return {};
}

}  // namespace wafer
