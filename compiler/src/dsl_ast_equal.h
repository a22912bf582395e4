// Equality of ASTs as the language sees them: every value and its presence, every list in order,
// but not where things were written (Locs, content offsets, file ids). Used by `fmt`/`convert` to
// refuse output that would not read back the same, by the equivalence tests and by the fuzzers.
#ifndef DOBERMAN_COMPILER_DSL_AST_EQUAL_H_
#define DOBERMAN_COMPILER_DSL_AST_EQUAL_H_

#include <string>

#include "ast.h"
#include "yaml_frontend.h"

namespace doberman::compiler {

// True when `a` and `b` say the same thing. Otherwise false, with `difference` (when not null)
// naming the first difference, e.g. "rules[3].patterns[1].flags: 2 vs 1 items".
bool AstEqual(const ParsedFile& a, const ParsedFile& b, std::string* difference);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_DSL_AST_EQUAL_H_
