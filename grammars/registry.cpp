#include "grammars/registry.h"

#include <array>

extern "C" {
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_javascript();
const TSLanguage* tree_sitter_typescript();
const TSLanguage* tree_sitter_tsx();
const TSLanguage* tree_sitter_c();
const TSLanguage* tree_sitter_cpp();
const TSLanguage* tree_sitter_rust();
const TSLanguage* tree_sitter_go();
const TSLanguage* tree_sitter_java();
const TSLanguage* tree_sitter_lua();
const TSLanguage* tree_sitter_bash();
const TSLanguage* tree_sitter_json();
const TSLanguage* tree_sitter_ruby();
const TSLanguage* tree_sitter_css();
}

namespace wafer::grammars {
namespace {

using namespace std::string_view_literals;

constexpr std::array kPython{"py"sv, "pyi"sv, "pyw"sv};
constexpr std::array kJavascript{"js"sv, "mjs"sv, "cjs"sv, "jsx"sv};
constexpr std::array kTypescript{"ts"sv, "mts"sv, "cts"sv};
constexpr std::array kTsx{"tsx"sv};
constexpr std::array kC{"c"sv, "h"sv};
constexpr std::array kCpp{"cpp"sv, "cc"sv, "cxx"sv, "c++"sv, "hpp"sv, "hh"sv, "hxx"sv, "h++"sv, "ipp"sv};
constexpr std::array kRust{"rs"sv};
constexpr std::array kGo{"go"sv};
constexpr std::array kJava{"java"sv};
constexpr std::array kLua{"lua"sv};
constexpr std::array kBash{"sh"sv, "bash"sv, "zsh"sv};
constexpr std::array kJson{"json"sv, "jsonc"sv};
constexpr std::array kRuby{"rb"sv, "rake"sv, "gemspec"sv};
constexpr std::array kCss{"css"sv};

const std::array<Language, 14> kLanguages{{
    {"python", kPython, tree_sitter_python},
    {"javascript", kJavascript, tree_sitter_javascript},
    {"typescript", kTypescript, tree_sitter_typescript},
    {"tsx", kTsx, tree_sitter_tsx},
    {"c", kC, tree_sitter_c},
    {"cpp", kCpp, tree_sitter_cpp},
    {"rust", kRust, tree_sitter_rust},
    {"go", kGo, tree_sitter_go},
    {"java", kJava, tree_sitter_java},
    {"lua", kLua, tree_sitter_lua},
    {"bash", kBash, tree_sitter_bash},
    {"json", kJson, tree_sitter_json},
    {"ruby", kRuby, tree_sitter_ruby},
    {"css", kCss, tree_sitter_css},
}};

struct Alias {
  std::string_view id;
  std::string_view name;
};
constexpr std::array<Alias, 6> kAliases{{
    {"typescriptreact", "tsx"},
    {"javascriptreact", "javascript"},
    {"shellscript", "bash"},
    {"sh", "bash"},
    {"c++", "cpp"},
    {"jsonc", "json"},
}};

}  // namespace

std::span<const Language> all_languages() { return kLanguages; }

const Language* language_by_id(std::string_view id) {
  for (const Alias& a : kAliases)
    if (a.id == id) id = a.name;
  for (const Language& l : kLanguages)
    if (l.name == id) return &l;
  return nullptr;
}

const Language* language_by_path(std::string_view path) {
  size_t slash = path.find_last_of('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  size_t dot = path.find_last_of('.');
  std::string_view ext = dot == std::string_view::npos ? path : path.substr(dot + 1);
  for (const Language& l : kLanguages)
    for (std::string_view e : l.extensions)
      if (e == ext) return &l;
  return nullptr;
}

}  // namespace wafer::grammars
