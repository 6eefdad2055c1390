#include "grammars/language_rules.h"

#include <algorithm>
#include <array>

namespace wafer::grammars {
namespace {

using namespace std::string_view_literals;

// python
constexpr std::array kPyBlocks{"block"sv, "dictionary"sv, "list"sv, "argument_list"sv, "parameters"sv};
constexpr std::array kPyComments{"comment"sv};
constexpr std::array kPyStrings{"string"sv, "concatenated_string"sv};
constexpr std::array kPyDefs{"function_definition"sv, "class_definition"sv, "decorated_definition"sv};
constexpr std::array kPyStmts{"expression_statement"sv, "return_statement"sv, "import_statement"sv,
                              "import_from_statement"sv, "pass_statement"sv, "raise_statement"sv,
                              "if_statement"sv, "for_statement"sv, "while_statement"sv, "with_statement"sv,
                              "try_statement"sv};

// javascript, typescript, tsx
constexpr std::array kJsBlocks{"statement_block"sv, "class_body"sv, "object"sv, "array"sv,
                               "arguments"sv, "formal_parameters"sv, "switch_body"sv};
constexpr std::array kTsBlocks{"statement_block"sv, "class_body"sv, "object"sv, "array"sv, "arguments"sv,
                               "formal_parameters"sv, "switch_body"sv, "interface_body"sv, "enum_body"sv,
                               "object_type"sv};
constexpr std::array kJsComments{"comment"sv};
constexpr std::array kJsStrings{"string"sv, "template_string"sv, "regex"sv};
constexpr std::array kJsDefs{"function_declaration"sv, "generator_function_declaration"sv, "class_declaration"sv,
                             "method_definition"sv, "lexical_declaration"sv, "variable_declaration"sv};
constexpr std::array kTsDefs{"function_declaration"sv, "generator_function_declaration"sv, "class_declaration"sv,
                             "method_definition"sv, "lexical_declaration"sv, "variable_declaration"sv,
                             "interface_declaration"sv, "type_alias_declaration"sv, "enum_declaration"sv,
                             "abstract_class_declaration"sv, "function_signature"sv};
constexpr std::array kJsStmts{"expression_statement"sv, "return_statement"sv, "lexical_declaration"sv,
                              "variable_declaration"sv, "import_statement"sv, "export_statement"sv,
                              "if_statement"sv, "for_statement"sv, "while_statement"sv};

// c, cpp
constexpr std::array kCBlocks{"compound_statement"sv, "field_declaration_list"sv, "enumerator_list"sv,
                              "initializer_list"sv, "argument_list"sv, "parameter_list"sv};
constexpr std::array kCppBlocks{"compound_statement"sv, "field_declaration_list"sv, "enumerator_list"sv,
                                "initializer_list"sv, "argument_list"sv, "parameter_list"sv,
                                "declaration_list"sv};
constexpr std::array kCComments{"comment"sv};
constexpr std::array kCStrings{"string_literal"sv, "char_literal"sv, "system_lib_string"sv};
constexpr std::array kCppStrings{"string_literal"sv, "char_literal"sv, "raw_string_literal"sv,
                                 "system_lib_string"sv};
constexpr std::array kCDefs{"function_definition"sv, "struct_specifier"sv, "union_specifier"sv,
                            "enum_specifier"sv, "type_definition"sv, "declaration"sv,
                            "preproc_function_def"sv, "preproc_def"sv};
constexpr std::array kCppDefs{"function_definition"sv, "struct_specifier"sv, "union_specifier"sv,
                              "enum_specifier"sv, "class_specifier"sv, "type_definition"sv, "declaration"sv,
                              "alias_declaration"sv, "template_declaration"sv, "field_declaration"sv,
                              "preproc_function_def"sv, "preproc_def"sv};
constexpr std::array kCStmts{"expression_statement"sv, "return_statement"sv, "declaration"sv, "if_statement"sv,
                             "for_statement"sv, "while_statement"sv, "break_statement"sv};

// rust
constexpr std::array kRsBlocks{"block"sv, "declaration_list"sv, "field_declaration_list"sv, "match_block"sv,
                               "enum_variant_list"sv, "arguments"sv, "parameters"sv, "token_tree"sv};
constexpr std::array kRsComments{"line_comment"sv, "block_comment"sv};
constexpr std::array kRsStrings{"string_literal"sv, "raw_string_literal"sv, "char_literal"sv};
constexpr std::array kRsDefs{"function_item"sv, "function_signature_item"sv, "struct_item"sv, "enum_item"sv,
                             "trait_item"sv, "impl_item"sv, "type_item"sv, "const_item"sv, "static_item"sv,
                             "mod_item"sv, "macro_definition"sv};
constexpr std::array kRsStmts{"expression_statement"sv, "let_declaration"sv, "use_declaration"sv};

// go
constexpr std::array kGoBlocks{"block"sv, "field_declaration_list"sv, "literal_value"sv, "argument_list"sv,
                               "parameter_list"sv, "interface_type"sv};
constexpr std::array kGoComments{"comment"sv};
constexpr std::array kGoStrings{"interpreted_string_literal"sv, "raw_string_literal"sv, "rune_literal"sv};
constexpr std::array kGoDefs{"function_declaration"sv, "method_declaration"sv, "type_declaration"sv,
                             "const_declaration"sv, "var_declaration"sv};
constexpr std::array kGoStmts{"expression_statement"sv, "return_statement"sv, "short_var_declaration"sv,
                              "assignment_statement"sv, "if_statement"sv, "for_statement"sv};

// java
constexpr std::array kJavaBlocks{"block"sv, "class_body"sv, "interface_body"sv, "enum_body"sv,
                                 "constructor_body"sv, "switch_block"sv, "argument_list"sv,
                                 "formal_parameters"sv, "array_initializer"sv};
constexpr std::array kJavaComments{"line_comment"sv, "block_comment"sv};
constexpr std::array kJavaStrings{"string_literal"sv, "character_literal"sv};
constexpr std::array kJavaDefs{"method_declaration"sv, "constructor_declaration"sv, "class_declaration"sv,
                               "interface_declaration"sv, "enum_declaration"sv, "record_declaration"sv,
                               "field_declaration"sv};
constexpr std::array kJavaStmts{"expression_statement"sv, "return_statement"sv, "local_variable_declaration"sv,
                                "if_statement"sv, "for_statement"sv, "while_statement"sv};

// lua
constexpr std::array kLuaBlocks{"block"sv, "table_constructor"sv, "arguments"sv, "parameters"sv};
constexpr std::array kLuaComments{"comment"sv};
constexpr std::array kLuaStrings{"string"sv};
constexpr std::array kLuaDefs{"function_declaration"sv, "variable_declaration"sv};
constexpr std::array kLuaStmts{"function_call"sv, "assignment_statement"sv, "return_statement"sv,
                               "variable_declaration"sv, "if_statement"sv, "for_statement"sv};

// bash
constexpr std::array kShBlocks{"compound_statement"sv, "do_group"sv, "subshell"sv};
constexpr std::array kShComments{"comment"sv};
constexpr std::array kShStrings{"string"sv, "raw_string"sv, "ansi_c_string"sv, "heredoc_body"sv};
constexpr std::array kShDefs{"function_definition"sv, "variable_assignment"sv};
constexpr std::array kShStmts{"command"sv, "pipeline"sv, "variable_assignment"sv, "if_statement"sv,
                              "for_statement"sv, "while_statement"sv};

// json
constexpr std::array kJsonBlocks{"object"sv, "array"sv};
constexpr std::array kJsonComments{"comment"sv};
constexpr std::array kJsonStrings{"string"sv};
constexpr std::array kJsonDefs{"pair"sv};
constexpr std::array kJsonStmts{"pair"sv};

// ruby
constexpr std::array kRbBlocks{"body_statement"sv, "do_block"sv, "block"sv, "hash"sv, "array"sv,
                               "argument_list"sv, "method_parameters"sv};
constexpr std::array kRbComments{"comment"sv};
constexpr std::array kRbStrings{"string"sv, "heredoc_body"sv, "regex"sv, "string_array"sv, "symbol_array"sv};
constexpr std::array kRbDefs{"method"sv, "singleton_method"sv, "class"sv, "module"sv};
constexpr std::array kRbStmts{"assignment"sv, "call"sv, "return"sv, "if"sv, "while"sv};

// css
constexpr std::array kCssBlocks{"block"sv, "arguments"sv};
constexpr std::array kCssComments{"comment"sv};
constexpr std::array kCssStrings{"string_value"sv};
constexpr std::array kCssDefs{"rule_set"sv, "media_statement"sv, "keyframes_statement"sv};
constexpr std::array kCssStmts{"declaration"sv, "rule_set"sv};

constexpr std::string_view kBraces = "()[]{}";

const std::array<LanguageRules, 14> kRules{{
    {"python", kPyBlocks, kPyComments, kPyStrings, kPyDefs, kPyStmts, kBraces, "#", true},
    {"javascript", kJsBlocks, kJsComments, kJsStrings, kJsDefs, kJsStmts, kBraces, "//", false},
    {"typescript", kTsBlocks, kJsComments, kJsStrings, kTsDefs, kJsStmts, kBraces, "//", false},
    {"tsx", kTsBlocks, kJsComments, kJsStrings, kTsDefs, kJsStmts, kBraces, "//", false},
    {"c", kCBlocks, kCComments, kCStrings, kCDefs, kCStmts, kBraces, "//", false},
    {"cpp", kCppBlocks, kCComments, kCppStrings, kCppDefs, kCStmts, kBraces, "//", false},
    {"rust", kRsBlocks, kRsComments, kRsStrings, kRsDefs, kRsStmts, kBraces, "//", false},
    {"go", kGoBlocks, kGoComments, kGoStrings, kGoDefs, kGoStmts, kBraces, "//", false},
    {"java", kJavaBlocks, kJavaComments, kJavaStrings, kJavaDefs, kJavaStmts, kBraces, "//", false},
    {"lua", kLuaBlocks, kLuaComments, kLuaStrings, kLuaDefs, kLuaStmts, kBraces, "--", false},
    {"bash", kShBlocks, kShComments, kShStrings, kShDefs, kShStmts, kBraces, "#", false},
    {"json", kJsonBlocks, kJsonComments, kJsonStrings, kJsonDefs, kJsonStmts, "[]{}", "", false},
    {"ruby", kRbBlocks, kRbComments, kRbStrings, kRbDefs, kRbStmts, kBraces, "#", false},
    {"css", kCssBlocks, kCssComments, kCssStrings, kCssDefs, kCssStmts, kBraces, "", false},
}};

}  // namespace

const LanguageRules* language_rules(std::string_view name) {
  for (const LanguageRules& r : kRules)
    if (r.name == name) return &r;
  return nullptr;
}

std::span<const LanguageRules> all_language_rules() { return kRules; }

bool contains(std::span<const std::string_view> set, std::string_view type) {
  return std::find(set.begin(), set.end(), type) != set.end();
}

}  // namespace wafer::grammars
