// Unicode folding (API in unicode_fold.h): a sorted table of code point ranges, searched only for
// pages that hold an entry, and an eight-bytes-at-a-time path for plain ASCII prose.
#include "unicode_fold.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "utf8.h"

namespace doberman::internal {
namespace {

// -------------------------------------------------------------------------------------------------
// Fold table. One sorted list of disjoint code point ranges, searched by bisection; anything
// outside every range is kept as it is. The ranges are hand-picked rather than derived from
// UnicodeData.txt: the runtime links no Unicode library, and only the forms that let a keyword be
// spelled without its ASCII letters matter here. Each output is final (already lower-cased and
// itself unmapped) so that folding is idempotent on valid UTF-8; the unit test checks that over
// every code point.
//
// Most entries are NFKC followed by lower-casing. Deliberate departures, all towards the plain
// letter: parenthesized letters (NFKC "(a)"), negative circled/squared letters (no NFKC mapping)
// and small capitals (no NFKC mapping) fold to the bare letter, because the point is to recover the
// word they spell.

enum class RangeKind : uint8_t {
  kDrop,       // invisible: removed
  kBlank,      // white space: joins the surrounding white-space run
  kOffset,     // cp + delta (lower-casing, full-width, enclosed letters)
  kAltCase,    // Latin Extended-A: even offset from `first` is upper case, +1 is its lower case
  kText,       // fixed replacement text
  kMathLatin,  // U+1D400-1D6A3: 13 alphabets of A-Z a-z
  kMathGreek,  // U+1D6A8-1D7C9: 5 alphabets of 58 Greek letters and symbols
  kMathDigit,  // U+1D7CE-1D7FF: 5 sets of 0-9
};

struct FoldRange {
  char32_t first;
  char32_t last;
  RangeKind kind;
  int32_t delta;          // kOffset only
  std::string_view text;  // kText only; at most 4 bytes
};

constexpr FoldRange Drop(char32_t first, char32_t last) {
  return {first, last, RangeKind::kDrop, 0, {}};
}
constexpr FoldRange Blank(char32_t first, char32_t last) {
  return {first, last, RangeKind::kBlank, 0, {}};
}
constexpr FoldRange Offset(char32_t first, char32_t last, char32_t first_target) {
  return {first,
          last,
          RangeKind::kOffset,
          static_cast<int32_t>(first_target) - static_cast<int32_t>(first),
          {}};
}
constexpr FoldRange AltCase(char32_t first, char32_t last) {
  return {first, last, RangeKind::kAltCase, 0, {}};
}
constexpr FoldRange Text(char32_t first, char32_t last, std::string_view text) {
  return {first, last, RangeKind::kText, 0, text};
}
constexpr FoldRange Text(char32_t cp, std::string_view text) { return Text(cp, cp, text); }
constexpr FoldRange Math(char32_t first, char32_t last, RangeKind kind) {
  return {first, last, kind, 0, {}};
}

constexpr FoldRange kFoldRanges[] = {
    // Latin-1 Supplement.
    Blank(0x0085, 0x0085),  // NEL
    Blank(0x00A0, 0x00A0),  // no-break space
    Text(0x00AA, "a"),      // ª
    Drop(0x00AD, 0x00AD),   // soft hyphen
    Text(0x00B2, "2"),
    Text(0x00B3, "3"),
    Text(0x00B5, "\u03BC"),  // micro sign -> μ
    Text(0x00B9, "1"),
    Text(0x00BA, "o"),  // º
    Offset(0x00C0, 0x00D6, 0x00E0),
    Offset(0x00D8, 0x00DE, 0x00F8),  // (U+00D7 is ×)
    // Latin Extended-A.
    AltCase(0x0100, 0x012F),
    Text(0x0130, "i"),  // İ: its simple lower case
    // (U+013F Ŀ takes its simple lower case ŀ below, not NFKC's "l·".)
    Text(0x0132, 0x0133, "ij"),
    AltCase(0x0134, 0x0137),
    AltCase(0x0139, 0x0148),
    AltCase(0x014A, 0x0177),
    Text(0x0178, "\u00FF"),  // Ÿ -> ÿ
    AltCase(0x0179, 0x017E),
    Text(0x017F, "s"),  // long s
    // Latin Extended-B digraphs.
    Text(0x01C4, 0x01C6, "d\u017E"),
    Text(0x01C7, 0x01C9, "lj"),
    Text(0x01CA, 0x01CC, "nj"),
    Text(0x01F1, 0x01F3, "dz"),
    // IPA small capitals (no NFKC mapping; used as look-alikes).
    Text(0x0262, "g"),
    Text(0x026A, "i"),
    Text(0x0274, "n"),
    Text(0x0280, "r"),
    Text(0x028F, "y"),
    Text(0x0299, "b"),
    Text(0x029C, "h"),
    Text(0x029F, "l"),
    // Spacing modifier letters (superscript letters).
    Text(0x02B0, "h"),
    Text(0x02B2, "j"),
    Text(0x02B3, "r"),
    Text(0x02B7, "w"),
    Text(0x02B8, "y"),
    Text(0x02E1, "l"),
    Text(0x02E2, "s"),
    Text(0x02E3, "x"),
    Drop(0x034F, 0x034F),  // combining grapheme joiner
    // Greek.
    Text(0x0386, "\u03AC"),
    Offset(0x0388, 0x038A, 0x03AD),
    Text(0x038C, "\u03CC"),
    Offset(0x038E, 0x038F, 0x03CD),
    Offset(0x0391, 0x03A1, 0x03B1),
    Offset(0x03A3, 0x03AB, 0x03C3),  // (U+03A2 is unassigned)
    Text(0x03D0, "\u03B2"),          // ϐ
    Text(0x03D1, "\u03B8"),          // ϑ
    Text(0x03D2, "\u03C5"),          // ϒ
    Text(0x03D5, "\u03C6"),          // ϕ
    Text(0x03D6, "\u03C0"),          // ϖ
    Text(0x03F0, "\u03BA"),          // ϰ
    Text(0x03F1, "\u03C1"),          // ϱ
    Text(0x03F2, "\u03C2"),          // ϲ
    Text(0x03F4, "\u03B8"),          // ϴ
    Text(0x03F5, "\u03B5"),          // ϵ
    Text(0x03F9, "\u03C3"),          // Ϲ
    // Cyrillic.
    Offset(0x0400, 0x040F, 0x0450),
    Offset(0x0410, 0x042F, 0x0430),
    Drop(0x061C, 0x061C),  // Arabic letter mark (a bidi control)
    Blank(0x1680, 0x1680),
    Drop(0x180E, 0x180E),  // Mongolian vowel separator
    // Phonetic extensions: small capitals, then modifier (superscript/subscript) letters.
    Text(0x1D00, "a"),
    Text(0x1D04, "c"),
    Text(0x1D05, "d"),
    Text(0x1D07, "e"),
    Text(0x1D0A, "j"),
    Text(0x1D0B, "k"),
    Text(0x1D0D, "m"),
    Text(0x1D0F, "o"),
    Text(0x1D18, "p"),
    Text(0x1D1B, "t"),
    Text(0x1D1C, "u"),
    Text(0x1D20, "v"),
    Text(0x1D21, "w"),
    Text(0x1D22, "z"),
    Text(0x1D2C, "a"),
    Text(0x1D2E, "b"),
    Text(0x1D30, "d"),
    Text(0x1D31, "e"),
    Text(0x1D33, "g"),
    Text(0x1D34, "h"),
    Text(0x1D35, "i"),
    Text(0x1D36, "j"),
    Text(0x1D37, "k"),
    Text(0x1D38, "l"),
    Text(0x1D39, "m"),
    Text(0x1D3A, "n"),
    Text(0x1D3C, "o"),
    Text(0x1D3E, "p"),
    Text(0x1D3F, "r"),
    Text(0x1D40, "t"),
    Text(0x1D41, "u"),
    Text(0x1D42, "w"),
    Text(0x1D43, "a"),
    Text(0x1D47, "b"),
    Text(0x1D48, "d"),
    Text(0x1D49, "e"),
    Text(0x1D4D, "g"),
    Text(0x1D4F, "k"),
    Text(0x1D50, "m"),
    Text(0x1D52, "o"),
    Text(0x1D56, "p"),
    Text(0x1D57, "t"),
    Text(0x1D58, "u"),
    Text(0x1D5B, "v"),
    Text(0x1D62, "i"),
    Text(0x1D63, "r"),
    Text(0x1D64, "u"),
    Text(0x1D65, "v"),
    Text(0x1D9C, "c"),
    Text(0x1DA0, "f"),
    Text(0x1DBB, "z"),
    // General punctuation: spaces, zero-width and bidi controls.
    Blank(0x2000, 0x200A),
    Drop(0x200B, 0x200F),   // ZWSP, ZWNJ, ZWJ, LRM, RLM
    Blank(0x2028, 0x2029),  // line and paragraph separators
    Drop(0x202A, 0x202E),   // bidi embeddings and overrides
    Blank(0x202F, 0x202F),
    Blank(0x205F, 0x205F),
    Drop(0x2060, 0x2064),  // word joiner, invisible operators
    Drop(0x2066, 0x2069),  // bidi isolates
    // Superscripts and subscripts.
    Text(0x2070, "0"),
    Text(0x2071, "i"),
    Offset(0x2074, 0x2079, '4'),
    Text(0x207A, "+"),
    Text(0x207C, "="),
    Text(0x207D, "("),
    Text(0x207E, ")"),
    Text(0x207F, "n"),
    Offset(0x2080, 0x2089, '0'),
    Text(0x208A, "+"),
    Text(0x208C, "="),
    Text(0x208D, "("),
    Text(0x208E, ")"),
    Text(0x2090, "a"),
    Text(0x2091, "e"),
    Text(0x2092, "o"),
    Text(0x2093, "x"),
    Text(0x2095, "h"),
    Text(0x2096, "k"),
    Text(0x2097, "l"),
    Text(0x2098, "m"),
    Text(0x2099, "n"),
    Text(0x209A, "p"),
    Text(0x209B, "s"),
    Text(0x209C, "t"),
    // Letterlike symbols, including the letters missing from the mathematical alphanumerics block.
    Text(0x2102, "c"),
    Text(0x210A, "g"),
    Text(0x210B, 0x210E, "h"),
    Text(0x2110, 0x2111, "i"),
    Text(0x2112, 0x2113, "l"),
    Text(0x2115, "n"),
    Text(0x2116, "no"),
    Text(0x2119, "p"),
    Text(0x211A, "q"),
    Text(0x211B, 0x211D, "r"),
    Text(0x2120, "sm"),
    Text(0x2121, "tel"),
    Text(0x2122, "tm"),
    Text(0x2124, "z"),
    Text(0x2126, "\u03C9"),  // ohm sign -> ω
    Text(0x2128, "z"),
    Text(0x212A, "k"),       // Kelvin sign
    Text(0x212B, "\u00E5"),  // Angstrom sign -> å
    Text(0x212C, "b"),
    Text(0x212D, "c"),
    Text(0x212F, 0x2130, "e"),
    Text(0x2131, "f"),
    Text(0x2133, "m"),
    Text(0x2134, "o"),
    Text(0x2139, "i"),
    Text(0x213B, "fax"),
    Text(0x213C, "\u03C0"),
    Text(0x213D, 0x213E, "\u03B3"),
    Text(0x213F, "\u03C0"),
    Text(0x2145, 0x2146, "d"),
    Text(0x2147, "e"),
    Text(0x2148, "i"),
    Text(0x2149, "j"),
    // Roman numerals (capital and small).
    Text(0x2160, "i"),
    Text(0x2161, "ii"),
    Text(0x2162, "iii"),
    Text(0x2163, "iv"),
    Text(0x2164, "v"),
    Text(0x2165, "vi"),
    Text(0x2166, "vii"),
    Text(0x2167, "viii"),
    Text(0x2168, "ix"),
    Text(0x2169, "x"),
    Text(0x216A, "xi"),
    Text(0x216B, "xii"),
    Text(0x216C, "l"),
    Text(0x216D, "c"),
    Text(0x216E, "d"),
    Text(0x216F, "m"),
    Text(0x2170, "i"),
    Text(0x2171, "ii"),
    Text(0x2172, "iii"),
    Text(0x2173, "iv"),
    Text(0x2174, "v"),
    Text(0x2175, "vi"),
    Text(0x2176, "vii"),
    Text(0x2177, "viii"),
    Text(0x2178, "ix"),
    Text(0x2179, "x"),
    Text(0x217A, "xi"),
    Text(0x217B, "xii"),
    Text(0x217C, "l"),
    Text(0x217D, "c"),
    Text(0x217E, "d"),
    Text(0x217F, "m"),
    // Enclosed alphanumerics.
    Offset(0x2460, 0x2468, '1'),  // ①-⑨
    Text(0x2469, "10"),
    Text(0x246A, "11"),
    Text(0x246B, "12"),
    Text(0x246C, "13"),
    Text(0x246D, "14"),
    Text(0x246E, "15"),
    Text(0x246F, "16"),
    Text(0x2470, "17"),
    Text(0x2471, "18"),
    Text(0x2472, "19"),
    Text(0x2473, "20"),
    Offset(0x249C, 0x24B5, 'a'),  // ⒜-⒵ (NFKC would give "(a)")
    Offset(0x24B6, 0x24CF, 'a'),  // Ⓐ-Ⓩ
    Offset(0x24D0, 0x24E9, 'a'),  // ⓐ-ⓩ
    Text(0x24EA, "0"),
    Text(0x2C7C, "j"),      // subscript j
    Text(0x2C7D, "v"),      // modifier capital V
    Blank(0x3000, 0x3000),  // ideographic space
    // Latin Extended-D small capitals.
    Text(0xA730, "f"),
    Text(0xA731, "s"),
    Text(0xA7AF, "q"),
    Text(0xA7F2, "c"),  // modifier capital C, F, Q
    Text(0xA7F3, "f"),
    Text(0xA7F4, "q"),
    // Alphabetic presentation forms: ligatures.
    Text(0xFB00, "ff"),
    Text(0xFB01, "fi"),
    Text(0xFB02, "fl"),
    Text(0xFB03, "ffi"),
    Text(0xFB04, "ffl"),
    Text(0xFB05, 0xFB06, "st"),
    Drop(0xFE00, 0xFE0F),  // variation selectors
    Drop(0xFEFF, 0xFEFF),  // zero-width no-break space / BOM
    // Full-width ASCII.
    Offset(0xFF01, 0xFF20, 0x21),
    Offset(0xFF21, 0xFF3A, 'a'),
    Offset(0xFF3B, 0xFF5E, 0x5B),
    Text(0x107A5, "q"),  // modifier small q
    // Mathematical alphanumeric symbols. The holes in the Latin part are unassigned (those letters
    // live in Letterlike Symbols above); computing them as letters too is harmless.
    Math(0x1D400, 0x1D6A3, RangeKind::kMathLatin),
    Text(0x1D6A4, "\u0131"),  // italic dotless i -> ı
    Text(0x1D6A5, "\u0237"),  // italic dotless j -> ȷ
    Math(0x1D6A8, 0x1D7C9, RangeKind::kMathGreek),
    Text(0x1D7CA, 0x1D7CB, "\u03DD"),  // bold digamma -> ϝ
    Math(0x1D7CE, 0x1D7FF, RangeKind::kMathDigit),
    // Enclosed alphanumeric supplement.
    Offset(0x1F110, 0x1F129, 'a'),  // parenthesized capitals (NFKC "(A)")
    Text(0x1F12B, "c"),
    Text(0x1F12C, "r"),
    Offset(0x1F130, 0x1F149, 'a'),  // squared capitals
    Offset(0x1F150, 0x1F169, 'a'),  // negative circled capitals (no NFKC mapping)
    Offset(0x1F170, 0x1F189, 'a'),  // negative squared capitals (no NFKC mapping)
    Offset(0x1FBF0, 0x1FBF9, '0'),  // segmented digits
    // Tags and variation selectors supplement.
    Drop(0xE0000, 0xE007F),
    Drop(0xE0100, 0xE01EF),
};

constexpr bool RangesAreSortedAndDisjoint() {
  for (size_t i = 0; i < std::size(kFoldRanges); ++i) {
    const FoldRange& r = kFoldRanges[i];
    if (r.first > r.last || r.first < 0x80 || r.text.size() > 4) return false;
    if (i > 0 && kFoldRanges[i - 1].last >= r.first) return false;
  }
  return true;
}
static_assert(RangesAreSortedAndDisjoint(), "kFoldRanges must be sorted, disjoint, non-ASCII");

// One bit per 256-code-point page that holds any table entry: most non-ASCII text (CJK, Arabic,
// emoji ...) is in pages with nothing to fold and skips the search.
constexpr size_t kPageCount = 0x110000 >> 8;
using PageMask = std::array<uint64_t, kPageCount / 64>;

constexpr PageMask MakePageMask() {
  PageMask mask{};
  for (const FoldRange& r : kFoldRanges) {
    for (size_t page = r.first >> 8; page <= (r.last >> 8); ++page) {
      mask[page / 64] |= uint64_t{1} << (page % 64);
    }
  }
  return mask;
}
constexpr PageMask kFoldPages = MakePageMask();

// What happens to one non-ASCII code point.
enum class FoldAction : uint8_t { kKeep, kDrop, kBlank, kReplace };

struct Folded {
  FoldAction action = FoldAction::kKeep;
  uint8_t size = 0;
  char bytes[4] = {};
};

Folded Replace(char32_t cp) {
  Folded f;
  f.action = FoldAction::kReplace;
  f.size = static_cast<uint8_t>(EncodeUtf8(cp, f.bytes));
  return f;
}

// Greek letters and symbols of one mathematical Greek alphabet, by offset 0-57: capital Alpha-Omega
// with the capital theta symbol at 17, nabla, small alpha-omega (final sigma at 17), partial
// differential, and the six symbol variants. Mapped as NFKC then lower-case.
char32_t MathGreek(uint32_t offset) {
  if (offset < 25) return offset == 17 ? 0x03B8 : 0x03B1 + offset;
  if (offset == 25) return 0x2207;
  if (offset < 51) return 0x03B1 + (offset - 26);
  constexpr char32_t kTail[] = {0x2202, 0x03B5, 0x03B8, 0x03BA, 0x03C6, 0x03C1, 0x03C0};
  return kTail[offset - 51];
}

Folded FoldCodePoint(char32_t cp) {
  const size_t page = cp >> 8;
  if (((kFoldPages[page / 64] >> (page % 64)) & 1) == 0) return {};
  const FoldRange* end = std::end(kFoldRanges);
  const FoldRange* r =
      std::upper_bound(std::begin(kFoldRanges), end, cp,
                       [](char32_t c, const FoldRange& range) { return c < range.first; });
  if (r == std::begin(kFoldRanges)) return {};
  --r;
  if (cp > r->last) return {};
  switch (r->kind) {
    case RangeKind::kDrop:
      return {FoldAction::kDrop, 0, {}};
    case RangeKind::kBlank:
      return {FoldAction::kBlank, 0, {}};
    case RangeKind::kOffset:
      return Replace(static_cast<char32_t>(static_cast<int32_t>(cp) + r->delta));
    case RangeKind::kAltCase:
      return (cp - r->first) % 2 == 0 ? Replace(cp + 1) : Folded{};
    case RangeKind::kText: {
      Folded f;
      f.action = FoldAction::kReplace;
      f.size = static_cast<uint8_t>(r->text.size());
      std::copy(r->text.begin(), r->text.end(), f.bytes);
      return f;
    }
    case RangeKind::kMathLatin:
      return Replace('a' + (cp - 0x1D400) % 52 % 26);
    case RangeKind::kMathGreek:
      return Replace(MathGreek((cp - 0x1D6A8) % 58));
    case RangeKind::kMathDigit:
      return Replace('0' + (cp - 0x1D7CE) % 10);
  }
  return {};
}

// ASCII byte classes for the fast path. kUpper is 1 so that `c + (kind << 5)` lower-cases without
// a branch.
enum AsciiKind : uint8_t { kPlain = 0, kUpper = 1, kSpace = 2, kOtherSpace = 3, kNonAscii = 4 };

constexpr std::array<uint8_t, 256> MakeAsciiKinds() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (c >= 0x80) {
      t[c] = kNonAscii;
    } else if (c >= 'A' && c <= 'Z') {
      t[c] = kUpper;
    } else if (c == ' ') {
      t[c] = kSpace;
    } else if (c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r') {
      t[c] = kOtherSpace;
    } else {
      t[c] = kPlain;
    }
  }
  return t;
}
constexpr std::array<uint8_t, 256> kAsciiKinds = MakeAsciiKinds();

// Eight bytes at a time (SWAR) for ordinary prose. A chunk is "plain" when every byte is printable
// ASCII (0x20-0x7F) and no two spaces are adjacent: preceded by a visible byte and ending in one
// (the caller checks both), it folds to itself apart from upper-case letters. Byte-wise sums below
// stay under 0x100 because every byte is < 0x80 once the high bits are checked, so no carry crosses
// bytes and the result does not depend on byte order.
constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = kOnes * 0x80;

uint64_t LoadChunk(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

void StoreChunk(char* p, uint64_t v) { std::memcpy(p, &v, sizeof(v)); }

bool IsPlainChunk(uint64_t x) {
  if (x & kHighBits) return false;
  const uint64_t controls = ~(x + kOnes * (0x80 - 0x20)) & kHighBits;  // bytes < 0x20
  const uint64_t t = x ^ (kOnes * ' ');
  const uint64_t spaces = ~(t + kOnes * 0x7F) & kHighBits;  // bytes == 0x20
  return controls == 0 && (spaces & (spaces << 8)) == 0;
}

// The high bit of each byte that is 'A'-'Z'.
uint64_t UpperMask(uint64_t x) {
  return (x + kOnes * (0x80 - 'A')) & ~(x + kOnes * (0x80 - 'Z' - 1)) & kHighBits;
}

}  // namespace

// -------------------------------------------------------------------------------------------------

size_t FoldText(std::string_view in, std::string* out) {
  const size_t n = in.size();
  const auto* src = reinterpret_cast<const unsigned char*>(in.data());
  out->clear();
  // Room invariant: out->size() - pos >= (n - i) + (ws_len > 0 ? 1 : 0). Every input byte writes at
  // most one output byte (a pending space is paid for by the white space it stands for); only
  // replacements longer than their source (Ⅷ -> "viii", ǅ -> "dž": at most 3/2 of the input) grow
  // the buffer. So a reused `out` with capacity n never reallocates for ordinary text.
  out->resize(n);
  char* dst = out->data();
  size_t pos = 0;
  size_t i = 0;
  size_t changes = 0;
  size_t ws_len = 0;          // characters in the pending white-space run
  bool ws_has_space = false;  // the run holds an ASCII ' ', which then survives as itself

  // Emits the pending white-space run as one ' ' unless it leads the output.
  auto flush_space = [&]() {
    if (pos > 0) {
      dst[pos++] = ' ';
      changes += ws_len - (ws_has_space ? 1 : 0);
    } else {
      changes += ws_len;
    }
    ws_len = 0;
    ws_has_space = false;
  };

  while (i < n) {
    unsigned char c = src[i];
    unsigned kind = kAsciiKinds[c];
    if (kind <= kUpper) {
      if (ws_len > 0) flush_space();
      // Hot loop: printable ASCII and controls other than white space, on locals that the stores
      // through `d` (a char*, which may alias anything) cannot be assumed to touch. The first byte
      // is visible, so a chunk that follows it may contain single spaces.
      char* d = dst + pos;
      const unsigned char* s = src + i;
      const unsigned char* const end = src + n;
      size_t upper = kind;
      *d++ = static_cast<char>(c + (kind << 5));
      ++s;
      for (;;) {
        while (end - s >= 8 && s[7] != ' ') {
          const uint64_t chunk = LoadChunk(s);
          if (!IsPlainChunk(chunk)) break;
          const uint64_t upper_bits = UpperMask(chunk);
          StoreChunk(d, chunk | (upper_bits >> 2));
          if (upper_bits != 0) upper += static_cast<size_t>(std::popcount(upper_bits));
          s += 8;
          d += 8;
        }
        if (s == end) break;
        c = *s;
        kind = kAsciiKinds[c];
        if (kind > kUpper) break;
        *d++ = static_cast<char>(c + (kind << 5));
        upper += kind;
        ++s;
      }
      pos = static_cast<size_t>(d - dst);
      i = static_cast<size_t>(s - src);
      changes += upper;
      continue;
    }
    if (kind == kSpace || kind == kOtherSpace) {
      ++ws_len;
      ws_has_space |= kind == kSpace;
      ++i;
      continue;
    }
    char32_t cp = 0;
    const size_t len = DecodeUtf8(src + i, n - i, &cp);
    if (len == 0) {
      // Invalid byte: kept unchanged, one byte at a time, so a valid sequence right after it is
      // still decoded.
      if (ws_len > 0) flush_space();
      dst[pos++] = static_cast<char>(c);
      ++i;
      continue;
    }
    const Folded f = FoldCodePoint(cp);
    switch (f.action) {
      case FoldAction::kKeep:
        if (ws_len > 0) flush_space();
        for (size_t k = 0; k < len; ++k) dst[pos++] = static_cast<char>(src[i + k]);
        break;
      case FoldAction::kDrop:
        ++changes;
        break;
      case FoldAction::kBlank:
        ++ws_len;
        break;
      case FoldAction::kReplace:
        if (ws_len > 0) flush_space();
        if (f.size > len) {
          const size_t need = pos + f.size + (n - i - len);
          if (need > out->size()) {
            out->resize(std::max(need, out->size() + out->size() / 4 + 16));
            dst = out->data();
          }
        }
        for (size_t k = 0; k < f.size; ++k) dst[pos++] = f.bytes[k];
        ++changes;
        break;
    }
    i += len;
  }
  changes += ws_len;  // a trailing run is dropped
  out->resize(pos);
  return changes;
}

bool DecodeTagCharacters(std::string_view in, size_t min_chars, std::string* out) {
  out->clear();
  size_t found = 0;
  // U+E0000-E007F is F3 A0 80 80 .. F3 A0 81 BF in UTF-8.
  for (size_t i = in.find('\xF3'); i != std::string_view::npos && i + 3 < in.size();
       i = in.find('\xF3', i + 1)) {
    const auto b1 = static_cast<unsigned char>(in[i + 1]);
    const auto b2 = static_cast<unsigned char>(in[i + 2]);
    const auto b3 = static_cast<unsigned char>(in[i + 3]);
    if (b1 != 0xA0 || (b2 != 0x80 && b2 != 0x81) || (b3 & 0xC0) != 0x80) continue;
    const unsigned cp = ((b2 & 0x3Fu) << 6) | (b3 & 0x3Fu);  // offset within the tag block
    if (cp >= 0x20 && cp <= 0x7E) {
      out->push_back(static_cast<char>(cp));
      ++found;
    }
    i += 3;
  }
  if (found < min_chars) out->clear();
  return found >= min_chars && found > 0;
}

}  // namespace doberman::internal
