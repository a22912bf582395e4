// The command lines a program's source passes to the calls that run them (system, popen, exec*,
// subprocess, child_process, backticks): read out of inline programs (`python -c`, `perl -e`,
// awk) by the shell normalizer and out of source files being written (units.cc).
#ifndef DOBERMAN_RUNTIME_COMMAND_LITERALS_H_
#define DOBERMAN_RUNTIME_COMMAND_LITERALS_H_

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

#include "shell_parser.h"

namespace doberman::internal {

namespace command_literals {

// The literal from the quote at `q` up to the same quote not escaped by a backslash (escapes left
// in: over-inclusive at worst); `*end` is the closing quote's index, or code.size() when there is
// none (then the literal is empty).
inline std::string_view LiteralAt(std::string_view code, size_t q, size_t* end) {
  const char quote = code[q];
  size_t k = q + 1;
  while (k < code.size() && code[k] != quote) k += code[k] == '\\' ? 2 : 1;
  *end = std::min(k, code.size());
  return k < code.size() ? code.substr(q + 1, k - q - 1) : std::string_view();
}

inline size_t SkipBlanks(std::string_view code, size_t k) {
  while (k < code.size() && (shell_parser::IsBlank(code[k]) || code[k] == '\n')) ++k;
  return k;
}

// Whether `lit` reads as a program's name or path (`rm`, `/bin/rm`, `python3.12`): no blanks or
// shell syntax, so that the word is the same quoted or not.
inline bool IsProgramName(std::string_view lit) {
  for (const char c : lit) {
    if (!shell_parser::IsNameChar(c) && c != '/' && c != '.' && c != '-') return false;
  }
  return !lit.empty();
}

// An argument list at `k` (its '['): Python's ['rm', '-rf', path], Node's execFile('rm', [...]);
// or, with `close` ')' and `k` at the ',' after the program, the rest of a call's arguments (Ruby's
// and Perl's system('rm', '-rf', path)). Appends each element to `out` as a shell word after a
// space: a string literal as itself, anything else (a variable, a call, an f-string) as "$ARG",
// which the rules judge as a value they cannot see. Returns the index after the closing ']' (not
// after ')', which the caller's call ends with), or where the list stopped reading as one.
inline size_t AppendArgumentList(std::string_view code, size_t k, std::string* out,
                                 char close = ']') {
  constexpr size_t kMaxElements = 256;
  ++k;
  for (size_t n = 0; n < kMaxElements; ++n) {
    k = SkipBlanks(code, k);
    if (k >= code.size() || code[k] == close) break;
    out->push_back(' ');
    if (code[k] == '"' || code[k] == '\'') {
      size_t end = 0;
      shell_parser::AppendQuoted(out, LiteralAt(code, k, &end));
      k = end + 1;
    } else {
      // An expression: up to the ',' or ']' that ends it, past brackets and quotes inside it.
      out->append("\"$ARG\"");
      size_t depth = 0;
      for (; k < code.size(); ++k) {
        const char c = code[k];
        if (c == '"' || c == '\'') {
          LiteralAt(code, k, &k);
        } else if (c == '(' || c == '[' || c == '{') {
          ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
          if (depth == 0) break;
          --depth;
        } else if (c == ',' && depth == 0) {
          break;
        }
      }
    }
    k = SkipBlanks(code, k);
    if (k >= code.size() || code[k] != ',') break;
    ++k;
  }
  return close == ']' && k < code.size() && code[k] == ']' ? k + 1 : k;
}

}  // namespace command_literals

// Appends to `out`, one per line, each command line `code` passes to a call that runs one (system,
// popen, exec*, subprocess's run/call/check_output/Popen/getoutput, Node's spawn/execFile, PHP's
// shell_exec/passthru): a string literal as it stands, an argument list (['rm', '-rf', '/'], or
// execFile's program and list) as its words; each backtick literal (when `backticks`: Ruby, Perl,
// PHP, shell); and each literal awk reads with `"..." | getline` or writes to with
// `print ... | "..."`. Appending to a caller's buffer keeps a warm normalizer free of allocations.
inline void AppendCommandLiterals(std::string_view code, bool backticks, std::string* out) {
  using command_literals::LiteralAt;
  static constexpr std::string_view kCalls[] = {
      "system",    "popen",           "exec",         "execSync",   "shell_exec",  "passthru",
      "getoutput", "getstatusoutput", "check_output", "check_call", "call",        "run",
      "Popen",     "spawnSync",       "spawn",        "execFile",   "execFileSync"};
  auto emit = [&](std::string_view line) { out->append(line).push_back('\n'); };
  for (size_t p = 0; p < code.size(); ++p) {
    const char c = code[p];
    if (c == '`' && backticks) {
      size_t end = 0;
      const std::string_view lit = LiteralAt(code, p, &end);
      if (!lit.empty()) emit(lit);
      p = end;
      continue;
    }
    if (c == '"' || c == '\'') {
      // awk: "cmd" | getline, print ... | "cmd"
      size_t before = p;
      while (before > 0 && shell_parser::IsBlank(code[before - 1])) --before;
      const bool piped_into = before > 0 && code[before - 1] == '|';
      size_t end = 0;
      const std::string_view lit = LiteralAt(code, p, &end);
      if (!lit.empty() && piped_into) {
        emit(lit);
        p = end;
        continue;
      }
      size_t k = end + 1;
      while (k < code.size() && shell_parser::IsBlank(code[k])) ++k;
      if (!lit.empty() && k < code.size() && code[k] == '|') {
        ++k;
        while (k < code.size() && shell_parser::IsBlank(code[k])) ++k;
        if (code.substr(k, 7) == "getline") emit(lit);
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
    k = command_literals::SkipBlanks(code, k + 1);
    if (k < code.size() && code[k] == '[') {
      // A list whose program is not a literal ([sys.executable, '-m', 'pytest']) runs a program
      // the text does not name: no command line, as for a call with no literal at all.
      const size_t first = command_literals::SkipBlanks(code, k + 1);
      const bool named = first < code.size() && (code[first] == '"' || code[first] == '\'');
      const size_t mark = out->size();
      k = command_literals::AppendArgumentList(code, k, out);
      if (named) {
        out->erase(mark, 1);  // the first word's leading space
        out->push_back('\n');
      } else {
        out->resize(mark);
      }
      p = k - 1;
    } else if (k < code.size() && (code[k] == '"' || code[k] == '\'')) {
      size_t end = 0;
      const std::string_view lit = LiteralAt(code, k, &end);
      p = end;
      if (lit.empty()) continue;
      // execFile('rm', ['-rf', ...]): the program, then its argument list.
      size_t after = command_literals::SkipBlanks(code, end + 1);
      if (after < code.size() && code[after] == ',') {
        const size_t comma = after;
        after = command_literals::SkipBlanks(code, after + 1);
        if (after < code.size() && code[after] == '[') {
          shell_parser::AppendQuoted(out, lit);
          p = command_literals::AppendArgumentList(code, after, out) - 1;
          out->push_back('\n');
          continue;
        }
        // system('rm', '-rf', path): a program's name, then its arguments. Only a name: a
        // command line (popen('ls -l', 'r'), run('a;b', shell=True)) is emitted as it stands.
        if (command_literals::IsProgramName(lit)) {
          shell_parser::AppendQuoted(out, lit);
          p = command_literals::AppendArgumentList(code, comma, out, ')') - 1;
          out->push_back('\n');
          continue;
        }
      }
      emit(lit);
    } else {
      p = k - 1;
    }
  }
}

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_COMMAND_LITERALS_H_
