// Finding the quoted string values of JSON, Python-literal and YAML text (see data_strings.h). A
// lenient scanner, not a parser: tool output is often truncated or almost-JSON (Python reprs), and
// what matters is where a quoted value starts and ends, not whether the document is valid.
#include "data_strings.h"

#include <algorithm>
#include <cstdint>

#include "utf8.h"

namespace doberman::internal {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The closing quote of the literal opened at `open` (text[open] is the quote), looked for before
// `limit`, or npos. A literal does not span a raw line break (JSON and Python short strings
// cannot) unless `across_lines` (a YAML flow scalar). In a single-quoted literal a doubled quote
// is one quote, as YAML (and SQL) write it ('the file with ID ''13'''), not the end and a new
// start.
size_t ClosingQuote(std::string_view t, size_t open, size_t limit, bool across_lines) {
  const char q = t[open];
  for (size_t i = open + 1; i < limit; ++i) {
    if (t[i] == '\\') {
      ++i;
    } else if (t[i] == q && q == '\'' && i + 1 < limit && t[i + 1] == '\'') {
      ++i;
    } else if (t[i] == q) {
      return i;
    } else if (t[i] == '\n' && !across_lines) {
      return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

// Whether the literal at `open` stands where data syntax puts a value.
bool OpensValue(std::string_view t, size_t open) {
  size_t i = open;
  while (i > 0 && IsBlank(t[i - 1])) --i;
  if (i == 0 || t[i - 1] == '\n') return true;
  const char c = t[i - 1];
  if (c == '{' || c == '[' || c == ',' || c == ':' || c == '(' || c == '=') return true;
  // A YAML list item: `- "value"` at the start of a line.
  if (c == '-') {
    size_t k = i - 1;
    while (k > 0 && IsBlank(t[k - 1])) --k;
    return k == 0 || t[k - 1] == '\n';
  }
  return false;
}

bool ClosesValue(std::string_view t, size_t close) {
  size_t i = close + 1;
  while (i < t.size() && IsBlank(t[i])) ++i;
  if (i == t.size()) return true;
  const char c = t[i];
  return c == ',' || c == '}' || c == ']' || c == ':' || c == ')' || c == '\n';
}

void Unescape(std::string_view body, char quote, std::string* out) {
  out->clear();
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '\'' && quote == '\'' && i + 1 < body.size() && body[i + 1] == '\'') {
      out->push_back(c);  // YAML's doubled quote (ClosingQuote)
      ++i;
      continue;
    }
    if (c != '\\' || i + 1 == body.size()) {
      out->push_back(c);
      continue;
    }
    const char e = body[++i];
    switch (e) {
      case 'n':
        out->push_back('\n');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 'u':
      case 'x': {
        const size_t digits = e == 'u' ? 4 : 2;
        uint32_t cp = 0;
        size_t k = 0;
        for (; k < digits && i + 1 + k < body.size(); ++k) {
          const int h = HexDigit(body[i + 1 + k]);
          if (h < 0) break;
          cp = cp * 16 + static_cast<uint32_t>(h);
        }
        if (k != digits) {  // not an escape after all: keep it as written
          out->push_back('\\');
          out->push_back(e);
          break;
        }
        i += digits;
        char bytes[4];
        out->append(bytes, EncodeUtf8(cp, bytes));
        break;
      }
      default:  // \" \' \\ \/ and anything else: the character itself
        out->push_back(e);
        break;
    }
  }
}

// `key: value` (the key plain or quoted, at most 64 bytes) or `- item`, after indentation.
bool IsYamlLine(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && IsBlank(line[i])) ++i;
  if (line.compare(i, 2, "- ") == 0) return true;
  const size_t start = i;
  while (i < line.size() && i - start <= 64 && line[i] != ':' && line[i] != '#') ++i;
  if (i == start || i >= line.size() || line[i] != ':') return false;
  return i + 1 == line.size() || line[i + 1] == ' ';
}

}  // namespace

bool LooksStructured(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (IsBlank(text[i]) || text[i] == '\n')) ++i;
  if (i == text.size()) return false;
  if (text[i] == '{' || text[i] == '[') return true;
  // YAML: of the first 16 non-empty lines, at least two, and at least two thirds, are YAML-shaped.
  size_t lines = 0, yaml = 0;
  while (i < text.size() && lines < 16) {
    size_t end = text.find('\n', i);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(i, end - i);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      ++lines;
      if (IsYamlLine(line)) ++yaml;
    }
    i = end + 1;
  }
  return yaml >= 2 && yaml * 3 >= lines * 2;
}

bool NextDataString(std::string_view text, size_t* pos, std::string* value,
                    size_t* multiline_budget) {
  for (size_t i = *pos; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '"' && c != '\'') continue;
    const size_t close = ClosingQuote(text, i, text.size(), false);
    if (close == std::string_view::npos) {
      // No closing quote on its line: a YAML flow scalar may go on over the next lines (or the
      // text shows a JSON string with its \n escapes already turned into line breaks). Tried only
      // where a value opens, within the caller's budget of bytes crossed.
      if (multiline_budget == nullptr || *multiline_budget == 0 || !OpensValue(text, i)) continue;
      const size_t limit =
          std::min({text.size(), i + 1 + kMaxMultilineValueBytes, i + 1 + *multiline_budget});
      const size_t far = ClosingQuote(text, i, limit, true);
      const size_t crossed = (far == std::string_view::npos ? limit : far) - (i + 1);
      *multiline_budget -= std::min(crossed, *multiline_budget);
      if (far == std::string_view::npos || !ClosesValue(text, far)) continue;
      Unescape(text.substr(i + 1, far - i - 1), c, value);
      // Read on from just inside it, not past it: were the opening quote a stray one, the values it
      // spans are still handed out one by one (a value is never hidden inside a longer one).
      *pos = i + 1;
      return true;
    }
    if (!OpensValue(text, i) || !ClosesValue(text, close)) {
      // Not a value here; its body may still hold one (a quoted key's colon) only after it.
      i = close;
      continue;
    }
    Unescape(text.substr(i + 1, close - i - 1), c, value);
    *pos = close + 1;
    return true;
  }
  *pos = text.size();
  return false;
}

}  // namespace doberman::internal
