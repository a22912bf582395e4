// Encoded runs (API in encoded_runs.h): one left-to-right pass over a text, skipping ordinary words
// 64 bytes at a time, then a strict decoder per encoding.
#include "encoded_runs.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace doberman::internal {
namespace {

// -------------------------------------------------------------------------------------------------
// Encoded runs.

enum CharClass : uint8_t {
  kBase64Char = 1,  // A-Z a-z 0-9 + / - _ (standard and URL-safe alphabets together)
  kHexChar = 2,     // 0-9 A-F a-f
  kUnreserved = 4,  // RFC 3986 unreserved: A-Z a-z 0-9 - . _ ~
};

constexpr std::array<uint8_t, 256> MakeCharClasses() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    uint8_t v = 0;
    if (alnum || c == '+' || c == '/' || c == '-' || c == '_') v |= kBase64Char;
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f')) v |= kHexChar;
    if (alnum || c == '-' || c == '.' || c == '_' || c == '~') v |= kUnreserved;
    t[c] = v;
  }
  return t;
}
constexpr std::array<uint8_t, 256> kCharClasses = MakeCharClasses();

constexpr uint8_t kInvalid = 0xFF;

constexpr std::array<uint8_t, 256> MakeHexValues() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (c >= '0' && c <= '9') {
      t[c] = static_cast<uint8_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      t[c] = static_cast<uint8_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      t[c] = static_cast<uint8_t>(c - 'A' + 10);
    } else {
      t[c] = kInvalid;
    }
  }
  return t;
}
constexpr std::array<uint8_t, 256> kHexValues = MakeHexValues();

constexpr std::array<uint8_t, 256> MakeBase64Values() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (c >= 'A' && c <= 'Z') {
      t[c] = static_cast<uint8_t>(c - 'A');
    } else if (c >= 'a' && c <= 'z') {
      t[c] = static_cast<uint8_t>(c - 'a' + 26);
    } else if (c >= '0' && c <= '9') {
      t[c] = static_cast<uint8_t>(c - '0' + 52);
    } else if (c == '+' || c == '-') {
      t[c] = 62;
    } else if (c == '/' || c == '_') {
      t[c] = 63;
    } else {
      t[c] = kInvalid;
    }
  }
  return t;
}
constexpr std::array<uint8_t, 256> kBase64Values = MakeBase64Values();

uint8_t Byte(std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); }

bool IsEscapeAt(std::string_view text, size_t i) {
  return text[i] == '%' && i + 2 < text.size() && kHexValues[Byte(text, i + 1)] != kInvalid &&
         kHexValues[Byte(text, i + 2)] != kInvalid;
}

// Classifies the maximal base64-alphabet stretch [begin, end), which `non_hex` characters (the
// first at `first_non_hex`) keep from being hex. Fills *run and returns true when it is a run under
// `limits`.
bool ClassifyAlphabetRun(std::string_view text, size_t begin, size_t end, size_t non_hex,
                         size_t first_non_hex, const DecodeLimits& limits, EncodedRun* run) {
  const size_t min_hex = std::max<size_t>(limits.min_hex, 2);
  const size_t min_base64 = std::max<size_t>(limits.min_base64, 1);
  const size_t length = end - begin;
  if (non_hex == 0 && length % 2 == 0 && length >= min_hex) {
    *run = {begin, end, Encoding::kHex};
    return true;
  }
  // "0x" + hex digits: the prefix is notation, not payload.
  if (non_hex == 1 && first_non_hex == begin + 1 && text[begin] == '0' &&
      (text[begin + 1] | 0x20) == 'x' && length % 2 == 0 && length - 2 >= min_hex) {
    *run = {begin + 2, end, Encoding::kHex};
    return true;
  }
  if (length < min_base64) return false;
  // Up to two '=' of padding belong to the run.
  size_t padded = end;
  while (padded < text.size() && padded - end < 2 && text[padded] == '=') ++padded;
  *run = {begin, padded, Encoding::kBase64};
  return true;
}

}  // namespace

// Scanning rules (one left-to-right pass from `from`, which acts as a boundary):
//  * Alphabet run: a maximal stretch of [A-Za-z0-9+/_-]. It is kHex when it is all hex digits, of
//    even length >= min_hex (a leading "0x" is allowed and left out of the run); otherwise it is
//    kBase64 when at least min_base64 long, with up to two following '=' included. Nothing else is
//    required (no mixed case or digit): long words, identifiers and paths are reported too, and
//    the rules decide what they mean.
//  * Percent run: a maximal stretch of %XX escapes and unreserved characters [A-Za-z0-9._~-] that
//    holds at least min_percent escapes; it may start and end with unreserved characters, so
//    "ignore%20all%20previous%20rules" is one run and decodes to the whole sentence.
//  * The first run to be confirmed wins and is returned whole: an alphabet run is confirmed at its
//    end, a percent run at its min_percent-th escape. So runs never overlap, and each call reads at
//    most three bytes past the run it returns, which keeps ForEachEncodedRun linear overall.
//    Corollary: an alphabet run that ends inside a percent stretch before that stretch's
//    min_percent-th escape is returned on its own, and the rest of the stretch is considered
//    afresh from the run's end.
//
// Skipping (when `next_percent` is given): before the next '%' no percent run can be confirmed, and
// an alphabet run is only reported when at least `min_run` long. So the byte `min_run - 1` ahead is
// probed: when it is outside the alphabet, no reportable stretch starts in between and the whole
// window is skipped; when it is inside a stretch shorter than `min_run`, the stretch is skipped
// too; only a long stretch hands over to the byte loop at its start. Ordinary text and code (words
// and identifiers shorter than min_run) are crossed touching about one stretch per window. The
// result is the byte loop's, exactly (tests/unit/encoded_runs_test.cc compares the two on random
// text). The first skip is done 64 bytes at a time by SkipShortStretches: from `i` (a stretch
// boundary) and before `limit`, where the first base64 stretch at least min(min_run, 64) long
// starts, or where the words ran out (the start of the stretch in progress, or the first byte not
// looked at). Any of those is a place the probe loop can continue from. Each word becomes a 64-bit
// mask of alphabet bytes; `mask & (mask >> s)` steps find a run of k ones without a branch per
// byte or per block (the sixteen-byte version before it mispredicted about once per block and was a
// third of the encoded-run search on 1 MiB). Only for min_run >= 16 (the defaults are 24 and 32):
// shorter stretches are crossed fast enough by the probe loop.
#if defined(__SSE2__)
namespace {

// Bit k set: byte k of the 16 at `p` is in the base64 alphabet [A-Za-z0-9+/_-].
uint32_t AlphabetMask16(const unsigned char* p) {
  const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i folded = _mm_or_si128(c, _mm_set1_epi8(0x20));  // bytes >= 0x80 stay negative
  const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)),
                                       _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
  const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)),
                                      _mm_cmplt_epi8(c, _mm_set1_epi8('9' + 1)));
  const __m128i extra = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('+')), _mm_cmpeq_epi8(c, _mm_set1_epi8('/'))),
      _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('_')), _mm_cmpeq_epi8(c, _mm_set1_epi8('-'))));
  return static_cast<uint32_t>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), extra)));
}

// For 64 bytes at `p`, bit k of each mask describes byte k: in the base64 alphabet; a hex digit;
// '+' or '/' (the alphabet's two bytes that are not URI-unreserved).
struct ClassMasks64 {
  uint64_t alphabet = 0, hex = 0, reserved = 0;
};

ClassMasks64 ClassMasks(const unsigned char* p) {
  ClassMasks64 m;
  for (size_t k = 0; k < 4; ++k) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i folded = _mm_or_si128(c, _mm_set1_epi8(0x20));
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)),
                                        _mm_cmplt_epi8(c, _mm_set1_epi8('9' + 1)));
    const __m128i hex_letter = _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)),
                                             _mm_cmplt_epi8(folded, _mm_set1_epi8('f' + 1)));
    const __m128i reserved =
        _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('+')), _mm_cmpeq_epi8(c, _mm_set1_epi8('/')));
    const size_t shift = 16 * k;
    m.alphabet |= uint64_t{AlphabetMask16(p + 16 * k)} << shift;
    m.hex |= uint64_t{static_cast<uint32_t>(_mm_movemask_epi8(_mm_or_si128(digit, hex_letter)))}
             << shift;
    m.reserved |= uint64_t{static_cast<uint32_t>(_mm_movemask_epi8(reserved))} << shift;
  }
  return m;
}

}  // namespace
#endif

namespace {

// What the byte loop learns crossing an alphabet stretch: where it ends, its non-hex bytes (count
// and first), and the last '+' or '/' in it (where a percent stretch must restart), or SIZE_MAX.
struct AlphabetStretch {
  size_t end = 0, non_hex = 0, first_non_hex = 0, last_reserved = SIZE_MAX;
};

// The stretch starting at `i` (p[i] in the alphabet), byte by byte from `i` on, or from `b` with
// what the words before it gathered.
void FinishStretch(const unsigned char* p, size_t n, size_t b, AlphabetStretch* s) {
  // In locals, not through `s`: the loop stays in registers.
  size_t non_hex = s->non_hex, first_non_hex = s->first_non_hex, last_reserved = s->last_reserved;
  for (; b < n; ++b) {
    const uint8_t cls = kCharClasses[p[b]];
    if (!(cls & kBase64Char)) break;
    if (!(cls & kHexChar) && non_hex++ == 0) first_non_hex = b;
    if (!(cls & kUnreserved)) last_reserved = b;
  }
  *s = {b, non_hex, first_non_hex, last_reserved};
}

// The same, 64 bytes at a time while 64 are left (a stretch of paths and identifiers is crossed
// with a few mask operations per word instead of a branchy step per byte; it was the largest part
// of the encoded-run search on 1 MiB of code).
AlphabetStretch ScanStretch(const unsigned char* p, size_t i, size_t n) {
  AlphabetStretch s;
  size_t b = i;
#if defined(__SSE2__)
  for (; b + 64 <= n; b += 64) {
    const ClassMasks64 m = ClassMasks(p + b);
    const auto len = static_cast<size_t>(std::countr_one(m.alphabet));
    const uint64_t in = len == 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1;
    const uint64_t non_hex = ~m.hex & in;
    if (non_hex != 0) {
      if (s.non_hex == 0) s.first_non_hex = b + static_cast<size_t>(std::countr_zero(non_hex));
      s.non_hex += static_cast<size_t>(std::popcount(non_hex));
    }
    const uint64_t reserved = m.reserved & in;
    if (reserved != 0) s.last_reserved = b + 63 - static_cast<size_t>(std::countl_zero(reserved));
    if (len < 64) {
      s.end = b + len;
      return s;
    }
  }
#endif
  FinishStretch(p, n, b, &s);
  return s;
}

}  // namespace

size_t SkipShortStretches(const unsigned char* p, size_t i, size_t limit, size_t min_run) {
#if defined(__SSE2__)
  if (min_run < 16) return i;
  const size_t k = std::min<size_t>(min_run, 64);
  // Shifts that turn "bit set: alphabet byte" into "bit set: k alphabet bytes start here".
  size_t shifts[8];
  size_t shift_count = 0;
  for (size_t have = 1; have < k;) {
    const size_t step = std::min(have, k - have);
    shifts[shift_count++] = step;
    have += step;
  }
  size_t carry = 0;  // length of the stretch that reaches the end of the words looked at so far
  size_t b = i;
  for (; b + 64 <= limit; b += 64) {
    const uint64_t m =
        uint64_t{AlphabetMask16(p + b)} | uint64_t{AlphabetMask16(p + b + 16)} << 16 |
        uint64_t{AlphabetMask16(p + b + 32)} << 32 | uint64_t{AlphabetMask16(p + b + 48)} << 48;
    const auto lead = static_cast<size_t>(std::countr_one(m));
    if (carry > 0 && carry + lead >= k) return b - carry;
    uint64_t starts = m;
    for (size_t j = 0; j < shift_count; ++j) starts &= starts >> shifts[j];
    if (starts != 0) return b + static_cast<size_t>(std::countr_zero(starts));
    carry = lead == 64 ? carry + 64 : static_cast<size_t>(std::countl_one(m));
  }
  return b - carry;
#else
  (void)p;
  (void)limit;
  (void)min_run;
  return i;
#endif
}

bool FindNextEncodedRun(std::string_view text, size_t from, const DecodeLimits& limits,
                        EncodedRun* run, size_t* next_percent) {
  const size_t n = text.size();
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t min_percent = std::max<size_t>(limits.min_percent, 1);
  const size_t min_run =
      std::min(std::max<size_t>(limits.min_base64, 1), std::max<size_t>(limits.min_hex, 2));
  size_t percent_at = 0;  // no '%' in [from, percent_at): skipping allowed below it
  if (next_percent != nullptr) {
    if (*next_percent < from) {
      const void* hit = from < n ? std::memchr(p + from, '%', n - from) : nullptr;
      *next_percent = hit ? static_cast<size_t>(static_cast<const unsigned char*>(hit) - p) : n;
    }
    percent_at = *next_percent;
  }
  // The current percent stretch starts right after the last character that was neither unreserved
  // nor part of an escape, and holds `escapes` escapes so far.
  size_t pct_begin = from;
  size_t escapes = 0;
  size_t i = from;
  while (i < n) {
    if (next_percent != nullptr && escapes == 0 && i > percent_at) {
      const void* hit = std::memchr(p + i, '%', n - i);
      percent_at = *next_percent =
          hit ? static_cast<size_t>(static_cast<const unsigned char*>(hit) - p) : n;
    }
    if (escapes == 0 && i + min_run <= percent_at) {
      const size_t entered = i;
      i = SkipShortStretches(p, i, percent_at, min_run);
      while (i + min_run <= percent_at) {
        const size_t probe = i + min_run - 1;
        if (kCharClasses[p[probe]] & kBase64Char) {
          size_t start = probe, end = probe + 1;
          while (start > i && (kCharClasses[p[start - 1]] & kBase64Char)) --start;
          while (end < n && end - start < min_run && (kCharClasses[p[end]] & kBase64Char)) ++end;
          if (end - start >= min_run) {
            i = start;  // long enough to be reported: the byte loop takes it from its start
            break;
          }
          i = end;  // a stretch too short to report (words, identifiers): skipped whole
          continue;
        }
        i = probe + 1;
      }
      if (i == n) break;
      // Where the byte loop's percent stretch would start: after the last byte that is not
      // unreserved.
      size_t j = i;
      while (j > entered && (kCharClasses[p[j - 1]] & kUnreserved)) --j;
      if (j > entered) pct_begin = j;
    }
    uint8_t cls = kCharClasses[p[i]];
    if (cls & kBase64Char) {
      // A whole alphabet stretch in one go. '+' and '/' are in the alphabet but not unreserved:
      // they break the percent stretch. With the skipping cache and a word left it is crossed in
      // 64-byte words; the byte loop (FinishStretch from the start) stays the reference the tests
      // compare that with.
      const size_t begin = i;
      AlphabetStretch s;
      if (next_percent != nullptr && n - i >= 64) {
        s = ScanStretch(p, i, n);
      } else {
        FinishStretch(p, n, i, &s);
      }
      if (s.last_reserved != SIZE_MAX) {
        pct_begin = s.last_reserved + 1;
        escapes = 0;
      }
      i = s.end;
      if (ClassifyAlphabetRun(text, begin, i, s.non_hex, s.first_non_hex, limits, run)) return true;
      continue;
    }
    if (p[i] == '%' && IsEscapeAt(text, i)) {
      i += 3;
      if (++escapes == min_percent) {
        // Confirmed: extend over the rest of the stretch.
        while (i < n) {
          if (IsEscapeAt(text, i)) {
            i += 3;
          } else if (kCharClasses[p[i]] & kUnreserved) {
            ++i;
          } else {
            break;
          }
        }
        *run = {pct_begin, i, Encoding::kPercent};
        return true;
      }
      continue;
    }
    if (!(cls & kUnreserved)) {
      pct_begin = i + 1;
      escapes = 0;
    }
    ++i;
  }
  return false;
}

bool DecodeRun(std::string_view text, const EncodedRun& run, const DecodeLimits& limits,
               std::string* out) {
  out->clear();
  if (run.begin > run.end || run.end > text.size()) return false;
  std::string_view s = text.substr(run.begin, run.end - run.begin);
  const size_t max_in = limits.max_run_bytes;
  switch (run.encoding) {
    case Encoding::kBase64: {
      size_t pad = 0;
      while (!s.empty() && s.back() == '=') {
        s.remove_suffix(1);
        ++pad;
      }
      if (pad > 2) return false;
      for (char ch : s) {
        if (kBase64Values[static_cast<uint8_t>(ch)] == kInvalid) return false;
      }
      if (s.size() > max_in) {
        // Whole quanta only; the padding rules do not apply to a cut run.
        s = s.substr(0, max_in & ~size_t{3});
      } else if (s.size() % 4 == 1 || (pad > 0 && (s.size() + pad) % 4 != 0)) {
        return false;
      }
      out->resize(s.size() / 4 * 3 + 2);
      char* dst = out->data();
      size_t pos = 0;
      uint32_t acc = 0;
      int bits = 0;
      for (char ch : s) {
        acc = (acc << 6) | kBase64Values[static_cast<uint8_t>(ch)];
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          dst[pos++] = static_cast<char>((acc >> bits) & 0xFF);
        }
      }
      // Leftover bits (fewer than 8) are ignored, whatever their value.
      out->resize(pos);
      return true;
    }
    case Encoding::kHex: {
      if (s.size() % 2 != 0) return false;
      for (char ch : s) {
        if (kHexValues[static_cast<uint8_t>(ch)] == kInvalid) return false;
      }
      if (s.size() > max_in) s = s.substr(0, max_in & ~size_t{1});
      out->resize(s.size() / 2);
      for (size_t k = 0; k < s.size(); k += 2) {
        (*out)[k / 2] = static_cast<char>((kHexValues[static_cast<uint8_t>(s[k])] << 4) |
                                          kHexValues[static_cast<uint8_t>(s[k + 1])]);
      }
      return true;
    }
    case Encoding::kPercent: {
      // %XX becomes its byte; anything else, including a '%' without two hex digits, is copied. An
      // escape that would cross max_run_bytes is left out rather than cut.
      const size_t limit = std::min(s.size(), max_in);
      out->resize(limit);
      char* dst = out->data();
      size_t pos = 0;
      size_t k = 0;
      while (k < limit) {
        if (IsEscapeAt(s, k)) {
          if (k + 3 > limit) break;
          dst[pos++] =
              static_cast<char>((kHexValues[Byte(s, k + 1)] << 4) | kHexValues[Byte(s, k + 2)]);
          k += 3;
        } else {
          dst[pos++] = s[k++];
        }
      }
      out->resize(pos);
      return true;
    }
  }
  return false;
}

}  // namespace doberman::internal
