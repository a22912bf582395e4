// AST -> YAML text (`dobermanc convert --to yaml`), in the forms yaml_frontend.cc reads. Every
// value is a quoted scalar (single quotes when that is exact, double quotes with escapes
// otherwise), so the printed file reads back to an equal AST (dsl_ast_equal.h). Comments given by
// the caller are kept as whole-line `#` comments.
#ifndef DOBERMAN_COMPILER_YAML_PRINTER_H_
#define DOBERMAN_COMPILER_YAML_PRINTER_H_

#include <string>
#include <string_view>
#include <vector>

#include "dsl_printer.h"

namespace doberman::compiler {

// Prints `file`. Returns false (and fills `error`) when YAML cannot say what the AST says: YAML
// groups a rule's patterns by role (patterns/all/none) and its examples by kind (match/pass), so a
// rule whose patterns interleave roles, or whose examples interleave kinds, is refused rather than
// reordered.
bool PrintYaml(const ParsedFile& file, const std::vector<SourceComment>& comments, std::string* out,
               PrintError* error);

// A YAML scalar that yaml-cpp reads back as exactly `value`.
std::string YamlQuote(std::string_view value);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_YAML_PRINTER_H_
