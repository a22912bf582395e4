// Unicode folding for turn signatures: look-alike, compatibility and invisible characters to plain
// lower-case text, so that one set of ASCII signatures covers the smuggled spellings; and the ASCII
// hidden in Unicode tag characters. Runtime side, allocation-free once the output has grown.
#ifndef DOBERMAN_RUNTIME_UNICODE_FOLD_H_
#define DOBERMAN_RUNTIME_UNICODE_FOLD_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace doberman::internal {

// Folds `in` into `out` (cleared first) for matching turn signatures, by the table that
// scripts/generate-unicode-fold derives from the Unicode data (its rules are spelled out there):
//  - compatibility forms that spell Latin, Greek or Cyrillic letters, digits or ASCII punctuation
//    (full-width ASCII, mathematical alphanumerics, enclosed and parenthesized letters, ligatures,
//    superscripts) and named look-alikes (small capitals, negative circled letters) map to them;
//  - format controls and other default-ignorable characters (zero-width, bidi controls, fillers,
//    variation selectors, Unicode tag characters) are removed;
//  - runs of white space (ASCII and Unicode spaces, newlines) collapse to one ASCII space;
//  - letters are lower-cased (ASCII, and all of Latin, Greek and Cyrillic);
//  - invalid UTF-8 bytes are kept as they are (never dropped, so they cannot hide a keyword by
//    splitting it).
// Returns the number of input characters removed or mapped; 0 means `out` equals `in` (plain lower
// ASCII, or any text with nothing to fold).
size_t FoldText(std::string_view in, std::string* out);

// "ASCII smuggling": Unicode tag characters U+E0020-E007E mirror printable ASCII and are invisible
// in most interfaces, but models read them. Writes the ASCII they spell (other characters dropped)
// into `out` and returns true when `in` holds at least `min_chars` of them; FoldText removes them,
// so the hidden text is only seen through this view.
bool DecodeTagCharacters(std::string_view in, size_t min_chars, std::string* out);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_UNICODE_FOLD_H_
