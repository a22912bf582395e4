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
// outside every range is kept as it is. The ranges are generated (unicode_fold_table.inc, by
// scripts/generate-unicode-fold from Python's unicodedata): compatibility forms (NFKC, then lower
// case) that spell Latin, Greek or Cyrillic letters, digits or ASCII punctuation; Latin, Greek and
// Cyrillic lower case; look-alikes with no compatibility mapping (small capitals, negative circled
// letters); invisible characters; white space. The rules and their few overrides are in the script.
// Each output is final (already folded), so folding is idempotent on valid UTF-8; the unit test
// checks that over every code point.

enum class RangeKind : uint8_t {
  kDrop,     // invisible: removed
  kBlank,    // white space: joins the surrounding white-space run
  kOffset,   // cp + delta (lower-casing, full-width, enclosed and mathematical letters)
  kAltCase,  // even offset from `first` is upper case, +1 is its lower case (and kept)
  kText,     // fixed replacement text
};

// No pointers: the table is plain read-only data (a string_view member made every entry a
// relocation, so its pages were written by each process at start-up).
struct FoldRange {
  char32_t first;
  char32_t last;
  RangeKind kind;
  uint8_t text_size;   // kText only
  char text_bytes[4];  // kText only: the replacement, at most 4 bytes
  int32_t delta;       // kOffset only
};

constexpr FoldRange Drop(char32_t first, char32_t last) {
  return {first, last, RangeKind::kDrop, 0, {}, 0};
}
constexpr FoldRange Blank(char32_t first, char32_t last) {
  return {first, last, RangeKind::kBlank, 0, {}, 0};
}
constexpr FoldRange Offset(char32_t first, char32_t last, char32_t first_target) {
  return {first, last, RangeKind::kOffset,
          0,     {},   static_cast<int32_t>(first_target) - static_cast<int32_t>(first)};
}
constexpr FoldRange AltCase(char32_t first, char32_t last) {
  return {first, last, RangeKind::kAltCase, 0, {}, 0};
}
// A replacement longer than 4 bytes is cut here and refused by RangesAreSortedAndDisjoint (its
// size says so).
constexpr FoldRange Text(char32_t first, char32_t last, std::string_view text) {
  FoldRange r{first, last, RangeKind::kText, static_cast<uint8_t>(text.size()), {}, 0};
  for (size_t i = 0; i < text.size() && i < sizeof r.text_bytes; ++i) r.text_bytes[i] = text[i];
  return r;
}
constexpr FoldRange Text(char32_t cp, std::string_view text) { return Text(cp, cp, text); }

constexpr FoldRange kFoldRanges[] = {
#include "unicode_fold_table.inc"
};

constexpr bool RangesAreSortedAndDisjoint() {
  for (size_t i = 0; i < std::size(kFoldRanges); ++i) {
    const FoldRange& r = kFoldRanges[i];
    if (r.first > r.last || r.first < 0x80 || r.text_size > sizeof r.text_bytes) return false;
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
      f.size = r->text_size;
      std::copy(r->text_bytes, r->text_bytes + r->text_size, f.bytes);
      return f;
    }
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

namespace {
bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Whether the text at `p` starts, once folded, with an ASCII letter (dropped code points skipped).
// The in-word apostrophe is judged on the folded text: judged on the raw next byte, a second fold
// would see a letter the first did not (a modifier letter such as U+02B8 folding to "y", or a
// dropped mark before the letter), and the fold would not be idempotent.
bool FoldsToLetterNext(const unsigned char* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) return IsAsciiLetter(static_cast<char>(p[i]));
    char32_t cp = 0;
    const size_t len = DecodeUtf8(p + i, n - i, &cp);
    if (len == 0) return false;
    const Folded f = FoldCodePoint(cp);
    if (f.action != FoldAction::kDrop) {
      return f.action == FoldAction::kReplace && f.size > 0 && IsAsciiLetter(f.bytes[0]);
    }
    i += len;
  }
  return false;
}
}  // namespace

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
    // A typographic apostrophe inside a word (don’t, I’m, OpenAI’s) is the ASCII one, so rules
    // written `don'?t` read what phones and word processors type. Only inside a word: elsewhere
    // U+2019 is a closing quote, and the mention reading (mention.cc) tells curly quotes apart -
    // an ASCII ' there would open quotes that "’Cause" or "users’" never opened.
    if ((cp == 0x2019 || cp == 0x02BC) && ws_len == 0 && pos > 0 && IsAsciiLetter(dst[pos - 1]) &&
        FoldsToLetterNext(src + i + len, n - i - len)) {
      dst[pos++] = '\'';
      ++changes;
      i += len;
      continue;
    }
    // Thai and Lao SARA AM written as its two parts (NIKHAHIT + SARA AA: what NFKC makes of it,
    // and what some keyboards and converters type) is the one letter rules are written with, so
    // คําสั่ง and คำสั่ง read alike. The pair's second part is 3 bytes: E0 B8 B2 (Thai), E0 BA B2 (Lao).
    if ((cp == 0x0E4D || cp == 0x0ECD) && i + len + 3 <= n && src[i + len] == 0xE0 &&
        src[i + len + 1] == (cp == 0x0E4D ? 0xB8 : 0xBA) && src[i + len + 2] == 0xB2) {
      if (ws_len > 0) flush_space();
      dst[pos++] = '\xE0';
      dst[pos++] = cp == 0x0E4D ? '\xB8' : '\xBA';
      dst[pos++] = '\xB3';
      ++changes;
      i += len + 3;
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
