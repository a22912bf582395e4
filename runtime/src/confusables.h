// The Latin skeleton of folded text: every letter that looks like an ASCII letter or digit
// (Cyrillic "о", Greek "ν", Armenian "ո" ...) written as that ASCII character, by Unicode's
// confusables data (UTS #39, generated into confusables_table.inc). Why: a prompt typed in
// look-alike letters reads to a model as the English it imitates, so the English rules must read
// it too; without this view it only reaches a Tier-1 homoglyph rule.
#ifndef DOBERMAN_RUNTIME_CONFUSABLES_H_
#define DOBERMAN_RUNTIME_CONFUSABLES_H_

#include <string>
#include <string_view>

namespace doberman::internal {

// Writes the skeleton of `folded` to `*out` and returns true when at least one character was
// replaced (false, and `*out` unspecified, when the text has no look-alike: nothing to rescan).
// Invalid UTF-8 is copied through. No allocation once `out` has grown to the text's size.
bool LatinSkeleton(std::string_view folded, std::string* out);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_CONFUSABLES_H_
