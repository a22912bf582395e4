// UTF-8 for the normalizers: one strict decoder and one encoder, so that every place that reads
// text agrees on what a character is (an invalid byte is never a character, never an alternative
// spelling of ASCII).
#ifndef DOBERMAN_RUNTIME_UTF8_H_
#define DOBERMAN_RUNTIME_UTF8_H_

#include <cstddef>

namespace doberman::internal {

// Length (2-4) of the well-formed UTF-8 sequence starting at p[0] (a byte >= 0x80), with its code
// point in *cp; 0 when p[0] does not start one. Follows Unicode Table 3-7, so overlong forms
// (C0/C1, E0 80-9F, F0 80-8F), surrogates (ED A0-BF) and code points above U+10FFFF are all
// rejected byte by byte: folding must never see an alternative spelling of ASCII.
inline size_t DecodeUtf8(const unsigned char* p, size_t avail, char32_t* cp) {
  const unsigned char b0 = p[0];
  if (b0 < 0xC2 || b0 > 0xF4) return 0;
  if (b0 < 0xE0) {
    if (avail < 2 || (p[1] & 0xC0) != 0x80) return 0;
    *cp = (static_cast<char32_t>(b0 & 0x1F) << 6) | (p[1] & 0x3F);
    return 2;
  }
  if (b0 < 0xF0) {
    if (avail < 3) return 0;
    const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;
    if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80) return 0;
    *cp = (static_cast<char32_t>(b0 & 0x0F) << 12) | (static_cast<char32_t>(p[1] & 0x3F) << 6) |
          (p[2] & 0x3F);
    return 3;
  }
  if (avail < 4) return 0;
  const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;
  const unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;
  if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
  *cp = (static_cast<char32_t>(b0 & 0x07) << 18) | (static_cast<char32_t>(p[1] & 0x3F) << 12) |
        (static_cast<char32_t>(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
  return 4;
}

// Writes cp (a valid scalar value) as UTF-8 into out[0..4); returns the length.
inline size_t EncodeUtf8(char32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_UTF8_H_
