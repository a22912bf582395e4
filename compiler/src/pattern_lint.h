// Checks on a pattern's text that Hyperscan accepts but that almost never mean what the author
// wrote. Run by the checker before the databases are compiled; each finding is a warning.
#ifndef DOBERMAN_COMPILER_PATTERN_LINT_H_
#define DOBERMAN_COMPILER_PATTERN_LINT_H_

#include <cstddef>
#include <string_view>

namespace doberman::compiler {

// In a pattern compiled without the utf8 flag, a character class holding a multi-byte UTF-8
// character (`[oó]`, `[^。.!?]`, `["“]`) takes each of its bytes as a member of its own: `[oó]`
// matches "o" or half of "ó", and `[^।.]` refuses every Devanagari letter, whose bytes share the
// danda's. Returns the byte offset of the first such byte inside a class, or npos.
size_t FindMultiByteClassMember(std::string_view expression);

// In the same patterns, a quantifier (`?`, `*`, `+`, `{n`) right after a multi-byte character
// repeats its last byte only: `的?` requires the first two bytes of 的 and makes the third
// optional, so it never matches the text without the character. Returns the byte offset of the
// quantifier (outside classes, escapes and \Q...\E), or npos.
size_t FindQuantifiedMultiByteCharacter(std::string_view expression);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_PATTERN_LINT_H_
