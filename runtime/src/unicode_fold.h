// Unicode folding for turn signatures: look-alike, compatibility and invisible characters to plain
// lower-case text, so that one set of ASCII signatures covers the smuggled spellings; and the ASCII
// hidden in Unicode tag characters. Runtime side, allocation-free once the output has grown.
#ifndef DOBERMAN_RUNTIME_UNICODE_FOLD_H_
#define DOBERMAN_RUNTIME_UNICODE_FOLD_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace doberman::internal {

// Folds `in` into `out` (cleared first) for matching turn signatures:
//  - NFKC-style compatibility folding of the forms attackers use: full-width ASCII (U+FF01-FF5E),
//    ideographic space, mathematical alphanumerics (U+1D400-1D7FF), enclosed/circled letters, small
//    capitals and the like map to plain ASCII;
//  - zero-width characters (U+200B-200D, U+2060, U+FEFF, U+180E), bidi controls (U+200E/F,
//    U+202A-202E, U+2066-2069), Unicode tag characters (U+E0000-E007F) and variation selectors
//    are removed;
//  - runs of white space (ASCII and Unicode spaces, newlines) collapse to one ASCII space;
//  - letters are lower-cased (ASCII, Latin-1, Greek and Cyrillic basic ranges);
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
