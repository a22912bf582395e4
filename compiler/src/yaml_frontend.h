// YAML front-end: YAML text -> AST (rule files and pack manifests). yaml-cpp types never leave this
// file's implementation. Structural problems (wrong types, unknown fields) are reported here with
// did-you-mean; meaning (verdict names, cycles, duplicates) is checked later, once, by the checker.
#ifndef DOBERMAN_COMPILER_YAML_FRONTEND_H_
#define DOBERMAN_COMPILER_YAML_FRONTEND_H_

#include <variant>

#include "ast.h"
#include "diagnostics.h"

namespace doberman::compiler {

// One parsed source file: a manifest or a rule file.
using ParsedFile = std::variant<std::monostate, ManifestAst, RuleFileAst>;

// Parses the YAML text registered as `file` in `sources`. On syntax or structure errors, reports
// them and returns what it could (possibly monostate).
ParsedFile ParseYamlFile(const SourceMap& sources, uint32_t file, Diagnostics& diags);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_YAML_FRONTEND_H_
