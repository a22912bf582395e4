// DSL front-end: `.dbr` text -> the same AST as YAML (ANTLR types never leave its implementation).
#ifndef DOBERMAN_COMPILER_DSL_FRONTEND_H_
#define DOBERMAN_COMPILER_DSL_FRONTEND_H_

#include "ast.h"
#include "diagnostics.h"
#include "yaml_frontend.h"

namespace doberman::compiler {

// Parses the DSL text registered as `file`; syntax errors go to `diags` (several per run, with
// recovery). Returns a ManifestAst or RuleFileAst, or monostate when nothing usable was parsed.
ParsedFile ParseDslFile(const SourceMap& sources, uint32_t file, Diagnostics& diags);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_DSL_FRONTEND_H_
