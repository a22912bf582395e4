// The Hyperscan stage: block-mode databases (one per scope by default) and their platform
// variants, compiled with libhs (compiler side only). Pattern errors are mapped back to the rule
// and the byte in the pattern.
#ifndef DOBERMAN_COMPILER_HS_BUILDER_H_
#define DOBERMAN_COMPILER_HS_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "ir.h"

namespace doberman::compiler {

struct CompiledDatabase {
  int scope = 0;             // first scope served
  uint32_t scopes = 0;       // every scope served (bit per scope)
  bool conditional = false;  // all/none patterns scanned only after their rule's any pattern
  uint32_t group = 0;        // same pattern set (platform variants) <=> same group
  std::string platform;
  std::vector<uint32_t> pattern_ids;  // Hyperscan id i -> pattern_ids[i] in IrPack::patterns
  std::vector<uint8_t> bytes;         // hs_serialize_database
};

// How patterns are split into databases. The runtime reads either and decides the same; the
// layouts differ in speed and size only (tests/compiler/layout_differential_test.py checks the
// verdicts agree).
enum class DatabaseLayout {
  kPerScope,      // one trigger database per scope (shared when lists are identical): one scan
                  // per unit; a pattern serving k scopes is stored k times
  kByRuleScopes,  // one database per exact set of scopes a rule serves: each pattern stored once,
                  // a unit scanned with every database serving its scope (earlier packs)
};

// Validates every pattern, then compiles the databases. `pack.patterns[i].som` may be cleared for
// patterns that were only opportunistically given SOM. Returns false when any error was reported.
bool CompileDatabases(IrPack& pack, Diagnostics& diags, std::vector<CompiledDatabase>* out,
                      DatabaseLayout layout = DatabaseLayout::kPerScope);

// The running libhs version string (recorded in every pack).
std::string HyperscanVersion();

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_HS_BUILDER_H_
