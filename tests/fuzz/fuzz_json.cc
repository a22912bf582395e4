// Fuzz target for the hook-payload JSON reader: any input must parse or fail cleanly, and whatever
// parses must survive re-serialization through AppendJsonString unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "json.h"

namespace {

using doberman::internal::AppendJsonString;
using doberman::internal::AppendJsonValue;
using doberman::internal::JsonError;
using doberman::internal::JsonLimits;
using doberman::internal::JsonType;
using doberman::internal::JsonValue;
using doberman::internal::ParseJson;

// Small limits keep the fuzzer on the limit paths and keep each run cheap; the recursion below is
// bounded by the same max_depth the parser enforced.
constexpr JsonLimits kLimits = {/*max_depth=*/24, /*max_bytes=*/64 << 10, /*max_elements=*/4096};

// abort() rather than assert(): the check must also hold in builds that define NDEBUG.
void Check(bool ok) {
  if (!ok) std::abort();
}

bool Equal(const JsonValue& a, const JsonValue& b) {
  if (a.type != b.type || a.boolean != b.boolean || a.text != b.text) return false;
  if (a.items.size() != b.items.size() || a.members.size() != b.members.size()) return false;
  for (size_t i = 0; i < a.items.size(); ++i) {
    if (!Equal(a.items[i], b.items[i])) return false;
  }
  for (size_t i = 0; i < a.members.size(); ++i) {
    if (a.members[i].first != b.members[i].first) return false;
    if (!Equal(a.members[i].second, b.members[i].second)) return false;
  }
  return true;
}

// Independent of the library's UTF-8 tables: decodes by code point arithmetic and replaces each
// byte outside a well-formed sequence by U+FFFD, which is what AppendJsonString promises.
std::string SanitizeUtf8(std::string_view s) {
  static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    const size_t len = b0 < 0x80           ? 1
                       : (b0 >> 5) == 0x6  ? 2
                       : (b0 >> 4) == 0xE  ? 3
                       : (b0 >> 3) == 0x1E ? 4
                                           : 0;
    bool ok = len != 0 && i + len <= s.size();
    uint32_t cp = b0 & (0x7F >> len);
    for (size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      ok = (b & 0xC0) == 0x80;
      cp = (cp << 6) | (b & 0x3F);
    }
    ok = ok && cp >= kMinForLength[len] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  JsonValue doc;
  JsonError error;
  if (ParseJson(input, kLimits, &doc, &error)) {
    // Parsed strings are valid UTF-8, so escaping must be lossless and the tree must come back
    // equal. Escapes can triple a string's size (U+2028 -> \u2028), hence the larger byte budget.
    std::string text;
    AppendJsonValue(doc, &text);
    JsonLimits relaxed = kLimits;
    relaxed.max_bytes = 3 * size + 16;
    JsonValue again;
    Check(ParseJson(text, relaxed, &again, &error));
    Check(Equal(doc, again));
    // Lookups must agree with the first matching member.
    if (doc.type == JsonType::kObject && !doc.members.empty()) {
      const std::string& key = doc.members.back().first;
      const JsonValue* found = doc.Find(key);
      Check(found != nullptr);
      for (const auto& member : doc.members) {
        if (member.first == key) {
          Check(found == &member.second);
          break;
        }
      }
    }
  } else {
    Check(!error.message.empty() && error.offset <= size);
  }

  // Arbitrary bytes must always come out as one well-formed JSON string literal.
  std::string quoted;
  AppendJsonString(input, &quoted);
  JsonValue s;
  JsonLimits unlimited;
  unlimited.max_bytes = quoted.size();
  Check(ParseJson(quoted, unlimited, &s, &error) && s.type == JsonType::kString);
  Check(s.text == SanitizeUtf8(input));
  return 0;
}
