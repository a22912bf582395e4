// Shell-aware normalization: turns one command line into the canonical segments that command rules match.
// Runtime side; no allocation once the output's capacity has grown (the caller reuses SegmentList).
#ifndef DOBERMAN_RUNTIME_SHELL_NORMALIZER_H_
#define DOBERMAN_RUNTIME_SHELL_NORMALIZER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace doberman::internal {

// A wrapper command that runs another command (sudo, env, timeout, xargs, ...). It is stripped, with its
// options, so that `sudo -u root rm -rf /` is matched as `rm -r -f /`.
struct WrapperSpec {
  std::string name;
  // Options that consume the next word (`-u` for sudo, `-n` for nice). `--opt=value` forms need no entry.
  std::vector<std::string> value_options;
  // Positional words consumed before the wrapped command (`timeout 10 cmd`: 1, `chroot DIR cmd`: 1).
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
  // Commands whose combined short flags are split (`rm -rf` -> `rm -r -f`). Others (find, java) are not.
  std::vector<std::string> split_flag_commands;
  std::vector<FlagAlias> aliases;
};

struct ShellLimits {
  size_t max_segments = 256;
  size_t max_depth = 64;
  size_t max_bytes = 100000;
};

// Why normalization stopped early. Anything but kOk makes the caller fail closed (AUTH).
enum class ShellStatus : uint8_t {
  kOk = 0,
  kTooManySegments,
  kTooDeep,
  kTooLong,
  kUnbalanced,  // unterminated quote, substitution or heredoc
};

// The output: canonical segments, each `argv0 arg1 arg2 ...` joined by single spaces, where argv0 is the
// basename of the executed program with quotes/escapes removed, wrappers and leading VAR=value assignments
// stripped, combined short flags split and aliases applied for commands in the tables. An argument that
// contains white space after unquoting is written inside single quotes so that it stays one word.
// Substitutions ($(...), backticks, <(...)) and `sh -c` payloads are parsed as their own segments as well.
struct SegmentList {
  std::vector<std::string> segments;  // only the first `count` entries are live; capacity is reused
  size_t count = 0;
  void Clear() { count = 0; }
};

class ShellNormalizer {
 public:
  ShellNormalizer(const ShellTables& tables, const ShellLimits& limits);

  // Appends the canonical segments of `command` to `out` (after out->count). Thread-safe: const, no
  // shared mutable state. On a non-kOk status, the segments produced so far stay in `out`.
  ShellStatus Normalize(std::string_view command, SegmentList* out) const;

 private:
  struct Impl;
  std::unordered_map<std::string, WrapperSpec> wrappers_;
  std::unordered_map<std::string, bool> shells_;
  std::unordered_map<std::string, bool> split_flag_commands_;
  std::unordered_map<std::string, std::unordered_map<std::string, std::string>> aliases_;
  ShellLimits limits_;
};

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_SHELL_NORMALIZER_H_
