// The command lines a program's source passes to the calls that run them (system, popen, exec*,
// subprocess, child_process, backticks): read out of inline programs (`python -c`, `perl -e`,
// awk) by the shell normalizer and out of source files being written (units.cc).
#ifndef DOBERMAN_RUNTIME_COMMAND_LITERALS_H_
#define DOBERMAN_RUNTIME_COMMAND_LITERALS_H_

#include <algorithm>
#include <iterator>
#include <string_view>

#include "shell_parser.h"

namespace doberman::internal {

// Calls `f` with each string literal `code` passes to a call that runs a command line (system,
// popen, exec*, subprocess's run/call/check_output/Popen/getoutput, PHP's shell_exec/passthru),
// each backtick literal (when `backticks`: Ruby, Perl, PHP, shell), and each literal awk reads with
// `"..." | getline` or writes to with `print ... | "..."`. Literals are read up to the same quote
// not escaped by a backslash; escapes are left in (over-inclusive at worst).
template <typename F>
void ForEachCommandLiteral(std::string_view code, bool backticks, F&& f) {
  static constexpr std::string_view kCalls[] = {
      "system",    "popen",           "exec",         "execSync",   "shell_exec", "passthru",
      "getoutput", "getstatusoutput", "check_output", "check_call", "call",       "run",
      "Popen",     "spawnSync"};
  auto literal_at = [&](size_t q, size_t* end) -> std::string_view {
    const char quote = code[q];
    size_t k = q + 1;
    while (k < code.size() && code[k] != quote) k += code[k] == '\\' ? 2 : 1;
    *end = k;
    return k < code.size() ? code.substr(q + 1, k - q - 1) : std::string_view();
  };
  for (size_t p = 0; p < code.size(); ++p) {
    const char c = code[p];
    if (c == '`' && backticks) {
      size_t end = 0;
      const std::string_view lit = literal_at(p, &end);
      if (!lit.empty()) f(lit);
      p = end;
      continue;
    }
    if (c == '"' || c == '\'') {
      // awk: "cmd" | getline, print ... | "cmd"
      size_t before = p;
      while (before > 0 && shell_parser::IsBlank(code[before - 1])) --before;
      const bool piped_into = before > 0 && code[before - 1] == '|';
      size_t end = 0;
      const std::string_view lit = literal_at(p, &end);
      if (!lit.empty() && piped_into) {
        f(lit);
        p = end;
        continue;
      }
      size_t k = end + 1;
      while (k < code.size() && shell_parser::IsBlank(code[k])) ++k;
      if (!lit.empty() && k < code.size() && code[k] == '|') {
        ++k;
        while (k < code.size() && shell_parser::IsBlank(code[k])) ++k;
        if (code.substr(k, 7) == "getline") f(lit);
      }
      p = end;
      continue;
    }
    if (!shell_parser::IsAlpha(c) || (p > 0 && shell_parser::IsNameChar(code[p - 1]))) continue;
    size_t k = p;
    while (k < code.size() && shell_parser::IsNameChar(code[k])) ++k;
    const std::string_view name = code.substr(p, k - p);
    if (std::find(std::begin(kCalls), std::end(kCalls), name) == std::end(kCalls)) {
      p = k - 1;
      continue;
    }
    while (k < code.size() && shell_parser::IsBlank(code[k])) ++k;
    if (k >= code.size() || code[k] != '(') {
      p = k - 1;
      continue;
    }
    ++k;
    while (k < code.size() && (shell_parser::IsBlank(code[k]) || code[k] == '[')) ++k;
    if (k < code.size() && (code[k] == '"' || code[k] == '\'')) {
      size_t end = 0;
      const std::string_view lit = literal_at(k, &end);
      if (!lit.empty()) f(lit);
      p = end;
    } else {
      p = k - 1;
    }
  }
}

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_COMMAND_LITERALS_H_
