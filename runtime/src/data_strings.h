// String values of structured tool output (JSON, Python literals, YAML), each handed out unquoted
// and unescaped, so that a prompt rule judges the value as text of its own. Why: in a tool result
// an injected instruction usually sits inside a quoted string value, and the quotes there are data
// syntax, not a person quoting a phrase; read whole, the text would make the instruction a
// mention. Bounded, allocation-free once the caller's buffer has grown.
#ifndef DOBERMAN_RUNTIME_DATA_STRINGS_H_
#define DOBERMAN_RUNTIME_DATA_STRINGS_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace doberman::internal {

// Values shorter than this, or without a blank, cannot carry an instruction: not handed out.
inline constexpr size_t kMinDataStringBytes = 12;
// At most this many values per text; past it the rest stay judged as part of the whole text.
inline constexpr size_t kMaxDataStrings = 1024;
// A quoted value read across line breaks spans at most this many bytes, and all such searches of
// one text cross at most kMultilineBudgetBytes.
inline constexpr size_t kMaxMultilineValueBytes = 16 * 1024;
inline constexpr size_t kMultilineBudgetBytes = 256 * 1024;

// Whether `text` is structured data: a JSON or Python-literal document (its first non-blank
// character is `{` or `[`), or YAML-shaped (most of its first lines are `key: value` or `- item`).
bool LooksStructured(std::string_view text);

// The next data string of `text` at or after `*pos`: a quoted literal ("..." or '...') that
// follows `{ [ , : (`, a line start or a `- ` item marker, and is followed by `, } ] : )` or a line
// end. Its value, unescaped (JSON and Python escapes, \uXXXX as UTF-8, YAML's doubled single
// quote), is written to `*value`;
// `*pos` moves past it. False when there is none.
// With `multiline_budget`, a literal whose line holds no closing quote may also close on a later
// line (at most kMaxMultilineValueBytes on), where a value opens; the bytes such searches cross
// are taken from the budget, so that a text of unclosed quotes costs linear time.
bool NextDataString(std::string_view text, size_t* pos, std::string* value,
                    size_t* multiline_budget = nullptr);

// Calls on_value(std::string_view) for each data string of a structured `text` that is long enough
// to hold an instruction, at most kMaxDataStrings times.
template <typename F>
void ForEachDataString(std::string_view text, std::string* buffer, F&& on_value) {
  if (!LooksStructured(text)) return;
  size_t pos = 0;
  size_t handed = 0;
  size_t multiline_budget = kMultilineBudgetBytes;
  while (handed < kMaxDataStrings && NextDataString(text, &pos, buffer, &multiline_budget)) {
    if (buffer->size() < kMinDataStringBytes ||
        buffer->find_first_of(" \t\n") == std::string::npos) {
      continue;
    }
    ++handed;
    on_value(std::string_view(*buffer));
  }
}

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_DATA_STRINGS_H_
