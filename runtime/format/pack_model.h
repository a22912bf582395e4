// The pack's data model shared by the compiler (which writes it) and the runtime (which reads it):
// scopes, pattern roles, when-programs, validator settings, shell tables and limits, in the form
// both sides use. The FlatBuffers schema (runtime/schema/pack.fbs) is the wire form of the same
// things; the static_asserts below hold the two enumerations together.
#ifndef DOBERMAN_FORMAT_PACK_MODEL_H_
#define DOBERMAN_FORMAT_PACK_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pack_generated.h"

namespace doberman::internal {

inline constexpr int kScopeCount = 9;  // fb::Scope values 0..8
inline constexpr uint32_t kAllScopes = (1u << kScopeCount) - 1;
enum ScopeIndex : uint8_t {
  kScopeTool = 0,
  kScopeCommand = 1,
  kScopeCommandText = 2,
  kScopePath = 3,
  kScopeContent = 4,
  kScopeUrl = 5,
  kScopeArgs = 6,
  kScopePrompt = 7,
  kScopePromptText = 8,
};

enum class Role : uint8_t { kAny = 0, kAll = 1, kNone = 2 };
enum class WhenOp : uint8_t { kRule = 0, kTag = 1, kAnd = 2, kOr = 3, kNot = 4, kTrue = 5 };

struct WhenInstr {
  WhenOp op;
  uint32_t arg;
};

struct ValidatorSpec {
  float min_entropy = 0;
  uint32_t min_length = 0;
  bool placeholder = false;
  bool exempt_hashes = false;
  bool exempt_identifiers = false;
  bool Any() const {
    return min_entropy > 0 || min_length > 0 || placeholder || exempt_hashes || exempt_identifiers;
  }
};

// Bound on distinct database groups (scope sets) a pack may carry.
inline constexpr size_t kMaxDatabaseGroups = 32;

static_assert(kScopeTool == static_cast<int>(fb::Scope::Tool) &&
                  kScopeCommand == static_cast<int>(fb::Scope::Command) &&
                  kScopeCommandText == static_cast<int>(fb::Scope::CommandText) &&
                  kScopePath == static_cast<int>(fb::Scope::Path) &&
                  kScopeContent == static_cast<int>(fb::Scope::Content) &&
                  kScopeUrl == static_cast<int>(fb::Scope::Url) &&
                  kScopeArgs == static_cast<int>(fb::Scope::Args) &&
                  kScopePrompt == static_cast<int>(fb::Scope::Prompt) &&
                  kScopePromptText == static_cast<int>(fb::Scope::PromptText),
              "ScopeIndex must match the schema's Scope");
static_assert(kScopeCount == static_cast<int>(fb::Scope::MAX) + 1, "one ScopeIndex per Scope");
static_assert(static_cast<int>(Role::kAny) == static_cast<int>(fb::PatternRole::Any) &&
                  static_cast<int>(Role::kAll) == static_cast<int>(fb::PatternRole::All) &&
                  static_cast<int>(Role::kNone) == static_cast<int>(fb::PatternRole::None),
              "Role must match the schema's PatternRole");
static_assert(static_cast<int>(WhenOp::kRule) == static_cast<int>(fb::WhenOp::Rule) &&
                  static_cast<int>(WhenOp::kTag) == static_cast<int>(fb::WhenOp::Tag) &&
                  static_cast<int>(WhenOp::kAnd) == static_cast<int>(fb::WhenOp::And) &&
                  static_cast<int>(WhenOp::kOr) == static_cast<int>(fb::WhenOp::Or) &&
                  static_cast<int>(WhenOp::kNot) == static_cast<int>(fb::WhenOp::Not) &&
                  static_cast<int>(WhenOp::kTrue) == static_cast<int>(fb::WhenOp::True),
              "WhenOp must match the schema's WhenOp");

// A wrapper command that runs another command (sudo, env, timeout, xargs, ...). It is stripped,
// with its options, so that `sudo -u root rm -rf /` is matched as `rm -r -f /`.
struct WrapperSpec {
  std::string name;
  // Options that consume the next word (`-u` for sudo, `-n` for nice). `--opt=value` forms need no
  // entry.
  std::vector<std::string> value_options;
  // Positional words consumed before the wrapped command (`timeout 10 cmd`: 1, `chroot DIR cmd`:
  // 1).
  int positional_args = 0;
};

// An option alias applied after short-flag splitting: `rm --recursive` -> `rm -r`.
struct FlagAlias {
  std::string command;  // argv[0] basename the alias applies to
  std::string from;     // e.g. "--recursive", "-R"
  std::string to;       // e.g. "-r"
};

// The tables travel inside the signed pack; none of them are hard-coded in the runtime.
struct ShellTables {
  std::vector<WrapperSpec> wrappers;
  // Shells whose `-c PAYLOAD` is parsed recursively (sh, bash, zsh, dash, ksh, su's -c ...).
  std::vector<std::string> shells;
  // Commands whose combined short flags are split (`rm -rf` -> `rm -r -f`). Others (find, java) are
  // not.
  std::vector<std::string> split_flag_commands;
  std::vector<FlagAlias> aliases;
};

// Every pack limit, once: its name (as a manifest writes it and as the schema's Limits table names
// it), its type on the wire and its default. The compiler's IR, its manifest checker, the payload
// writer and the loader are all derived from this list; `limits_table_test` checks the defaults
// against the schema's.
#define DOBERMAN_PACK_LIMITS(X)            \
  X(max_string_bytes, uint64_t, 100000)    \
  X(max_content_bytes, uint64_t, 16777216) \
  X(max_prompt_bytes, uint64_t, 200000)    \
  X(max_segments, uint32_t, 256)           \
  X(max_depth, uint32_t, 64)               \
  X(max_units, uint32_t, 4096)             \
  X(max_decoded_runs, uint32_t, 64)        \
  X(max_decoded_bytes, uint32_t, 4096)     \
  X(min_base64, uint32_t, 24)              \
  X(min_hex, uint32_t, 32)

// The limits as a pack carries them (the compiler's IR; what the loader reads before mapping them
// onto the runtime's Limits, DecodeLimits and ShellLimits).
struct PackLimits {
#define DOBERMAN_LIMIT_FIELD(name, type, default_value) type name = default_value;
  DOBERMAN_PACK_LIMITS(DOBERMAN_LIMIT_FIELD)
#undef DOBERMAN_LIMIT_FIELD
};

inline constexpr const char* kPackLimitNames[] = {
#define DOBERMAN_LIMIT_NAME(name, type, default_value) #name,
    DOBERMAN_PACK_LIMITS(DOBERMAN_LIMIT_NAME)
#undef DOBERMAN_LIMIT_NAME
};

// Sets the limit called `name` to `value`; false when there is no such limit.
inline bool SetPackLimit(PackLimits* limits, std::string_view name, uint64_t value) {
#define DOBERMAN_LIMIT_SET(field, type, default_value) \
  if (name == #field) {                                \
    limits->field = static_cast<type>(value);          \
    return true;                                       \
  }
  DOBERMAN_PACK_LIMITS(DOBERMAN_LIMIT_SET)
#undef DOBERMAN_LIMIT_SET
  return false;
}

// The runtime's view of the decoding limits (min_percent is not a pack limit).
struct DecodeLimits {
  size_t min_base64 = PackLimits{}.min_base64;      // shortest base64/base64url run worth decoding
  size_t min_hex = PackLimits{}.min_hex;            // shortest hex run (even length)
  size_t min_percent = 3;                           // fewest consecutive %XX escapes
  size_t max_runs = PackLimits{}.max_decoded_runs;  // at most this many runs per text
  // Runs longer than this are decoded only up to this many input bytes.
  size_t max_run_bytes = PackLimits{}.max_decoded_bytes;
};

// The decider's limits, mapped from the pack's by the loader.
struct Limits {
  uint64_t max_string_bytes = PackLimits{}.max_string_bytes;
  uint64_t max_content_bytes = PackLimits{}.max_content_bytes;
  uint64_t max_prompt_bytes = PackLimits{}.max_prompt_bytes;
  uint32_t max_units = PackLimits{}.max_units;
  DecodeLimits decode;
};

}  // namespace doberman::internal

#endif  // DOBERMAN_FORMAT_PACK_MODEL_H_
