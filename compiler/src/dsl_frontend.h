// DSL front-end: `.dbr` text -> the same AST as YAML (ANTLR types never leave its implementation).
// Syntax errors are E1003 (parser), E1006 (lexer: stray characters, unterminated strings, regexes
// and comments), E1007 (bad string escapes), E1008 (unknown regex flag letters), E1009 (a field or
// block given twice, a manifest mixed with rules). Everything else is the checker's business.
#ifndef DOBERMAN_COMPILER_DSL_FRONTEND_H_
#define DOBERMAN_COMPILER_DSL_FRONTEND_H_

#include <string>
#include <vector>

#include "ast.h"
#include "diagnostics.h"
#include "yaml_frontend.h"

namespace doberman::compiler {

// Parses the DSL text registered as `file`; syntax errors go to `diags` (several per run, with
// recovery, until the diagnostics cap). Returns a ManifestAst or RuleFileAst, or monostate when
// nothing usable was parsed. On errors the AST may be partial: callers must not check it.
// Thread-safe for distinct `diags` (ANTLR's shared DFA cache is internally locked).
ParsedFile ParseDslFile(const SourceMap& sources, uint32_t file, Diagnostics& diags);

// A comment as written, for printers that keep comments: the line it starts on and its text without
// the `//`, `/* */` or `#` markers, one entry per line of text.
struct SourceComment {
  uint32_t line = 0;
  uint32_t column = 1;  // of the comment marker, on its first line
  std::string text;
};

// The comments of a DSL file, in order (lexing only; never reports errors).
std::vector<SourceComment> DslComments(const SourceMap& sources, uint32_t file);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_DSL_FRONTEND_H_
