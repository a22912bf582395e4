// Re-quoting argv words for the shell parser. Hosts hand some commands over as argv arrays (Codex,
// notebook subprocess calls); the runtime judges command lines, so the words are joined back into
// one line that parses to the same words.
#ifndef DOBERMAN_GUARD_SHELL_QUOTE_H_
#define DOBERMAN_GUARD_SHELL_QUOTE_H_

#include <string>
#include <string_view>

namespace doberman::guard {

// Appends `word` in single quotes (an embedded quote closes, escapes and reopens), preceded by a
// space when `line` is not empty.
inline void AppendShellWord(std::string_view word, std::string* line) {
  if (!line->empty()) line->push_back(' ');
  line->push_back('\'');
  for (char c : word) {
    if (c == '\'')
      line->append("'\\''");
    else
      line->push_back(c);
  }
  line->push_back('\'');
}

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_SHELL_QUOTE_H_
