// Strict, bounded RFC 8259 reader and string escaper for untrusted hook payloads (API in json.h).
#include "json.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <type_traits>

namespace doberman::internal {
namespace {

// Arrays grow by moving elements; a throwing move would make vector copy whole subtrees instead.
static_assert(std::is_nothrow_move_constructible_v<JsonValue>);

// Bytes that may be copied verbatim inside a string literal, in either direction. Everything else
// (quote, backslash, C0 controls, non-ASCII) needs an escape decision or UTF-8 validation.
constexpr std::array<bool, 256> kPlainByte = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[c] = c != '"' && c != '\\';
  return t;
}();

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighBits = 0x8080808080808080ull;

constexpr bool HasZeroByte(uint64_t w) { return ((w - kOnes) & ~w & kHighBits) != 0; }

// True when any of the 8 bytes is not a plain byte. Strings in hook payloads are mostly long ASCII
// runs (file contents, commands), so testing a word at a time is what keeps a 1 MiB string near
// memcpy speed. The < 0x20 test may misfire on bytes after a high byte, but those words are already
// flagged.
constexpr bool WordNeedsAttention(uint64_t w) {
  const uint64_t below_space = (w - 0x20 * kOnes) & ~w;
  return ((w | below_space) & kHighBits) != 0 || HasZeroByte(w ^ ('"' * kOnes)) ||
         HasZeroByte(w ^ ('\\' * kOnes));
}

inline uint64_t LoadWord(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

constexpr bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length (1-4) of the well-formed UTF-8 sequence starting at p, or 0. Follows Unicode Table 3-7, so
// overlong forms, UTF-16 surrogates (ED A0..BF) and code points above U+10FFFF are all rejected.
inline size_t Utf8SequenceLength(const unsigned char* p, size_t avail) {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;
  if (c < 0xE0) return avail >= 2 && IsContinuation(p[1]) ? 2 : 0;
  if (c < 0xF0) {
    if (avail < 3) return 0;
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;
    return p[1] >= lo && p[1] <= hi && IsContinuation(p[2]) ? 3 : 0;
  }
  if (c < 0xF5) {
    if (avail < 4) return 0;
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;
    return p[1] >= lo && p[1] <= hi && IsContinuation(p[2]) && IsContinuation(p[3]) ? 4 : 0;
  }
  return 0;
}

constexpr bool IsLineSeparator(const unsigned char* p, size_t avail) {
  return avail >= 3 && p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9);
}

// Returns the index of the first byte in s[i, n) that cannot be copied verbatim between a JSON
// string literal and its value: an ASCII quote, backslash or control, the first byte of an
// ill-formed UTF-8 sequence, or (when asked) U+2028/U+2029; n when there is none. Callers append
// whole runs at once.
template <bool kStopAtLineSeparators>
size_t ScanVerbatim(const unsigned char* s, size_t i, size_t n) {
  for (;;) {
    while (n - i >= 8 && !WordNeedsAttention(LoadWord(s + i))) i += 8;
    while (i < n && kPlainByte[s[i]]) ++i;
    if (i == n || s[i] < 0x80) return i;
    const size_t len = Utf8SequenceLength(s + i, n - i);
    if (len == 0) return i;
    if (kStopAtLineSeparators && IsLineSeparator(s + i, n - i)) return i;
    i += len;
  }
}

// The one-letter escapes, as {letter, byte}. '/' is only ever read: writers have no reason to
// escape it.
constexpr char kShortEscapes[][2] = {{'"', '"'},  {'\\', '\\'}, {'b', '\b'}, {'f', '\f'},
                                     {'n', '\n'}, {'r', '\r'},  {'t', '\t'}};

// Letter after a backslash -> byte it stands for (0: not a one-letter escape).
constexpr std::array<char, 256> kUnescape = [] {
  std::array<char, 256> t{};
  for (const auto& e : kShortEscapes) t[static_cast<unsigned char>(e[0])] = e[1];
  t['/'] = '/';
  return t;
}();

// Byte -> letter of its one-letter escape (0: needs \u00XX or no escape).
constexpr std::array<char, 256> kEscapeLetter = [] {
  std::array<char, 256> t{};
  for (const auto& e : kShortEscapes) t[static_cast<unsigned char>(e[1])] = e[0];
  return t;
}();

inline int HexDigit(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

void AppendUtf8(uint32_t cp, std::string* out) {
  char buf[4];
  size_t len;
  if (cp < 0x80) {
    buf[0] = static_cast<char>(cp);
    len = 1;
  } else if (cp < 0x800) {
    buf[0] = static_cast<char>(0xC0 | (cp >> 6));
    buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
    len = 2;
  } else if (cp < 0x10000) {
    buf[0] = static_cast<char>(0xE0 | (cp >> 12));
    buf[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[2] = static_cast<char>(0x80 | (cp & 0x3F));
    len = 3;
  } else {
    buf[0] = static_cast<char>(0xF0 | (cp >> 18));
    buf[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    buf[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[3] = static_cast<char>(0x80 | (cp & 0x3F));
    len = 4;
  }
  out->append(buf, len);
}

class Parser {
 public:
  Parser(std::string_view input, const JsonLimits& limits)
      : s_(reinterpret_cast<const unsigned char*>(input.data())),
        n_(input.size()),
        max_depth_(limits.max_depth < kJsonMaxDepthCeiling ? limits.max_depth
                                                           : kJsonMaxDepthCeiling),
        max_elements_(limits.max_elements),
        reject_duplicate_keys_(limits.reject_duplicate_keys) {}

  bool ParseDocument(JsonValue* out) {
    SkipSpace();
    if (pos_ == n_) return Fail(pos_, "empty document");
    if (!ParseValue(out, 0)) return false;
    SkipSpace();
    if (pos_ != n_) return Fail(pos_, "unexpected data after the document");
    return true;
  }

  const JsonError& error() const { return error_; }

 private:
  // Kept out of line so the recursive ParseValue frame holds no std::string temporaries.
  [[gnu::noinline, gnu::cold]] bool Fail(size_t offset, const char* message) {
    error_.offset = offset;
    error_.message = message;
    return false;
  }
  [[gnu::noinline, gnu::cold]] bool FailLimit(size_t offset, const char* what, size_t limit) {
    error_.offset = offset;
    error_.message = what;
    error_.message += std::to_string(limit);
    return false;
  }

  // Hosts parse payloads with JSON.parse or serde, which keep the last of duplicate keys; a reader
  // that kept the first would judge a different call than the host runs. So a duplicate is an
  // error. Small objects are checked pairwise (no allocation); large ones through a sorted copy of
  // the keys.
  [[gnu::noinline]] bool CheckUniqueKeys(const JsonValue& object, size_t offset) {
    const auto& m = object.members;
    const std::string* duplicate = nullptr;
    if (m.size() <= 16) {
      for (size_t i = 1; i < m.size() && duplicate == nullptr; ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (m[i].first == m[j].first) {
            duplicate = &m[i].first;
            break;
          }
        }
      }
    } else {
      std::vector<const std::string*> keys;
      keys.reserve(m.size());
      for (const auto& member : m) keys.push_back(&member.first);
      std::sort(keys.begin(), keys.end(), [](auto* a, auto* b) { return *a < *b; });
      auto it =
          std::adjacent_find(keys.begin(), keys.end(), [](auto* a, auto* b) { return *a == *b; });
      if (it != keys.end()) duplicate = *it;
    }
    if (duplicate == nullptr) return true;
    error_.offset = offset;
    error_.message = "duplicate key " + DescribeKey(*duplicate) + " in object";
    error_.duplicate_key = *duplicate;
    return false;
  }

  // Names a key in an error only when it looks like a field name (letters, '_', '-', '.', some
  // lower case; no digits, which nearly every token has): a key could itself be a secret, and
  // errors reach the host's UI.
  static std::string DescribeKey(const std::string& key) {
    const bool nameish =
        !key.empty() && key.size() <= 40 &&
        std::any_of(key.begin(), key.end(), [](unsigned char c) { return std::islower(c); }) &&
        std::all_of(key.begin(), key.end(), [](unsigned char c) {
          return std::isalpha(c) || c == '_' || c == '-' || c == '.';
        });
    return nameish ? "'" + key + "'" : "(" + std::to_string(key.size()) + " bytes, not shown)";
  }

  void SkipSpace() {
    while (pos_ < n_) {
      const unsigned char c = s_[pos_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
      ++pos_;
    }
  }

  // `depth` counts the containers enclosing `v`. The check happens before descending, so the
  // deepest recursion is bounded by max_depth whatever the input holds.
  bool ParseValue(JsonValue* v, size_t depth) {
    SkipSpace();
    if (pos_ == n_) return Fail(pos_, "unexpected end of input, expected a value");
    if (++elements_ > max_elements_) return FailLimit(pos_, "more values than ", max_elements_);
    switch (s_[pos_]) {
      case '[': {
        if (depth >= max_depth_) return FailLimit(pos_, "nesting deeper than ", max_depth_);
        v->type = JsonType::kArray;
        ++pos_;
        SkipSpace();
        if (pos_ < n_ && s_[pos_] == ']') {
          ++pos_;
          return true;
        }
        for (;;) {
          v->items.emplace_back();
          if (!ParseValue(&v->items.back(), depth + 1)) return false;
          SkipSpace();
          if (pos_ == n_) return Fail(pos_, "unterminated array");
          const unsigned char c = s_[pos_++];
          if (c == ']') return true;
          if (c != ',') return Fail(pos_ - 1, "expected ',' or ']' in array");
        }
      }
      case '{': {
        if (depth >= max_depth_) return FailLimit(pos_, "nesting deeper than ", max_depth_);
        v->type = JsonType::kObject;
        ++pos_;
        SkipSpace();
        if (pos_ < n_ && s_[pos_] == '}') {
          ++pos_;
          return true;
        }
        for (;;) {
          SkipSpace();
          if (pos_ == n_) return Fail(pos_, "unterminated object");
          if (s_[pos_] != '"') return Fail(pos_, "expected a string key in object");
          v->members.emplace_back();
          auto& member = v->members.back();
          if (!ParseString(&member.first)) return false;
          SkipSpace();
          if (pos_ == n_) return Fail(pos_, "unterminated object");
          if (s_[pos_] != ':') return Fail(pos_, "expected ':' after object key");
          ++pos_;
          if (!ParseValue(&member.second, depth + 1)) return false;
          SkipSpace();
          if (pos_ == n_) return Fail(pos_, "unterminated object");
          const unsigned char c = s_[pos_++];
          if (c == '}') return !reject_duplicate_keys_ || CheckUniqueKeys(*v, pos_ - 1);
          if (c != ',') return Fail(pos_ - 1, "expected ',' or '}' in object");
        }
      }
      case '"':
        v->type = JsonType::kString;
        return ParseString(&v->text);
      case 't':
        v->type = JsonType::kBool;
        v->boolean = true;
        return ParseLiteral("true", 4);
      case 'f':
        v->type = JsonType::kBool;
        return ParseLiteral("false", 5);
      case 'n':
        return ParseLiteral("null", 4);
      default:
        if (s_[pos_] == '-' || IsDigit(s_[pos_])) return ParseNumber(v);
        return Fail(pos_, "expected a value");
    }
  }

  bool ParseLiteral(const char* word, size_t len) {
    if (n_ - pos_ < len || std::memcmp(s_ + pos_, word, len) != 0) {
      return Fail(pos_, "invalid literal");
    }
    pos_ += len;
    return true;
  }

  bool ParseNumber(JsonValue* v) {
    const size_t start = pos_;
    size_t i = pos_;
    if (s_[i] == '-') ++i;
    if (i == n_ || !IsDigit(s_[i])) return Fail(i, "expected a digit in number");
    if (s_[i] == '0') {
      ++i;
      if (i < n_ && IsDigit(s_[i])) return Fail(i, "leading zero in number");
    } else {
      while (i < n_ && IsDigit(s_[i])) ++i;
    }
    if (i < n_ && s_[i] == '.') {
      ++i;
      if (i == n_ || !IsDigit(s_[i])) return Fail(i, "expected a digit after '.'");
      while (i < n_ && IsDigit(s_[i])) ++i;
    }
    if (i < n_ && (s_[i] == 'e' || s_[i] == 'E')) {
      ++i;
      if (i < n_ && (s_[i] == '+' || s_[i] == '-')) ++i;
      if (i == n_ || !IsDigit(s_[i])) return Fail(i, "expected a digit in exponent");
      while (i < n_ && IsDigit(s_[i])) ++i;
    }
    v->type = JsonType::kNumber;
    v->text.assign(reinterpret_cast<const char*>(s_ + start), i - start);
    pos_ = i;
    return true;
  }

  // Reads four hex digits at s_[i]; -1 when they are missing or malformed.
  int32_t ReadHex4(size_t i) const {
    if (n_ - i < 4) return -1;
    int32_t cp = 0;
    for (size_t k = 0; k < 4; ++k) {
      const int d = HexDigit(s_[i + k]);
      if (d < 0) return -1;
      cp = cp * 16 + d;
    }
    return cp;
  }

  // Decodes the escape whose backslash is at s_[*i], appending its UTF-8 to dst and advancing *i.
  bool ParseEscape(size_t* i, std::string* dst) {
    const size_t at = *i;
    if (n_ - at < 2) return Fail(at, "unterminated string");
    const unsigned char letter = s_[at + 1];
    if (kUnescape[letter] != 0) {
      dst->push_back(kUnescape[letter]);
      *i = at + 2;
      return true;
    }
    if (letter != 'u') return Fail(at, "invalid escape in string");
    const int32_t unit = ReadHex4(at + 2);
    if (unit < 0) return Fail(at, "invalid \\u escape");
    uint32_t cp = static_cast<uint32_t>(unit);
    *i = at + 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail(at, "lone surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      // JSON spells astral code points as UTF-16 pairs; half a pair has no UTF-8 encoding.
      const int32_t low =
          n_ - *i >= 2 && s_[*i] == '\\' && s_[*i + 1] == 'u' ? ReadHex4(*i + 2) : -1;
      if (low < 0xDC00 || low > 0xDFFF) return Fail(at, "lone surrogate in \\u escape");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00);
      *i += 6;
    }
    AppendUtf8(cp, dst);
    return true;
  }

  // Bytes from `i` to the closing quote of the string `i` is in (an escape's backslash skips the
  // next byte); to the end of the text when it is not closed (the parse then fails anyway).
  size_t RawLengthFrom(size_t i) const {
    size_t j = i;
    while (j < n_) {
      const void* q = std::memchr(s_ + j, '"', n_ - j);
      if (q == nullptr) return n_ - i;
      const size_t quote = static_cast<size_t>(static_cast<const unsigned char*>(q) - s_);
      size_t backslashes = 0;
      while (quote - backslashes > i && s_[quote - backslashes - 1] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return quote - i;
      j = quote + 1;
    }
    return n_ - i;
  }

  // Expects s_[pos_] to be the opening quote. Verbatim runs are appended whole, so a long string
  // without escapes costs one scan and one copy.
  bool ParseString(std::string* dst) {
    const size_t open = pos_;
    size_t i = pos_ + 1;
    size_t run = i;
    for (;;) {
      i = ScanVerbatim<false>(s_, i, n_);
      if (i == n_) return Fail(open, "unterminated string");
      const unsigned char c = s_[i];
      if (c == '"') {
        dst->append(reinterpret_cast<const char*>(s_ + run), i - run);
        pos_ = i + 1;
        return true;
      }
      if (c == '\\') {
        // The first escape: reserve up to the closing quote (escapes only shrink the text), so a
        // long string with many escapes (a file's content, one \n per line) is not grown by
        // doubling, each step copying onto fresh pages.
        if (run == open + 1) dst->reserve(dst->size() + RawLengthFrom(i) + (i - run));
        dst->append(reinterpret_cast<const char*>(s_ + run), i - run);
        if (!ParseEscape(&i, dst)) return false;
        run = i;
        continue;
      }
      if (c < 0x20) return Fail(i, "unescaped control character in string");
      return Fail(i, "invalid UTF-8 in string");
    }
  }

  const unsigned char* s_;
  size_t n_;
  size_t pos_ = 0;
  size_t max_depth_;
  size_t max_elements_;
  bool reject_duplicate_keys_;
  size_t elements_ = 0;
  JsonError error_;
};

}  // namespace

JsonValue::JsonValue() = default;
JsonValue::JsonValue(const JsonValue&) = default;
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(const JsonValue&) = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;
JsonValue::~JsonValue() = default;

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (type != JsonType::kObject) return nullptr;
  for (const auto& [name, value] : members) {
    if (name == key) return &value;
  }
  return nullptr;
}

const std::string* JsonValue::FindString(std::string_view key) const {
  const JsonValue* v = Find(key);
  return v != nullptr && v->type == JsonType::kString ? &v->text : nullptr;
}

bool ParseJson(std::string_view input, const JsonLimits& limits, JsonValue* out, JsonError* error) {
  JsonValue scratch;
  JsonValue* target = out != nullptr ? out : &scratch;
  *target = JsonValue();
  if (input.size() > limits.max_bytes) {
    if (error != nullptr) {
      error->offset = limits.max_bytes;
      error->message = "document larger than " + std::to_string(limits.max_bytes) + " bytes";
    }
    return false;
  }
  Parser parser(input, limits);
  if (!parser.ParseDocument(target)) {
    if (error != nullptr) *error = parser.error();
    return false;
  }
  return true;
}

void AppendJsonString(std::string_view s, std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  out->reserve(out->size() + n + 2);
  out->push_back('"');
  size_t i = 0;
  size_t run = 0;
  auto flush = [&](size_t end) { out->append(s.data() + run, end - run); };
  static constexpr char kHex[] = "0123456789abcdef";
  for (;;) {
    i = ScanVerbatim<true>(p, i, n);
    if (i == n) break;
    const unsigned char c = p[i];
    if (c >= 0x80) {
      flush(i);
      // U+2028/U+2029 are legal in JSON but end a line in JavaScript source; escaping them keeps
      // the output safe to embed in script.
      if (IsLineSeparator(p + i, n - i)) {
        out->append(p[i + 2] == 0xA8 ? "\\u2028" : "\\u2029");
        i += 3;
      } else {
        out->append("\\ufffd");
        i += 1;
      }
      run = i;
      continue;
    }
    flush(i);
    if (kEscapeLetter[c] != 0) {
      const char esc[2] = {'\\', kEscapeLetter[c]};
      out->append(esc, sizeof esc);
    } else {
      const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out->append(esc, sizeof esc);
    }
    ++i;
    run = i;
  }
  flush(n);
  out->push_back('"');
}

namespace {
// `indent` 0: compact. Otherwise one member or element per line, nested `depth` levels deep.
void AppendValue(const JsonValue& v, int indent, int depth, std::string* out) {
  auto newline = [&](int level) {
    if (indent == 0) return;
    out->push_back('\n');
    out->append(static_cast<size_t>(indent * level), ' ');
  };
  switch (v.type) {
    case JsonType::kNull:
      out->append("null");
      return;
    case JsonType::kBool:
      out->append(v.boolean ? "true" : "false");
      return;
    case JsonType::kNumber:
      out->append(v.text);
      return;
    case JsonType::kString:
      AppendJsonString(v.text, out);
      return;
    case JsonType::kArray:
      out->push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out->push_back(',');
        newline(depth + 1);
        AppendValue(v.items[i], indent, depth + 1, out);
      }
      if (!v.items.empty()) newline(depth);
      out->push_back(']');
      return;
    case JsonType::kObject:
      out->push_back('{');
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i > 0) out->push_back(',');
        newline(depth + 1);
        AppendJsonString(v.members[i].first, out);
        out->append(indent == 0 ? ":" : ": ");
        AppendValue(v.members[i].second, indent, depth + 1, out);
      }
      if (!v.members.empty()) newline(depth);
      out->push_back('}');
      return;
  }
}
}  // namespace

void AppendJsonValue(const JsonValue& v, std::string* out, int indent) {
  AppendValue(v, indent < 0 ? 0 : indent, 0, out);
}

}  // namespace doberman::internal
