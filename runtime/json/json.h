// A small, strict, bounded JSON reader and string escaper for doberman-guard's hook payloads.
// Runtime side: the runtime may not link a general JSON library, and hook payloads are untrusted
// input, so this parser is fuzzed and every limit (depth, size, element count) fails with an error
// instead of recursing or growing.
#ifndef DOBERMAN_RUNTIME_JSON_H_
#define DOBERMAN_RUNTIME_JSON_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doberman::internal {

enum class JsonType : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

// A parsed value. Strings are unescaped UTF-8 (\uXXXX and surrogate pairs decoded; a lone surrogate
// is an error). Numbers keep their source text. Object members keep source order. Duplicate keys
// are an error by default (JsonLimits::reject_duplicate_keys); when allowed, lookups return the
// first.
struct JsonValue {
  JsonType type = JsonType::kNull;
  bool boolean = false;
  std::string text;                                        // string value, or number text
  std::vector<JsonValue> items;                            // array elements
  std::vector<std::pair<std::string, JsonValue>> members;  // object members

  // Declared here, defaulted in json.cc: clang (14, with libstdc++ 12 in C++20) cannot define them
  // implicitly for this self-referential type.
  JsonValue();
  JsonValue(const JsonValue&);
  JsonValue(JsonValue&&) noexcept;
  JsonValue& operator=(const JsonValue&);
  JsonValue& operator=(JsonValue&&) noexcept;
  ~JsonValue();

  // Returns the first member named `key`, or nullptr (also when this is not an object).
  const JsonValue* Find(std::string_view key) const;
  // Returns the string value of member `key`, or nullptr when missing or not a string.
  const std::string* FindString(std::string_view key) const;
};

// A max_depth above this is lowered to it: parsing (and JsonValue's destructor) recurse once per
// nesting level, and this keeps that recursion well inside a small thread stack whatever limits a
// caller passes.
inline constexpr size_t kJsonMaxDepthCeiling = 1000;

struct JsonLimits {
  size_t max_depth = 64;
  size_t max_bytes = 64u << 20;
  size_t max_elements = 1u << 20;  // total values in the document
  // Hosts keep the last of duplicate keys (JSON.parse, serde); judging another value than the host
  // runs would be a bypass, so duplicates fail the parse unless a caller opts out.
  bool reject_duplicate_keys = true;
};

struct JsonError {
  size_t offset = 0;          // byte offset of the problem in the input
  std::string message;        // e.g. "unterminated string", "nesting deeper than 64"
  std::string duplicate_key;  // set when the error is a duplicate key (for callers, not for output)
};

// Parses exactly one JSON document (RFC 8259; surrounding white space allowed, nothing else after
// it). Returns false and fills `error` on any problem; `out` is then unspecified.
bool ParseJson(std::string_view input, const JsonLimits& limits, JsonValue* out, JsonError* error);

// Appends `s` as a JSON string literal (with quotes) to `out`, escaping ", \, control characters,
// and invalid UTF-8 bytes as \ufffd so that the output is always valid JSON.
void AppendJsonString(std::string_view s, std::string* out);

// Appends `v` as JSON text: numbers as their original text, strings through AppendJsonString,
// members in their order. Parsing the output gives back an equal value. `indent` > 0 writes one
// member or element per line, indented that many spaces per level (files people read and edit).
void AppendJsonValue(const JsonValue& v, std::string* out, int indent = 0);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_JSON_H_
