// Pattern lint (API in pattern_lint.h): a single left-to-right walk of the pattern text that knows
// escapes, \Q...\E quoting and character classes, which is all it needs to tell where a class is.
#include "pattern_lint.h"

namespace doberman::compiler {
namespace {

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

bool IsHighByte(char c) { return static_cast<unsigned char>(c) >= 0x80; }

}  // namespace

size_t FindMultiByteClassMember(std::string_view rx) {
  return WalkPattern(rx, [&](size_t i, bool in_class) { return in_class && IsHighByte(rx[i]); });
}

size_t FindQuantifiedMultiByteCharacter(std::string_view rx) {
  // The byte after the last byte of a multi-byte character (one of 0x80 and up not followed by a
  // continuation byte, 10xxxxxx), when it is a quantifier.
  const size_t last = WalkPattern(rx, [&](size_t i, bool in_class) {
    if (in_class || !IsHighByte(rx[i]) || i + 1 >= rx.size()) return false;
    if ((static_cast<unsigned char>(rx[i + 1]) & 0xC0) == 0x80) return false;
    const char q = rx[i + 1];
    return q == '?' || q == '*' || q == '+' ||
           (q == '{' && i + 2 < rx.size() && rx[i + 2] >= '0' && rx[i + 2] <= '9');
  });
  return last == std::string_view::npos ? last : last + 1;
}

}  // namespace doberman::compiler
