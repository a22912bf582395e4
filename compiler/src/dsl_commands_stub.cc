// Placeholder for fmt/convert until the DSL lands.
#include <cstdio>

#include "commands.h"

namespace doberman::compiler {

int RunFmt(const FmtOptions& o, const CommonOptions&) {
  std::fprintf(stderr, "dobermanc fmt: the DSL is not available in this build (%s)\n", o.file.c_str());
  return kExitUsage;
}

int RunConvert(const ConvertOptions& o, const CommonOptions&) {
  std::fprintf(stderr, "dobermanc convert: the DSL is not available in this build (%s)\n", o.file.c_str());
  return kExitUsage;
}

}  // namespace doberman::compiler
