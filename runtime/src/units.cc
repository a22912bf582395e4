// Lexical path canonicalization (bounded by the path's length, no allocation beyond `out`'s
// capacity), and the command lines of written files that hold them (shell scripts, Makefile
// recipes, the literals source files pass to system/subprocess/child_process).
#include "units.h"

#include <algorithm>
#include <iterator>

#include "command_literals.h"
#include "shell_parser.h"

namespace doberman::internal {
namespace {

// Appends the normalized segments of `p` to `out`; `out` already holds the root ("/" or "").
void AppendSegments(std::string_view p, bool absolute, std::string* out) {
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find_first_of("/\\", i);  // both separators
    if (j == std::string_view::npos) j = p.size();
    std::string_view seg = p.substr(i, j - i);
    if (seg.empty() || seg == ".") {
      // nothing
    } else if (seg == "..") {
      size_t last = out->rfind('/');
      std::string_view tail = last == std::string::npos ? std::string_view(*out)
                                                        : std::string_view(*out).substr(last + 1);
      if (!out->empty() && tail != ".." && !(absolute && out->size() == 1)) {
        // Drop the last segment.
        if (last == std::string::npos) {
          out->clear();
        } else {
          out->resize(last == 0 && absolute ? 1 : last);
        }
      } else if (!absolute) {
        if (!out->empty()) out->push_back('/');
        out->append("..");
      }
      // An absolute path cannot climb above "/".
    } else {
      if (!out->empty() && out->back() != '/') out->push_back('/');
      out->append(seg);
    }
    i = j + 1;
  }
}

}  // namespace

void CanonicalPath(std::string_view path, std::string_view cwd, std::string* out) {
  out->clear();
  std::string& s = *out;
  const bool absolute = !path.empty() && (path[0] == '/' || path[0] == '\\');
  if (absolute) s = "/";
  AppendSegments(path, absolute, &s);
  if (absolute && !cwd.empty()) {
    // Compare against cwd without materializing its canonical form: trailing slashes aside, a
    // host's cwd is already absolute and clean.
    std::string_view base = cwd;
    while (base.size() > 1 && base.back() == '/') base.remove_suffix(1);
    if (base.size() > 1 && s.size() > base.size() && s.compare(0, base.size(), base) == 0 &&
        s[base.size()] == '/') {
      s.erase(0, base.size() + 1);
    } else if (s == base) {
      s = ".";
    }
  }
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
}

namespace {

using shell_parser::EqualsAsciiCaseless;

bool EndsWithCaseless(std::string_view s, std::string_view lower_suffix) {
  return s.size() >= lower_suffix.size() &&
         EqualsAsciiCaseless(s.substr(s.size() - lower_suffix.size()), lower_suffix);
}

// The last component of `path`.
std::string_view BaseName(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Calls fn(line) for each line of `text`, without its newline.
template <typename F>
void ForEachLine(std::string_view text, F&& fn) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

void AppendMakeRecipes(std::string_view content, std::string* out) {
  ForEachLine(content, [out](std::string_view line) {
    if (line.empty() || line.front() != '\t') return;
    line.remove_prefix(1);
    while (!line.empty() && (line.front() == '@' || line.front() == '-' || line.front() == '+' ||
                             line.front() == ' ' || line.front() == '\t')) {
      line.remove_prefix(1);
    }
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '$' && i + 1 < line.size() && line[i + 1] == '$') ++i;  // make's escape
      out->push_back(line[i]);
    }
    out->push_back('\n');
  });
}

}  // namespace

bool IsShellScript(std::string_view path, std::string_view content) {
  for (std::string_view ext : {".sh", ".bash", ".zsh", ".ksh", ".dash", ".command"}) {
    if (EndsWithCaseless(path, ext)) return true;
  }
  if (content.substr(0, 2) != "#!") return false;
  std::string_view line = content.substr(2);
  line = line.substr(0, line.find('\n'));
  // The interpreter is the last path component of the first word, or the word after env (and its
  // options, `env -S bash -e`).
  auto next_word = [&line]() {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    const size_t end = std::min(line.find_first_of(" \t\r"), line.size());
    const std::string_view word = line.substr(0, end);
    line.remove_prefix(end);
    return BaseName(word);
  };
  std::string_view interpreter = next_word();
  if (interpreter == "env") {
    do {
      interpreter = next_word();
    } while (!interpreter.empty() && interpreter.front() == '-');
  }
  for (std::string_view shell : {"sh", "bash", "zsh", "ksh", "dash", "ash", "mksh"}) {
    if (interpreter == shell) return true;
  }
  return false;
}

namespace {

// A source file in a language whose calls run command lines, when its text names a way to run one
// (a cheap check first: most source files never shell out, and the literal walk reads every
// identifier). Ruby, Perl and PHP also run backtick literals.
bool SourceRunsCommands(std::string_view base, std::string_view content, bool* backticks) {
  struct Language {
    std::string_view extensions[4];
    std::string_view markers[4];
    bool backticks;
  };
  static constexpr Language kLanguages[] = {
      {{".py", ".pyw"}, {"subprocess", "os.system", "os.popen", "os.exec"}, false},
      {{".js", ".mjs", ".cjs", ".ts"}, {"child_process"}, false},
      {{".rb", ".pl", ".pm", ".php"}, {"system", "exec", "`", "popen"}, true},
  };
  for (const Language& language : kLanguages) {
    const bool named = std::any_of(
        std::begin(language.extensions), std::end(language.extensions),
        [&](std::string_view ext) { return !ext.empty() && EndsWithCaseless(base, ext); });
    if (!named) continue;
    *backticks = language.backticks;
    return std::any_of(std::begin(language.markers), std::end(language.markers),
                       [&](std::string_view m) {
                         return !m.empty() && content.find(m) != std::string_view::npos;
                       });
  }
  return false;
}

}  // namespace

std::string_view ScriptCommands(std::string_view path, std::string_view content,
                                std::string* buffer) {
  if (IsShellScript(path, content)) return content;
  buffer->clear();
  const std::string_view base = BaseName(path);
  bool backticks = false;
  if (EqualsAsciiCaseless(base, "makefile") || EqualsAsciiCaseless(base, "gnumakefile") ||
      EndsWithCaseless(base, ".mk")) {
    AppendMakeRecipes(content, buffer);
  } else if (SourceRunsCommands(base, content, &backticks)) {
    AppendCommandLiterals(content, backticks, buffer);
  }
  return *buffer;
}

}  // namespace doberman::internal
