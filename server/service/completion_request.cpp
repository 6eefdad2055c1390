#include "server/service/completion_request.h"

#include <algorithm>

#include "server/prompt/ngram_loop.h"
#include "server/prompt/prompt_paths.h"

namespace wafer {

FimContext completion_context(const CompletionSite& site, FimWindow& window) {
  const PromptOptions& options = *site.options;
  const Workspace::View& view = *site.view;
  window = options.window;
  int extra_tokens = options.extra_tokens;
  if (site.model) {
    fit_to_context(window, extra_tokens, estimated_context(*site.model), options.max_tokens);
    if (site.model->copy_strength > 0) window.copy_bytes = kCopyBytes;
  }
  const grammars::LanguageRules* rules = view.language ? grammars::language_rules(view.language->name) : nullptr;
  FimContext ctx = build_context(*view.snapshot, view.tree.get(), rules, site.offset, window);
  if ((extra_tokens > 0 || options.recent_tokens > 0) && view.language) {
    auto choose = [&] {
      // Names used in the window's complete lines.
      const std::string& pre = ctx.request.prefix;
      const std::string window_text =
          pre.substr(0, pre.size() - std::min(pre.size(), ctx.facts.line_head.size())) + ctx.facts.after_lines;
      const std::vector<std::string> names = identifiers_in(window_text);
      std::vector<ExtraSource> sources;
      if (site.extra) sources = site.extra->others(names);
      // The same document beyond the window (nothing to add when the window holds it all).
      if (ctx.prefix_begin > 0 || ctx.suffix_end < view.snapshot->text.size())
        if (const std::vector<Definition>* own = site.extra ? site.extra->own_definitions() : nullptr)
          sources.push_back({prompt_path(site.root_uri, site.uri), own, ctx.prefix_begin, ctx.suffix_end, true});
      std::vector<ContextFile> chunks = build_extra_context(names, sources, extra_tokens);
      if (site.extra && options.recent_tokens > 0)
        for (ContextFile& c : site.extra->recent(ctx.request.prefix + ctx.request.suffix, options.recent_tokens))
          chunks.push_back(std::move(c));
      return chunks;
    };
    ctx.request.extra = site.extra ? site.extra->keep(ctx.prefix_begin, extra_tokens, choose) : choose();
  }
  ctx.request.file_path = prompt_path(site.root_uri, site.uri);
  ctx.request.repo_name = repo_name_of(site.root_uri);
  if (rules) ctx.request.line_comment = std::string(rules->line_comment);
  ctx.request.max_tokens = options.max_tokens;
  return ctx;
}

std::function<bool(std::string_view)> completion_stop_rule(std::shared_ptr<const CursorFacts> facts, Mode mode) {
  return [facts = std::move(facts), mode](std::string_view text) {
    return find_stop(text, *facts, mode).stopped || find_ngram_loop(text).found;
  };
}

PreparedCompletion prepare_completion(const CompletionSite& site) {
  PreparedCompletion p;
  FimContext ctx = completion_context(site, p.window);
  p.mode = decide_mode(ctx.facts);
  p.facts = std::make_shared<const CursorFacts>(std::move(ctx.facts));
  p.request = std::move(ctx.request);
  p.request.should_stop = completion_stop_rule(p.facts, p.mode);
  return p;
}

}  // namespace wafer
