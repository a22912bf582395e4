// Percent-escape decoding (%2F -> /) for the URLs and helper arguments the guard reads: Squid's
// rfc1738-escaped ACL arguments and file: URLs in MCP tool arguments.
#ifndef DOBERMAN_GUARD_PERCENT_DECODE_H_
#define DOBERMAN_GUARD_PERCENT_DECODE_H_

#include <string>
#include <string_view>

namespace doberman::guard {

// Decodes every %XX with two hex digits; a malformed escape stays as written (it cannot hide a name
// a rule looks for, and refusing it would change what the text says).
inline std::string PercentDecode(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_PERCENT_DECODE_H_
