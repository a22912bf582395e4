// What echo and printf print, worked out from their literal words: printf's format directives and
// the backslash escapes of printf's format, of %b and of echo -e. One reading shared by the
// `$(printf ...)` rewrite (shell_variables.cc), the text piped to a shell and the text written to a
// file (shell_command_policy.cc), so that they agree on what a word prints.
#ifndef DOBERMAN_RUNTIME_SHELL_PRINTF_H_
#define DOBERMAN_RUNTIME_SHELL_PRINTF_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace doberman::internal::shell_printf {

// printf's format reads octal as `\NNN`; echo -e and printf's %b read it as `\0NNN` and stop all
// output at `\c`.
enum class Escapes : uint8_t { kFormat, kEcho };

// The character the one-letter escape `\c` names in bash's escapes (echo -e, printf, `$'...'`):
// \n \t \r \a \b \f \v \e \E \\ \" \' \?; 0 for any other letter.
char SimpleEscape(char c);

// Appends `text` to `out` with its escapes read as bash reads them in `style`: \n \t \r \a \b \f
// \v \e \\ \" \' \?, octal, \xHH, \uHHHH and \UHHHHHHHH. Sets *stop (when given) at echo's `\c`,
// whose caller prints nothing more. False, with `out` partly written, at an escape bash does not
// know: what it prints is then not worked out here.
bool AppendEscaped(std::string_view text, Escapes style, std::string* out, bool* stop = nullptr);

// What `printf FORMAT ARGS...` prints: %s, %b, %d, %i and %c take the arguments in turn (a missing
// one prints as empty), %% is a percent sign, and FORMAT is used again while arguments remain, as
// bash does. False when FORMAT has another directive (a width, %x, %q ...) or an unknown escape, or
// when the output would pass `max_bytes`: the caller then does not know what it prints.
bool FormatPrintf(std::string_view format, std::span<const std::string_view> args, size_t max_bytes,
                  std::string* out);

}  // namespace doberman::internal::shell_printf

#endif  // DOBERMAN_RUNTIME_SHELL_PRINTF_H_
