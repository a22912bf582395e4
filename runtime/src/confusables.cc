// LatinSkeleton (confusables.h): a binary search per non-ASCII character in the generated table.
// ASCII-only text, the common case, is recognised in one pass without writing anything.
#include "confusables.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "utf8.h"

namespace doberman::internal {
namespace {

struct Confusable {
  uint32_t cp;
  char ascii;
};

constexpr Confusable kConfusables[] = {
#include "confusables_table.inc"
};

static_assert(std::is_sorted(std::begin(kConfusables), std::end(kConfusables),
                             [](const Confusable& a, const Confusable& b) { return a.cp < b.cp; }),
              "confusables_table.inc must be sorted by code point");

char AsciiFor(char32_t cp) {
  const auto* it =
      std::lower_bound(std::begin(kConfusables), std::end(kConfusables), static_cast<uint32_t>(cp),
                       [](const Confusable& c, uint32_t value) { return c.cp < value; });
  return it != std::end(kConfusables) && it->cp == cp ? it->ascii : 0;
}

}  // namespace

bool LatinSkeleton(std::string_view folded, std::string* out) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(folded.data());
  size_t first = 0;
  while (first < folded.size() && bytes[first] < 0x80) ++first;
  if (first == folded.size()) return false;
  out->assign(folded.substr(0, first));
  bool replaced = false;
  for (size_t i = first; i < folded.size();) {
    if (bytes[i] < 0x80) {
      out->push_back(folded[i++]);
      continue;
    }
    char32_t cp = 0;
    const size_t n = DecodeUtf8(bytes + i, folded.size() - i, &cp);
    if (n == 0) {  // invalid: copied through byte by byte
      out->push_back(folded[i++]);
      continue;
    }
    const char ascii = AsciiFor(cp);
    if (ascii != 0) {
      out->push_back(ascii);
      replaced = true;
    } else {
      out->append(folded.substr(i, n));
    }
    i += n;
  }
  return replaced;
}

}  // namespace doberman::internal
