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

using internal::MarkerKind;
using internal::Role;
using internal::ValidatorSpec;
using internal::WhenInstr;
using internal::WhenOp;

// Where a fragment reference (?&name) was expanded in a pattern's expression: the expanded bytes
// [expanded_at, +expanded_length) stand for the source bytes [source_at, +source_length).
struct FragmentUse {
  size_t expanded_at = 0, expanded_length = 0;
  size_t source_at = 0, source_length = 0;
};

// The offset in the pattern as written of byte `offset` of its expanded expression (a byte inside
// an expansion maps to the reference), so that a caret lands on what the author wrote.
inline size_t SourceOffset(const std::vector<FragmentUse>& uses, size_t offset) {
  // expanded bytes minus source bytes of the expansions before `offset` (an expansion may be
  // shorter than its reference)
  int64_t shift = 0;
  for (const FragmentUse& u : uses) {
    if (offset < u.expanded_at) break;
    if (offset < u.expanded_at + u.expanded_length) return u.source_at;
    shift += static_cast<int64_t>(u.expanded_length) - static_cast<int64_t>(u.source_length);
  }
  return static_cast<size_t>(static_cast<int64_t>(offset) - shift);
}

// The caret for bytes [offset, offset + length) of a pattern's text as written: `loc` is where its
// scalar starts, `content_offset` the column of the pattern's first character relative to it.
inline Loc PatternTextLoc(Loc loc, uint32_t content_offset, size_t offset, size_t length) {
  loc.column += content_offset + static_cast<uint32_t>(offset);
  loc.length = static_cast<uint32_t>(length);
  return loc;
}

struct IrPattern {
  std::string expression;                  // fragments expanded
  std::vector<FragmentUse> fragment_uses;  // in order of expanded_at
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
  MarkerKind mention_marker = MarkerKind::kNone;
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
