// Text filters a command line can put between known text and a shell (`rev`, `tr`), worked out so
// that what reaches the shell is known: `echo '~ fr- mr' | rev | sh` runs `rm -rf ~`, and
// `echo 'ez -es ~' | tr a-z n-za-m | sh` is the same command in ROT13.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace doberman::internal {

// What `argv0 ARGS` prints when fed `in` on stdin, into `out`: `rev` (no operands) and `tr SET1
// SET2` or `tr -d SET1` with sets of characters, ranges and backslash escapes. False for any other
// program or form (a file operand, -c, -s, a character class), and then `out` is untouched.
bool ApplyTextFilter(std::string_view argv0, std::span<const std::string_view> args,
                     std::string_view in, std::string* out);

}  // namespace doberman::internal
