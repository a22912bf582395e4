// Pattern lint (API in pattern_lint.h): each finding is one walk of the pattern text
// (pattern_walk.h), which knows escapes, \Q...\E quoting and character classes: all it needs to
// tell where a class is.
#include "pattern_lint.h"

#include "pattern_walk.h"

namespace doberman::compiler {
namespace {

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
