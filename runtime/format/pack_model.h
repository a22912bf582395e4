// The pack's data model shared by the compiler (which writes it) and the runtime (which reads it):
// scopes, pattern roles, when-programs, validator settings, shell tables and limits, in the form
// both sides use. The FlatBuffers schema (runtime/schema/pack.fbs) is the wire form of the same
// things; the static_asserts below hold the two enumerations together.
#ifndef DOBERMAN_FORMAT_PACK_MODEL_H_
#define DOBERMAN_FORMAT_PACK_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "pack_generated.h"

namespace doberman::internal {

// The scopes, one row each: index constant, schema value (fb::Scope), name in rule files, and
// whether the scope is raw text a call carries (what `scopes: [any]` means: not the tool name, the
// canonical segments or folded prompts). Everything about scopes below, and the compiler's names,
// derive from this table.
#define DOBERMAN_SCOPES(X)                                \
  X(kScopeTool, Tool, "tool", false)                      \
  X(kScopeCommand, Command, "command", false)             \
  X(kScopeCommandText, CommandText, "command_text", true) \
  X(kScopePath, Path, "path", true)                       \
  X(kScopeContent, Content, "content", true)              \
  X(kScopeUrl, Url, "url", true)                          \
  X(kScopeArgs, Args, "args", true)                       \
  X(kScopePrompt, Prompt, "prompt", false)                \
  X(kScopePromptText, PromptText, "prompt_text", true)

enum ScopeIndex : uint8_t {
#define DOBERMAN_SCOPE_INDEX(index, schema, name, raw) \
  index = static_cast<uint8_t>(fb::Scope::schema),
  DOBERMAN_SCOPES(DOBERMAN_SCOPE_INDEX)
#undef DOBERMAN_SCOPE_INDEX
};

inline constexpr std::string_view kScopeNames[] = {
#define DOBERMAN_SCOPE_NAME(index, schema, name, raw) name,
    DOBERMAN_SCOPES(DOBERMAN_SCOPE_NAME)
#undef DOBERMAN_SCOPE_NAME
};
inline constexpr int kScopeCount = static_cast<int>(std::size(kScopeNames));
inline constexpr uint32_t kAllScopes = (1u << kScopeCount) - 1;
inline constexpr uint32_t kRawTextScopes = 0
#define DOBERMAN_SCOPE_RAW(index, schema, name, raw) | ((raw) ? 1u << index : 0u)
    DOBERMAN_SCOPES(DOBERMAN_SCOPE_RAW)
#undef DOBERMAN_SCOPE_RAW
    ;

// A rule's origins, a bit per doberman_origin (1u << origin): every origin is the default, and the
// bit set a unit outside the prompt scopes carries (every rule reads it).
inline constexpr uint32_t kAllOrigins = 0xFFFFFFFFu;

// The table lists every schema scope once, in schema order (the runtime indexes arrays by scope).
constexpr bool ScopesFollowTheSchema() {
  int position = 0;
#define DOBERMAN_SCOPE_ORDER(index, schema, name, raw) \
  if (index != position++) return false;
  DOBERMAN_SCOPES(DOBERMAN_SCOPE_ORDER)
#undef DOBERMAN_SCOPE_ORDER
  return position == static_cast<int>(fb::Scope::MAX) + 1;
}
static_assert(ScopesFollowTheSchema(), "DOBERMAN_SCOPES must list fb::Scope's values in order");

// Pattern roles and when-program operators: the schema's values, with checked conversions for the
// loader (a value past the schema's MAX is a structure error, never a cast).
enum class Role : uint8_t {
  kAny = static_cast<uint8_t>(fb::PatternRole::Any),
  kAll = static_cast<uint8_t>(fb::PatternRole::All),
  kNone = static_cast<uint8_t>(fb::PatternRole::None),
  kExcuse = static_cast<uint8_t>(fb::PatternRole::Excuse),
};
static_assert(fb::PatternRole::MAX == fb::PatternRole::Excuse, "a new PatternRole needs a Role");
enum class WhenOp : uint8_t {
  kRule = static_cast<uint8_t>(fb::WhenOp::Rule),
  kTag = static_cast<uint8_t>(fb::WhenOp::Tag),
  kAnd = static_cast<uint8_t>(fb::WhenOp::And),
  kOr = static_cast<uint8_t>(fb::WhenOp::Or),
  kNot = static_cast<uint8_t>(fb::WhenOp::Not),
  kTrue = static_cast<uint8_t>(fb::WhenOp::True),
};
static_assert(fb::WhenOp::MAX == fb::WhenOp::True, "a new schema WhenOp needs a WhenOp");

// What a mention-marker rule's matches do to a capped signature's match (fb::MentionMarker).
enum class MarkerKind : uint8_t {
  kNone = static_cast<uint8_t>(fb::MentionMarker::None),
  kSentence = static_cast<uint8_t>(fb::MentionMarker::Sentence),
  kBefore = static_cast<uint8_t>(fb::MentionMarker::Before),
  kNegation = static_cast<uint8_t>(fb::MentionMarker::Negation),
  kNegatedPhrase = static_cast<uint8_t>(fb::MentionMarker::NegatedPhrase),
};
static_assert(fb::MentionMarker::MAX == fb::MentionMarker::NegatedPhrase,
              "a new schema MentionMarker needs a MarkerKind");

inline bool RoleFromSchema(fb::PatternRole in, Role* out) {
  if (in > fb::PatternRole::MAX) return false;
  *out = static_cast<Role>(in);
  return true;
}
inline bool WhenOpFromSchema(fb::WhenOp in, WhenOp* out) {
  if (in > fb::WhenOp::MAX) return false;
  *out = static_cast<WhenOp>(in);
  return true;
}
inline bool MarkerKindFromSchema(fb::MentionMarker in, MarkerKind* out) {
  if (in > fb::MentionMarker::MAX) return false;
  *out = static_cast<MarkerKind>(in);
  return true;
}
inline fb::MentionMarker ToSchema(MarkerKind kind) { return static_cast<fb::MentionMarker>(kind); }
// The bool `Rule.mention_marker` that runtimes older than `Rule.marker` read (pack.fbs): true for
// the kinds they read as sentence markers, false for the negation kinds, which they must not see.
inline bool LegacyMentionMarker(MarkerKind kind) {
  return kind == MarkerKind::kSentence || kind == MarkerKind::kBefore;
}
inline fb::WhenOp ToSchema(WhenOp op) { return static_cast<fb::WhenOp>(op); }
inline fb::Scope ToSchema(ScopeIndex scope) { return static_cast<fb::Scope>(scope); }

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

static_assert(static_cast<int>(Role::kAny) == static_cast<int>(fb::PatternRole::Any) &&
                  static_cast<int>(Role::kAll) == static_cast<int>(fb::PatternRole::All) &&
                  static_cast<int>(Role::kNone) == static_cast<int>(fb::PatternRole::None) &&
                  static_cast<int>(Role::kExcuse) == static_cast<int>(fb::PatternRole::Excuse),
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
  // Programs that run the program text on their stdin (python3, perl, node, psql ...): a
  // here-document fed to one is read into its segment, as a here-string is.
  std::vector<std::string> stdin_programs;
  // Commands that run another command in a prepared environment, as the words that start them
  // ("uv run", "poetry run", "npx"): the command after them (and their options) is also a command
  // of the line.
  std::vector<std::string> runners;
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
