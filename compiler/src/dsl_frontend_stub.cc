// Placeholder until the ANTLR front-end lands: every .dbr file is reported as unsupported.
#include "dsl_frontend.h"

namespace doberman::compiler {

ParsedFile ParseDslFile(const SourceMap& sources, uint32_t file, Diagnostics& diags) {
  (void)sources;
  diags.Error("E1003", Loc{file, 1, 1, 1}, "the rule DSL is not available in this build");
  return {};
}

}  // namespace doberman::compiler
