// Lexical rules of the rule DSL shared by the front-end (reading) and the printer (writing), so
// that both agree on what a bare word is, which words are keywords, how strings and regex literals
// escape, and which letters stand for which pattern flags. No ANTLR here.
#ifndef DOBERMAN_COMPILER_DSL_LEXICAL_H_
#define DOBERMAN_COMPILER_DSL_LEXICAL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace doberman::compiler::dsl {

// Decodes one strictly valid UTF-8 sequence at s[i] (no overlongs, surrogates or values above
// U+10FFFF). Returns its length (1-4), or 0 when the byte at s[i] does not start a valid sequence.
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* code_point);
void AppendUtf8(uint32_t code_point, std::string* out);

// The code points the lexer sees, and the byte offset of each (offsets has one more entry: the
// size). A byte that is not valid UTF-8 becomes U+10FF00 + byte, a private-use code point: the
// lexer treats it like any other character and values are read back from the bytes.
void ToCodePoints(std::string_view bytes, std::u32string* code_points,
                  std::vector<size_t>* offsets);

// Every keyword of the language (the lexer's K_* tokens), in the lexer's order.
const std::vector<std::string>& Keywords();
bool IsKeyword(std::string_view word);
// True when `s` lexes as one WORD or keyword token: [A-Za-z0-9_.+-]+.
bool IsWordText(std::string_view s);

// A problem inside a string literal: byte offset and length relative to the literal's first byte
// after the opening quote.
struct EscapeProblem {
  size_t offset = 0;
  size_t length = 1;
  std::string message;
};
// Decodes the body of a string literal (between the quotes): \" \\ \n \t \r \0 \xHH (one byte)
// \u{H...} (UTF-8 of the code point). Invalid escapes are reported and dropped.
std::string DecodeString(std::string_view body, std::vector<EscapeProblem>* problems);
// A string literal (with quotes) that decodes to exactly `value`. Printable ASCII and valid
// non-ASCII UTF-8 are written as they are; control characters, bytes that are not UTF-8 and
// invisible or bidirectional-format characters are escaped.
std::string QuoteString(std::string_view value);
// One ASCII byte (< 0x80) inside a double-quoted literal: `"`, `\`, newline, tab and carriage
// return as two-character escapes, other control bytes as \xHH, the rest as itself. The DSL and
// YAML's double-quoted scalars read these the same way (compiler/src/yaml_printer.cc uses it too).
void AppendQuotedAscii(unsigned char c, std::string* out);

// Regex literals: the body between the slashes. `\/` stands for `/`; other pairs stay as written.
std::string DecodeRegexBody(std::string_view body);
// The literal body for `regex`, or false when no /.../ literal can carry it exactly (empty, a
// first `*`, a line break, `\/` as written, a trailing backslash, control or non-UTF-8 bytes).
bool EncodeRegexBody(std::string_view regex, std::string* body);

// Pattern flag letters after a regex literal: i caseless, s dotall, m multiline, 8 utf8, u ucp.
// `som` and any other flag are written as words in parentheses.
const char* FlagForLetter(char letter);     // nullptr when not a flag letter
char LetterForFlag(std::string_view flag);  // 0 when the flag has no letter

// True when `expr` can follow `when` unquoted (one line, no braces, quotes, slashes or `#`, no
// leading or trailing blanks, not empty).
bool IsBareWhenText(std::string_view expr);

}  // namespace doberman::compiler::dsl

#endif  // DOBERMAN_COMPILER_DSL_LEXICAL_H_
