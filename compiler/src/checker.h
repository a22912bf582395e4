// Semantic checks, once, for both front-ends: AST (manifest + rule files) -> checked IR. Reports
// every problem it finds (up to the diagnostics cap) and returns false when any error was reported.
#ifndef DOBERMAN_COMPILER_CHECKER_H_
#define DOBERMAN_COMPILER_CHECKER_H_

#include <vector>

#include "ast.h"
#include "diagnostics.h"
#include "ir.h"

namespace doberman::compiler {

bool CheckPack(const SourceMap& sources, const ManifestAst& manifest,
               const std::vector<RuleFileAst>& files, Diagnostics& diags, IrPack* out);

// Rule-file-only checks (no manifest), used by `dobermanc test FILE` and `fmt`/`convert` round
// trips.
bool CheckRules(const SourceMap& sources, const std::vector<RuleFileAst>& files, Diagnostics& diags,
                IrPack* out);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_CHECKER_H_
