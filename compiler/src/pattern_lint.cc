// Pattern lint (API in pattern_lint.h): a single left-to-right walk of the pattern text that knows
// escapes, \Q...\E quoting and character classes, which is all it needs to tell where a class is.
#include "pattern_lint.h"

namespace doberman::compiler {

size_t FindMultiByteClassMember(std::string_view rx) {
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
      }
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) return i;
    if (c == '[' && i + 1 < rx.size() && rx[i + 1] == ':') {  // [:alpha:] inside a class
      const size_t end = rx.find(":]", i + 2);
      if (end != std::string_view::npos) i = end + 1;
      continue;
    }
    if (c == ']' && i != class_start) in_class = false;
  }
  return std::string_view::npos;
}

size_t FindQuantifiedMultiByteCharacter(std::string_view rx) {
  bool in_class = false;
  size_t class_start = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    const char c = rx[i];
    if (c == '\\') {
      if (i + 1 < rx.size() && rx[i + 1] == 'Q') {
        const size_t end = rx.find("\\E", i + 2);
        if (end == std::string_view::npos) return std::string_view::npos;
        i = end + 1;
      } else {
        ++i;
      }
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < rx.size() && rx[i + 1] == ':') {
        const size_t end = rx.find(":]", i + 2);
        if (end != std::string_view::npos) i = end + 1;
        continue;
      }
      if (c == ']' && i != class_start) in_class = false;
      continue;
    }
    if (c == '[') {
      in_class = true;
      class_start = i + 1;
      if (class_start < rx.size() && rx[class_start] == '^') ++class_start;
      continue;
    }
    // The last byte of a multi-byte character: a byte of 0x80 and up not followed by a
    // continuation byte (10xxxxxx).
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(rx[k]); };
    if (byte(i) < 0x80 || i + 1 >= rx.size() || (byte(i + 1) & 0xC0) == 0x80) continue;
    const char q = rx[i + 1];
    if (q == '?' || q == '*' || q == '+' ||
        (q == '{' && i + 2 < rx.size() && rx[i + 2] >= '0' && rx[i + 2] <= '9')) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace doberman::compiler
