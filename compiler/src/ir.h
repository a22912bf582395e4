// The checked IR: rules with resolved indices, the pattern table with Hyperscan flags,
// when-programs in postfix, shell tables and limits. Produced by the checker; consumed by the
// Hyperscan stage, the payload writer and the example runner. Nothing in it can be invalid.
#ifndef DOBERMAN_COMPILER_IR_H_
#define DOBERMAN_COMPILER_IR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "doberman/doberman.h"
#include "pack_model.h"  // the pack contract: ScopeIndex, Role, WhenInstr, ValidatorSpec, ShellTables, Limits
#include "source_map.h"

namespace doberman::compiler {

using internal::Role;
using internal::ValidatorSpec;
using internal::WhenInstr;
using internal::WhenOp;

struct IrPattern {
  std::string expression;
  unsigned int hs_flags = 0;  // without SOM; the Hyperscan stage adds it when `som` is set
  bool som = false;           // needs a start offset (mention checks, `som` flag)
  bool every_match = false;   // validators judge each match: no SINGLEMATCH
  Role role = Role::kAny;
  uint32_t rule = 0;
  Loc loc;
  uint32_t content_offset = 0;
};

struct IrCall {
  std::string tool, command, path, cwd, content, url, prompt;
  std::vector<std::string> args;
  bool has_prompt = false;
  doberman_origin origin = DOBERMAN_ORIGIN_TYPED;
};

struct IrExample {
  bool expect_match = true;
  IrCall call;
  Loc loc;
};

struct IrRule {
  std::string id, family, reason, message, description, source;
  uint32_t scopes = 0;
  doberman_verdict verdict = DOBERMAN_AUTH;
  uint8_t tier = 0;
  std::vector<uint32_t> tags;
  std::vector<WhenInstr> when;
  std::string when_text;
  ValidatorSpec validators;
  bool decode = false;
  uint32_t origins = internal::kAllOrigins;
  doberman_verdict mention_cap = DOBERMAN_BLOCK;
  bool mention_marker = false;
  std::vector<uint32_t> patterns;
  std::vector<IrExample> examples;
  Loc loc;
};

// The pack's limits (one table for the compiler and the runtime: pack_model.h).
using IrLimits = internal::PackLimits;

struct IrPack {
  std::string name, version, description;
  uint64_t revision = 0;
  int64_t expires_unix = 0;
  std::vector<IrRule> rules;
  std::vector<IrPattern> patterns;
  std::vector<std::string> tags;
  internal::ShellTables shell;
  IrLimits limits;
  std::vector<std::string> platforms;  // always starts with "generic"
  std::string sources_digest;
  Loc manifest_loc;
};

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_IR_H_
