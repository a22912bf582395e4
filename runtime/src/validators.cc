// Validators run inside the Hyperscan callback, so they are allocation-free and linear in the
// token. The exemptions trade recall for precision; docs/quality.md reports what each one costs.
#include "validators.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace doberman::internal {
namespace {

constexpr bool IsTokenChar(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/' || c == '=' || c == '_' || c == '-';
}
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
// The characters that end a value going backwards (ExtractValue, ForEachCarriedValue: both must
// bound a value alike, or a recorded secret and the same secret seen later would differ).
constexpr bool EndsValueBackwards(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`' ||
         c == '=' || c == ':' || c == ',' || c == '?' || c == '&' || c == '#';
}
bool IsQuote(char c) { return c == '"' || c == '\''; }
// The stops a quoted literal's value goes on through: '#', '&' and '?' ("Zq7mR2#pLw9",
// "Tr0ub&4dor?x": a password's symbols, not a URL's fragment or query or a comment, since the
// quotes enclose them; a query's `&name=` still stops the value at its '=').
constexpr bool PassesInQuotes(char c) { return c == '#' || c == '&' || c == '?'; }
// Given the value [b, e) that the stops bound and `hard_begin`, where it would begin if
// PassesInQuotes's stops were none, returns where it begins: `hard_begin` when the value stopped
// at one of them, a same quote closes it at `e` and opens it just before `hard_begin`; else `b`.
// ExtractValue and ForEachCarriedValue both decide through here.
size_t QuotedValueBegin(std::string_view text, size_t b, size_t e, size_t hard_begin) {
  if (hard_begin >= b || hard_begin == 0 || b == 0 || !PassesInQuotes(text[b - 1])) return b;
  if (e >= text.size() || !IsQuote(text[e]) || text[hard_begin - 1] != text[e]) return b;
  return hard_begin;
}
// A host and path (`example.com/AKIA...`) is not one value: '.' never occurs in base64, so a run
// with both '.' and '/' is a URL path, and the value is its last segment.
std::string_view LastSegmentOfHostPath(std::string_view run) {
  const size_t slash = run.rfind('/');
  if (slash != std::string_view::npos && run.find('.') != std::string_view::npos &&
      slash + 1 < run.size()) {
    return run.substr(slash + 1);
  }
  return run;
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
char Lower(char c) { return IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

bool ContainsCaseless(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() && Lower(hay[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

// Character classes for the identifier check, one table lookup per byte.
// kWide: a byte of a UTF-8 sequence. Such runs are words in another script or accented letters
// (`文件`, `chybový`): generated credentials are ASCII. A run of them is an atom of its own, so a
// secret with such bytes sprinkled between its characters is a segment of one-character atoms,
// which the atom-length check refuses.
enum : uint8_t { kDigit = 1, kLower = 2, kUpper = 4, kHexDigit = 8, kVowel = 16, kWide = 32 };
constexpr std::array<uint8_t, 256> kIdentClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0x80; c <= 0xFF; ++c) t[c] = kWide;
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit | kHexDigit;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLower;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kUpper;
  for (int c : {'a', 'b', 'c', 'd', 'e', 'f'}) {
    t[c] |= kHexDigit;
    t[c - 'a' + 'A'] |= kHexDigit;
  }
  for (int c : {'a', 'e', 'i', 'o', 'u', 'y'}) {
    t[c] |= kVowel;
    t[c - 'a' + 'A'] |= kVowel;
  }
  return t;
}();

// One segment between separators, split at camelCase humps and letter/digit boundaries into atoms.
// (Also used for segments of paths and dotted names.) An atom is a run of digits (at most 8) or of
// letters, all lower, all upper or Capitalized; long letter runs must look pronounceable (random
// runs are vowel-poor). Real identifiers have few, long atoms (approximateCubicArcLength); random
// base62 has many short ones (Wf3PzCwtzcw), so a long segment whose atoms average under 3
// characters is not excused. One pass, each atom judged from bits gathered while crossing it: this
// check is a third of the encoded-run search on large writes.
bool IsIdentifierSegment(std::string_view w) {
  const size_t n = w.size();
  if (n == 0) return true;
  const auto cls = [&](size_t i) { return kIdentClass[static_cast<unsigned char>(w[i])]; };
  if (n >= 12) {
    // A commit id or digest inside a path: all hex, with a digit and a non-digit.
    uint8_t all = 0xFF, any = 0, any_non_digit = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint8_t c = cls(i);
      all &= c;
      any |= c;
      any_non_digit |= static_cast<uint8_t>((c & kDigit) == 0);
    }
    if ((all & kHexDigit) && (any & kDigit) && any_non_digit) return true;
  }
  size_t atoms = 0, digit_runs = 0;
  size_t start = 0;                  // first byte of the atom being crossed
  uint8_t first = cls(0);            // its first byte's class
  uint8_t all = first, rest = 0xFF;  // AND over the whole atom, and over all but its first byte
  size_t vowels = (first & kVowel) != 0;
  uint8_t prev = first;  // class of byte i - 1
  for (size_t i = 1; i <= n; ++i) {
    const uint8_t c = i < n ? cls(i) : 0;
    if (i < n) {
      const bool boundary = ((c ^ prev) & (kDigit | kWide)) != 0 ||
                            ((c & kUpper) && (prev & kLower)) ||
                            ((c & kUpper) && (prev & kUpper) && i + 1 < n && (cls(i + 1) & kLower));
      if (!boundary) {
        all &= c;
        rest &= c;
        vowels += (c & kVowel) != 0;
        prev = c;
        continue;
      }
    }
    const size_t size = i - start;
    if (first & kDigit) {
      if (size > 8) return false;
      ++digit_runs;
    } else if ((first & kWide) == 0) {
      if ((first & (kLower | kUpper)) == 0) return false;
      const bool plain = (all & kLower) || (all & kUpper) || ((first & kUpper) && (rest & kLower));
      if (!plain || (size >= 7 && vowels * 7 < size)) return false;
    }
    ++atoms;
    if (i == n) break;
    start = i;
    first = all = prev = c;
    rest = 0xFF;
    vowels = (c & kVowel) != 0;
  }
  // Identifiers carry a version or an index, not digits sprinkled throughout (k3x9q2...). A short
  // word with one digit inside is a name too (s2member, web3auth, oauth2client).
  return digit_runs <= 2 && (n < 8 || n >= 3 * atoms || (n < 12 && digit_runs == 1 && atoms <= 3));
}

}  // namespace

// c * log2(c) for small counts, so that the usual short token needs no libm call.
const std::array<double, 256>& CountLog2Table() {
  static const std::array<double, 256> table = [] {
    std::array<double, 256> t{};
    for (size_t c = 1; c < t.size(); ++c)
      t[c] = static_cast<double>(c) * std::log2(static_cast<double>(c));
    return t;
  }();
  return table;
}

// H = log2(n) - (sum of c*log2(c)) / n over the distinct bytes; each distinct byte is visited once
// (its count is reset when first met on the second pass), so the cost is linear in the token, not
// 256.
double ShannonEntropy(std::string_view s) {
  if (s.empty()) return 0;
  std::array<uint32_t, 256> counts;  // only the entries for bytes of `s` are ever read
  for (unsigned char c : s) counts[c] = 0;
  for (unsigned char c : s) ++counts[c];
  const std::array<double, 256>& table = CountLog2Table();
  double sum = 0;
  for (unsigned char c : s) {
    const uint32_t k = counts[c];
    if (k == 0) continue;
    sum += k < table.size() ? table[k] : static_cast<double>(k) * std::log2(static_cast<double>(k));
    counts[c] = 0;
  }
  const double n = static_cast<double>(s.size());
  return std::max(0.0, std::log2(n) - sum / n);
}

std::string_view ExtractValue(std::string_view text, size_t start, size_t end) {
  if (start > end || end > text.size()) return {};
  if (start == end) {
    // No start of match (patterns are compiled without SOM to keep databases small): the value is
    // the run that ends where the match ends. A pattern may end on the delimiter after the value
    // (`user:pass@`, a closing quote), and may end inside a token, which is then taken whole.
    constexpr size_t kMaxValue = 4096;
    size_t e = end;
    // (A backslash before a closing quote escapes it: `\"value\"` in code inside a JSON string.)
    // A line break is such a delimiter too: a guard like `([^A-Za-z0-9_-]|$)` ends on the newline
    // after a value in the middle of a file, and the value is the run before it, not the next
    // line's first word (three steps: a closing quote, then a CRLF).
    for (int k = 0;
         k < 3 && e > 0 &&
         std::string_view("\"'`@;,)]}> \t\r\n\\").find(text[e - 1]) != std::string_view::npos;
         ++k) {
      --e;
    }
    const size_t limit = std::min(text.size(), e + kMaxValue);
    // ('/' ends the extension: after a match, it starts the next path segment of a URL.)
    while (e < limit && IsTokenChar(static_cast<unsigned char>(text[e])) && text[e] != '/') ++e;
    size_t b = e;
    while (b > 0 && text[b - 1] == '=')
      --b;  // base64 padding is part of the value, not an assignment
    while (b > 0 && e - b < kMaxValue && !EndsValueBackwards(text[b - 1])) --b;
    size_t hard = b;
    while (hard > 0 && e - hard < kMaxValue &&
           (PassesInQuotes(text[hard - 1]) || !EndsValueBackwards(text[hard - 1]))) {
      --hard;
    }
    b = QuotedValueBegin(text, b, e, hard);
    return LastSegmentOfHostPath(text.substr(b, e - b));
  }
  std::string_view match = text.substr(start, end - start);
  size_t sep = match.find_last_of("=:");
  // `KEY=value`: take what follows the assignment, unless the '=' is base64 padding at the end.
  if (sep != std::string_view::npos && sep + 1 < match.size()) {
    std::string_view value = match.substr(sep + 1);
    while (!value.empty() &&
           (value.front() == ' ' || value.front() == '"' || value.front() == '\''))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == '"' || value.back() == '\'' || value.back() == ' ' ||
                              value.back() == ',' || value.back() == ';'))
      value.remove_suffix(1);
    if (!value.empty()) return value;
  }
  size_t b = start, e = end;
  while (b > 0 && IsTokenChar(static_cast<unsigned char>(text[b - 1]))) --b;
  while (e < text.size() && IsTokenChar(static_cast<unsigned char>(text[e]))) ++e;
  return text.substr(b, e - b);
}

bool LooksLikePlaceholder(std::string_view v) {
  if (v.size() < 6) return true;
  // Markers are lower case. They are searched in a lower-cased copy with string_view::find (memchr
  // on the first byte, then a compare), not compared caselessly at every position one by one: this
  // filter was a tenth of a 4 KiB write's decision. The copy holds the longest value ExtractValue
  // bounds (4 KiB) and the run after it that PassesValidators also judges; longer values (a long
  // match with a start) take the direct path, 40 times slower per byte.
  char lowered[4096 + 512];
  std::string_view hay = v;
  const bool copied = v.size() <= sizeof lowered;
  if (copied) {
    for (size_t i = 0; i < v.size(); ++i) lowered[i] = Lower(v[i]);
    hay = std::string_view(lowered, v.size());
  }
  auto contains = [&](std::string_view m) {
    return copied ? hay.find(m) != std::string_view::npos : ContainsCaseless(hay, m);
  };
  static constexpr std::string_view kMarkers[] = {
      "your_", "your-", "yourapi", "yourkey", "yoursecret", "yourtoken", "_here", "-here",
      "changeme", "change_me", "change-me", "placeholder", "example", "dummy", "sample", "redacted",
      "xxxx", "****", "....", "<", "${", "{{", "%s", "replace", "insert", "fixme", "todo", "fake",
      "notreal", "not_a_real", "secret_value", "mysecret", "mypassword", "password123", "hunter2",
      "s3cr3t", "changeit",  // (Java's documented default keystore password)
      // A value that says password is the name of a field or a demo (edit_password,
      // #add-password, thisismypassword), not one.
      "password", "passwd",
      // HTML-escaped <PLACEHOLDER>, and the sequences people type for a demo value
      // (a1b2c3d4e5f6..., ...ABCDEFGHIJKL..., ...1234567890): 8 in a row do not occur by chance
      // in a generated secret.
      "&lt;", "12345678", "abcdefgh", "a1b2c3d4", "1a2b3c4d"};
  for (std::string_view m : kMarkers) {
    if (contains(m)) return true;
  }
  // A value that opens with "your" is an instruction to the reader (YOURPASSWORD, YourApiKeyHere);
  // a generated secret starts so about once in a million. One that opens with "lt;" is the rest
  // of an HTML-escaped <PLACEHOLDER> ('&' ends a value, so "&lt;" above is cut there).
  const auto opens_with = [&](std::string_view m) {
    for (size_t i = 0; i < m.size(); ++i) {
      if (Lower(v[i]) != m[i]) return false;
    }
    return true;
  };
  if (opens_with("your") || opens_with("lt;")) return true;
  // A variable reference, not a value. (Paths are the identifier exemption's business: a leading
  // '/' alone would excuse one random base64 secret in 64.)
  const bool windows_var = v.size() > 2 && v.front() == '%' && v.back() == '%';  // %API_KEY%
  if (v.front() == '$' || windows_var || v.front() == '~' ||
      (v.front() == '.' && v.size() > 1 && v[1] == '/')) {
    return true;
  }
  if (contains("process.env") || contains("os.environ") || contains("getenv") || contains("://")) {
    return true;
  }
  // One character repeated, or an ascending run like 1234567890 / abcdef.
  bool same = true, ascending = true;
  for (size_t i = 1; i < v.size(); ++i) {
    same = same && v[i] == v[0];
    ascending = ascending && (v[i] == v[i - 1] + 1 || (v[i - 1] == '9' && v[i] == '0'));
  }
  return same || ascending;
}

bool LooksLikeHashOrUuid(std::string_view v) {
  // UUID: 8-4-4-4-12 hex.
  if (v.size() == 36 && v[8] == '-' && v[13] == '-' && v[18] == '-' && v[23] == '-') {
    bool ok = true;
    for (size_t i = 0; i < v.size() && ok; ++i) {
      ok = (i == 8 || i == 13 || i == 18 || i == 23) ? true : IsHex(v[i]);
    }
    if (ok) return true;
  }
  if (v.size() < 32) return false;
  for (char c : v) {
    if (!IsHex(c)) return false;
  }
  return true;
}

bool LooksLikeIdentifierOrPath(std::string_view v) {
  // In a path, host or version '@' separates words too (@scope/pkg, server@3.0, user@example.com);
  // outside one it may be part of a password, which must stay one segment.
  const bool path = v.find_first_of("/.") != std::string_view::npos;
  size_t start = 0, parts = 0;
  for (size_t i = 0; i <= v.size(); ++i) {
    if (i == v.size() || v[i] == '/' || v[i] == '_' || v[i] == '.' || v[i] == '-' || v[i] == '=' ||
        v[i] == '+' || v[i] == ':' || (path && v[i] == '@')) {
      std::string_view part = v.substr(start, i - start);
      if (!IsIdentifierSegment(part)) return false;
      ++parts;
      start = i + 1;
    }
  }
  return parts > 0;
}

namespace {

// A Go module checksum as go.sum and go.mod tooling write it: `h1:` and the base64 of a SHA-256
// (43 characters and one '=' of padding). The cause of most lockfile alarms.
bool IsGoModuleHash(std::string_view text, std::string_view value) {
  const size_t at = static_cast<size_t>(value.data() - text.data());
  return at >= 3 && text.substr(at - 3, 3) == "h1:" && value.size() == 44 && value.back() == '=';
}

// A value of words joined by '_' or '-' in which one part is a long hex run (`sk_d21e2b...`,
// `s-s4t2ud-d91c558a...`): the identifier check excuses hex runs as commit ids and digests inside
// paths and dotted names, but outside them such a part is a key's random body behind its vendor
// prefix. Values with '/', '.' or ':' keep the excuse (refs/3f2a..., pkg.v1.3f2a..., sha:3f2a...).
bool HasHexBodyOutsidePath(std::string_view value) {
  // A bare hex value is left to the rules that read the name (secret.assignment.named_hex_secret):
  // behind a cache or sort key it is a digest.
  if (value.find_first_of("/.:") != std::string_view::npos ||
      value.find_first_of("_-=+") == std::string_view::npos) {
    return false;
  }
  size_t run = 0, digits = 0, letters = 0;
  bool whole = true;  // the part so far is all hex
  for (size_t i = 0; i <= value.size(); ++i) {
    const char c = i < value.size() ? value[i] : '_';
    if (c == '_' || c == '-' || c == '=' || c == '+') {
      if (whole && run >= 16 && digits > 0 && letters > 0) return true;
      run = digits = letters = 0;
      whole = true;
    } else if (IsHex(c)) {
      ++run;
      digits += IsDigit(c) ? 1 : 0;
      letters += IsDigit(c) ? 0 : 1;
    } else {
      whole = false;
    }
  }
  return false;
}

}  // namespace

bool PassesValidators(const ValidatorSpec& spec, std::string_view text, size_t start, size_t end,
                      size_t* value_end) {
  std::string_view value = ExtractValue(text, start, end);
  if (value_end != nullptr) {
    *value_end =
        value.empty() ? end : static_cast<size_t>(value.data() - text.data()) + value.size();
  }
  // Cheapest rejections first: most candidates in code fail the length or entropy floor, and the
  // placeholder filter (dozens of substring searches) runs only on what survives.
  if (spec.min_length > 0 && value.size() < spec.min_length) return false;
  if (spec.min_entropy > 0 && ShannonEntropy(value) < spec.min_entropy) return false;
  if (spec.exempt_hashes && (LooksLikeHashOrUuid(value) || IsGoModuleHash(text, value)))
    return false;
  if (spec.exempt_identifiers && LooksLikeIdentifierOrPath(value) && !HasHexBodyOutsidePath(value))
    return false;
  if (spec.placeholder && LooksLikePlaceholder(value)) return false;
  if (spec.placeholder) {
    // The value stops at '/' (after a match it usually starts a URL path segment), but a base64
    // value goes on through it: a documentation key such as AWS's "wJalr.../K7MDENG/...EXAMPLEKEY"
    // is a placeholder by its end. Judged on the token run on through '/' when it holds no '.'
    // (which a URL path would).
    const size_t from = static_cast<size_t>(value.data() - text.data()) + value.size();
    size_t e = from;
    while (e < text.size() && e - from < 256 && IsTokenChar(static_cast<unsigned char>(text[e])))
      ++e;
    if (e > from && text[from] == '/') {
      const std::string_view run = text.substr(static_cast<size_t>(value.data() - text.data()),
                                               e - static_cast<size_t>(value.data() - text.data()));
      if (run.find('.') == std::string_view::npos && LooksLikePlaceholder(run)) return false;
    }
  }
  return true;
}

namespace {

// Hands the value run [begin, e) of `text` to `fn` as ExtractValue would bound it (a host and
// path: its last segment, as LastSegmentOfHostPath cuts it), and that value's own last path
// segment too; false when `fn` says stop. `last_slash` and `last_dot` are the positions of the
// last '/' and '.' before `e` (SIZE_MAX: none), which the walk keeps, so that no value is
// searched again for them.
bool YieldValue(std::string_view text, size_t begin, size_t e, size_t last_slash, size_t last_dot,
                size_t min_length, bool (*fn)(void* context, std::string_view value),
                void* context) {
  const bool slash = last_slash != SIZE_MAX && last_slash >= begin;
  if (slash && last_dot != SIZE_MAX && last_dot >= begin) {
    // A host and path: only its last segment (which holds no '/').
    return e - last_slash - 1 < min_length ||
           fn(context, text.substr(last_slash + 1, e - last_slash - 1));
  }
  if (e - begin >= min_length && !fn(context, text.substr(begin, e - begin))) return false;
  return !slash || e - last_slash - 1 < min_length ||
         fn(context, text.substr(last_slash + 1, e - last_slash - 1));
}

// ForEachCarriedValue's byte classes, one table lookup per byte (the walk runs over every outbound
// call): the classes are exactly IsTokenChar (without '/', which ends a value) and
// EndsValueBackwards.
enum : uint8_t {
  kValueByte = 1,
  kStopByte = 2,
  kEqualsByte = 4,
  kPassesInQuotesByte = 8,
  kSlashOrDotByte = 16,  // neither a value byte nor a stop: what YieldValue cuts at
};
constexpr std::array<uint8_t, 256> kCarriedClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const auto u = static_cast<unsigned char>(c);
    if (IsTokenChar(u) && c != '/') t[c] |= kValueByte;
    if (EndsValueBackwards(static_cast<char>(c))) t[c] |= kStopByte;
    if (PassesInQuotes(static_cast<char>(c))) t[c] |= kPassesInQuotesByte;
  }
  t['='] |= kEqualsByte;
  t['/'] |= kSlashOrDotByte;
  t['.'] |= kSlashOrDotByte;
  return t;
}();

}  // namespace

bool ForEachCarriedValue(std::string_view text, size_t min_length,
                         bool (*fn)(void* context, std::string_view value), void* context) {
  constexpr size_t kMaxValue = 4096;  // as in ExtractValue
  const size_t n = text.size();
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  size_t last_stop = SIZE_MAX;       // last backward stop before the current '=' block
  size_t last_hard_stop = SIZE_MAX;  // the same, PassesInQuotes's stops not counted
  size_t eq_block_begin = SIZE_MAX;  // start of the run of '=' ending at the current position
  size_t last_slash = SIZE_MAX, last_dot = SIZE_MAX;  // the last '/' and '.' seen
  for (size_t e = 1; e <= n; ++e) {
    const uint8_t k = kCarriedClass[bytes[e - 1]];
    if ((k & kSlashOrDotByte) != 0) {
      (bytes[e - 1] == '/' ? last_slash : last_dot) = e - 1;
      if (eq_block_begin != SIZE_MAX) {
        last_stop = e - 2;  // as below: the block's last '=' stops a value
        last_hard_stop = e - 2;
        eq_block_begin = SIZE_MAX;
      }
      continue;  // not a value byte, so no value ends here
    }
    if ((k & kEqualsByte) != 0) {
      if (eq_block_begin == SIZE_MAX) eq_block_begin = e - 1;
    } else {
      if (eq_block_begin != SIZE_MAX) {
        last_stop = e - 2;  // the block's last '=' stops a value
        last_hard_stop = e - 2;
      }
      eq_block_begin = SIZE_MAX;
      if ((k & kStopByte) != 0) {
        last_stop = e - 1;
        if ((k & kPassesInQuotesByte) == 0) last_hard_stop = e - 1;
      }
    }
    // A value ends where a run of token characters ends ('/' ends it too, as in ExtractValue).
    if ((k & kValueByte) == 0) continue;
    uint8_t next = e < n ? kCarriedClass[bytes[e]] : 0;
    if ((next & kValueByte) != 0) {
      // Inside a run, a plain value byte followed by another value byte changes nothing above
      // (no '=' block is open after a byte that is not '='): skip to the run's last such byte,
      // each byte's class read once.
      if ((k & kEqualsByte) == 0) {
        while (next == kValueByte && e + 1 < n) {
          const uint8_t after = kCarriedClass[bytes[e + 1]];
          if ((after & kValueByte) == 0) break;
          ++e;
          next = after;
        }
      }
      continue;
    }
    // Trailing '=' is padding, part of the value; the stop before it bounds the value, and so does
    // ExtractValue's window of kMaxValue bytes (which the padding may exceed on its own).
    const size_t stop = last_stop == SIZE_MAX ? 0 : last_stop + 1;
    const size_t pad_begin = eq_block_begin == SIZE_MAX ? e : eq_block_begin;
    const size_t window = e > kMaxValue ? e - kMaxValue : 0;
    const size_t hard_stop = last_hard_stop == SIZE_MAX ? 0 : last_hard_stop + 1;
    const size_t b = std::max(stop, std::min(pad_begin, window));
    const size_t hard_begin = std::max(hard_stop, std::min(pad_begin, window));
    // Every value handed on is a piece of [b, e) or of [hard_begin, e) (QuotedValueBegin returns
    // one of the two): when both are shorter than a value, there is none here, as for most words
    // of a command line.
    if (e - std::min(b, hard_begin) < min_length) continue;
    const size_t quoted = QuotedValueBegin(text, b, e, hard_begin);
    // The piece after the '#', '&' or '?' too: a value recorded elsewhere may be sent inside a
    // quoted literal.
    if (quoted != b && !YieldValue(text, b, e, last_slash, last_dot, min_length, fn, context))
      return false;
    if (!YieldValue(text, quoted, e, last_slash, last_dot, min_length, fn, context)) return false;
  }
  return true;
}

}  // namespace doberman::internal
