// Notebook cell -> shell commands (API in notebook_shell.h). A reader of Python's literal syntax
// just deep enough for call arguments: quotes, triple quotes, string prefixes, lists and tuples.
#include "notebook_shell.h"

#include <array>
#include <cctype>
#include <cstring>

#include "shell_quote.h"

namespace doberman::guard {
namespace {

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Reads a Python string literal at s[*pos] (optional r/b/u/f prefixes, single, double or triple
// quotes). Simple escapes are decoded; unknown ones are kept as written. False when there is none.
bool ReadStringLiteral(std::string_view s, size_t* pos, std::string* out) {
  size_t i = *pos;
  bool raw = false;
  while (i < s.size() && s[i] != '\0' && std::strchr("rRbBuUfF", s[i]) != nullptr) {
    raw = raw || s[i] == 'r' || s[i] == 'R';
    ++i;
    if (i - *pos > 2) return false;
  }
  if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
  const char q = s[i];
  const bool triple = i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q;
  i += triple ? 3 : 1;
  out->clear();
  while (i < s.size()) {
    const char c = s[i];
    if (c == q && (!triple || (i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q))) {
      *pos = i + (triple ? 3 : 1);
      return true;
    }
    if (c == '\n' && !triple) return false;
    if (c == '\\' && !raw && i + 1 < s.size()) {
      const char e = s[i + 1];
      const char decoded = e == 'n'                               ? '\n'
                           : e == 't'                             ? '\t'
                           : (e == '\\' || e == '\'' || e == '"') ? e
                                                                  : 0;
      if (decoded != 0) {
        out->push_back(decoded);
        i += 2;
        continue;
      }
    }
    out->push_back(c);
    ++i;
  }
  return false;
}

void SkipSpace(std::string_view s, size_t* pos) {
  while (*pos < s.size() && std::isspace(static_cast<unsigned char>(s[*pos]))) ++*pos;
}

// The first argument of a call whose '(' is at s[open]: a string, a list/tuple of strings, or the
// raw source text up to the first top-level ',' or ')'.
std::string FirstArgument(std::string_view s, size_t open) {
  size_t pos = open + 1;
  SkipSpace(s, &pos);
  std::string literal;
  size_t p = pos;
  if (ReadStringLiteral(s, &p, &literal)) return literal;
  if (pos < s.size() && (s[pos] == '[' || s[pos] == '(')) {
    const char close = s[pos] == '[' ? ']' : ')';
    p = pos + 1;
    std::string command;
    bool all_literals = true;
    for (;;) {
      SkipSpace(s, &p);
      if (p < s.size() && s[p] == close) break;
      if (!ReadStringLiteral(s, &p, &literal)) {
        all_literals = false;
        break;
      }
      AppendShellWord(literal, &command);
      SkipSpace(s, &p);
      if (p < s.size() && s[p] == ',') ++p;
    }
    if (all_literals) return command;
  }
  // Not literal: the expression's text (a variable name, a join ...), up to the matching ')'.
  int depth = 0;
  size_t end = pos;
  for (; end < s.size(); ++end) {
    const char c = s[end];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) break;
  }
  return std::string(s.substr(pos, end - pos));
}

// Calls that hand their first argument to a shell or to exec.
constexpr std::array<std::string_view, 16> kShellCalls = {
    "os.system(",
    "os.popen(",
    "subprocess.run(",
    "subprocess.call(",
    "subprocess.Popen(",
    "subprocess.check_call(",
    "subprocess.check_output(",
    "subprocess.getoutput(",
    "subprocess.getstatusoutput(",
    "os.execv(",
    "os.execvp(",
    "os.execl(",
    "os.execlp(",
    "os.spawnlp(",
    "pty.spawn(",
    "commands.getoutput(",
};

constexpr std::array<std::string_view, 8> kShellCellMagics = {
    "%%bash", "%%sh", "%%zsh", "%%script", "%%sx", "%%system", "%%!", "%%shell"};

}  // namespace

void ExtractNotebookShell(std::string_view source, std::vector<std::string>* out) {
  // A shell cell magic makes the whole cell a script.
  size_t first = 0;
  while (first < source.size() && (source[first] == '\n' || source[first] == ' ')) ++first;
  std::string_view head = source.substr(first, source.find('\n', first) - first);
  for (std::string_view magic : kShellCellMagics) {
    if (StartsWith(head, magic)) {
      const size_t body = source.find('\n', first);
      out->push_back(body == std::string_view::npos ? std::string()
                                                    : std::string(source.substr(body + 1)));
      return;
    }
  }
  size_t pos = 0;
  while (pos < source.size()) {
    size_t nl = source.find('\n', pos);
    if (nl == std::string_view::npos) nl = source.size();
    std::string_view line = TrimLeft(source.substr(pos, nl - pos));
    pos = nl + 1;
    // `x = !cmd` and `x = %sx cmd` run the same shell as a bare escape.
    if (size_t eq = line.find('='); eq != std::string_view::npos && !StartsWith(line, "!")) {
      std::string_view rhs = TrimLeft(line.substr(eq + 1));
      if (StartsWith(rhs, "!") || StartsWith(rhs, "%sx ") || StartsWith(rhs, "%system "))
        line = rhs;
    }
    if (StartsWith(line, "!")) {
      line.remove_prefix(StartsWith(line, "!!") ? 2 : 1);
      out->emplace_back(line);
      continue;
    }
    for (std::string_view magic : {std::string_view("%sx "), std::string_view("%system ")}) {
      if (StartsWith(line, magic)) out->emplace_back(line.substr(magic.size()));
    }
  }
  // Calls may span lines: search the whole source.
  for (std::string_view call : kShellCalls) {
    for (size_t at = source.find(call); at != std::string_view::npos;
         at = source.find(call, at + 1)) {
      out->push_back(FirstArgument(source, at + call.size() - 1));
    }
  }
}

}  // namespace doberman::guard
