// The one walk over a pattern's text that knows escapes, \Q...\E quoting and character classes,
// for the checks that must tell syntax from literal bytes: the pattern lint (pattern_lint.h) and
// fragment references (fragments.h).
#ifndef DOBERMAN_COMPILER_PATTERN_WALK_H_
#define DOBERMAN_COMPILER_PATTERN_WALK_H_

#include <cstddef>
#include <string_view>

namespace doberman::compiler {

// Calls `visit(i, in_class)` for every byte of `rx` that stands for itself: not an escape or the
// byte it escapes, not \Q...\E text, not a class's brackets or a [:name:] inside one. Stops at the
// first offset `visit` returns true for and returns it; npos when there is none, or when a \Q
// never ends (Hyperscan rejects that pattern on its own).
template <typename Visit>
size_t WalkPattern(std::string_view rx, Visit visit) {
  bool in_class = false;
  size_t class_start = 0;  // index of the first member: a ']' there is a member, not the end
  for (size_t i = 0; i < rx.size(); ++i) {
    const char c = rx[i];
    if (c == '\\') {
      if (i + 1 < rx.size() && rx[i + 1] == 'Q') {
        const size_t end = rx.find("\\E", i + 2);
        if (end == std::string_view::npos) return std::string_view::npos;
        i = end + 1;
      } else {
        ++i;  // the escaped byte (an escaped non-ASCII byte is still one byte of a character)
      }
      continue;
    }
    if (!in_class) {
      if (c == '[') {
        in_class = true;
        class_start = i + 1;
        if (class_start < rx.size() && rx[class_start] == '^') ++class_start;
        continue;
      }
    } else if (c == '[' && i + 1 < rx.size() && rx[i + 1] == ':') {  // [:alpha:] inside a class
      const size_t end = rx.find(":]", i + 2);
      if (end != std::string_view::npos) i = end + 1;
      continue;
    } else if (c == ']' && i != class_start) {
      in_class = false;
      continue;
    }
    if (visit(i, in_class)) return i;
  }
  return std::string_view::npos;
}

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_PATTERN_WALK_H_
