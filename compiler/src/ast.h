// The compiler's AST: what a rule file or pack manifest says, as written, with a location on every
// value. Both front-ends (YAML and the DSL) produce exactly this; semantic checks (checker.cc) run
// once on it. Values stay as strings here (verdicts, scopes) so that both front-ends share the
// checks and their diagnostics.
#ifndef DOBERMAN_COMPILER_AST_H_
#define DOBERMAN_COMPILER_AST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "source_map.h"

namespace doberman::compiler {

// A scalar with the place it was written. `loc.known()` is false when absent.
struct Text {
  std::string value;
  Loc loc;
  bool present() const { return loc.known(); }
};

enum class PatternRole { kAny, kAll, kNone, kExcuse };

struct PatternAst {
  Text regex;
  std::vector<Text> flags;  // caseless, dotall, multiline, utf8, ucp, som
  PatternRole role = PatternRole::kAny;
  // Column of the pattern's first character relative to loc.column (1 when the scalar is quoted),
  // so that an error offset inside the pattern moves the caret to the right byte.
  uint32_t content_offset = 0;
};

// An example: either a bare string (applied to the rule's first scope) or a whole call.
struct CallAst {
  Text tool, command, path, cwd, content, url, prompt, origin;
  std::vector<Text> args;
};

struct ExampleAst {
  bool expect_match = true;  // `match:` (the rule must fire) or `pass:` (it must not)
  std::optional<Text> text;
  CallAst call;
  Loc loc;
};

struct ValidatorsAst {
  Text min_entropy, min_length;
  Text placeholder, exempt_hashes, exempt_identifiers;  // "true"/"false"
  Loc loc;
  bool present = false;
};

struct RuleAst {
  Text id, family, verdict, tier, reason, message, when, mention_cap, mention_marker, decode;
  Text description;
  std::vector<Text> scopes, tags, origins;
  std::vector<PatternAst> patterns;
  ValidatorsAst validators;
  std::vector<ExampleAst> examples;
  Loc loc;
};

struct WrapperAst {
  Text name, positional;
  std::vector<Text> value_options;
};

struct AliasAst {
  Text command, from, to;
};

struct ShellAst {
  std::vector<WrapperAst> wrappers;
  std::vector<Text> shells, split_flags, stdin_programs, runners;
  std::vector<AliasAst> aliases;
  Loc loc;
};

// A named piece of regex that a rule file defines once (`define name /.../`, YAML `define:`) and
// its patterns use as (?&name): one list of words kept in one place, not copied into every rule
// that needs it. The checker expands it; the AST keeps the reference as written, so that the
// printers give it back.
struct FragmentAst {
  Text name;
  PatternAst pattern;  // regex and content_offset; flags are refused (they belong to patterns)
};

struct RuleFileAst {
  uint32_t file = 0;
  std::vector<FragmentAst> fragments;  // in order: a fragment may use the ones defined before it
  std::vector<RuleAst> rules;
  std::vector<ShellAst> shell;  // zero or one per file; several files may contribute
};

struct LimitAst {
  Text name, value;
};

struct ManifestAst {
  uint32_t file = 0;
  Text name, version, revision, description, expires;
  std::vector<Text> includes;
  std::vector<Text> exclude_rules;
  std::vector<Text> platforms;  // extra Hyperscan variants: avx2, avx512
  std::vector<LimitAst> limits;
  // Fragments every rule file of the pack may use, beside its own: a vocabulary several files
  // share (the credential files a read, a shell command and an upload all name).
  std::vector<FragmentAst> fragments;
  Loc loc;
};

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_AST_H_
