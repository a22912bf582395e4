// Lexical rules shared by the DSL front-end and printer (see dsl_lexical.h).
#include "dsl_lexical.h"

#include <algorithm>
#include <cstdio>

namespace doberman::compiler::dsl {
namespace {

// Characters that are invisible, look like blanks, or reorder text (Trojan Source): always escaped
// when printing, so that a rule file shows what it says.
bool IsInvisible(uint32_t c) {
  return (c >= 0x80 && c <= 0xA0) || c == 0xAD || c == 0x34F || c == 0x61C || c == 0x115F ||
         c == 0x1160 || c == 0x17B4 || c == 0x17B5 || (c >= 0x180B && c <= 0x180F) ||
         (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
         (c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0x3164 ||
         (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF || c == 0xFFA0 ||
         (c >= 0xFFF0 && c <= 0xFFFB) || (c >= 0x1D173 && c <= 0x1D17A) ||
         (c >= 0xE0000 && c <= 0xE0FFF) || (c >= 0xF0000);  // planes 15-16: private use
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendHexByte(unsigned char b, std::string* out) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", b);
  out->append(buf);
}

}  // namespace

size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* code_point) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    *code_point = b0;
    return 1;
  }
  size_t len;
  uint32_t cp, min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return len;
}

void AppendUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

void ToCodePoints(std::string_view bytes, std::u32string* code_points,
                  std::vector<size_t>* offsets) {
  code_points->clear();
  offsets->clear();
  code_points->reserve(bytes.size());
  offsets->reserve(bytes.size() + 1);
  size_t i = 0;
  while (i < bytes.size()) {
    uint32_t cp = 0;
    size_t len = DecodeUtf8(bytes, i, &cp);
    if (len == 0) {
      cp = 0x10FF00u + static_cast<unsigned char>(bytes[i]);
      len = 1;
    }
    code_points->push_back(static_cast<char32_t>(cp));
    offsets->push_back(i);
    i += len;
  }
  offsets->push_back(bytes.size());
}

const std::vector<std::string>& Keywords() {
  static const std::vector<std::string> kKeywords = {"rule",
                                                     "shell",
                                                     "pack",
                                                     "description",
                                                     "scopes",
                                                     "verdict",
                                                     "tier",
                                                     "reason",
                                                     "message",
                                                     "tags",
                                                     "origins",
                                                     "any",
                                                     "all",
                                                     "none",
                                                     "excuse",
                                                     "validators",
                                                     "min_entropy",
                                                     "min_length",
                                                     "placeholder",
                                                     "exempt",
                                                     "decode",
                                                     "mention",
                                                     "mention_marker",
                                                     "match",
                                                     "pass",
                                                     "tool",
                                                     "command",
                                                     "path",
                                                     "cwd",
                                                     "content",
                                                     "url",
                                                     "prompt",
                                                     "origin",
                                                     "args",
                                                     "wrappers",
                                                     "value_options",
                                                     "positional",
                                                     "shells",
                                                     "split_flags",
                                                     "stdin_programs",
                                                     "runners",
                                                     "alias",
                                                     "version",
                                                     "revision",
                                                     "expires",
                                                     "include",
                                                     "exclude_rules",
                                                     "platforms",
                                                     "limits",
                                                     "define",
                                                     "when"};
  return kKeywords;
}

bool IsKeyword(std::string_view word) {
  const auto& k = Keywords();
  return std::find(k.begin(), k.end(), word) != k.end();
}

bool IsWordText(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string DecodeString(std::string_view body, std::vector<EscapeProblem>* problems) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i + 1 >= body.size()) {
      problems->push_back({i, 1, "a backslash ends the string"});
      break;
    }
    char e = body[i + 1];
    switch (e) {
      case '"':
        out.push_back('"');
        ++i;
        continue;
      case '\\':
        out.push_back('\\');
        ++i;
        continue;
      case 'n':
        out.push_back('\n');
        ++i;
        continue;
      case 't':
        out.push_back('\t');
        ++i;
        continue;
      case 'r':
        out.push_back('\r');
        ++i;
        continue;
      case '0':
        out.push_back('\0');
        ++i;
        continue;
      case 'x': {
        int hi = i + 2 < body.size() ? HexValue(body[i + 2]) : -1;
        int lo = i + 3 < body.size() ? HexValue(body[i + 3]) : -1;
        if (hi < 0 || lo < 0) {
          size_t len = 2 + (hi >= 0 ? 1 : 0);
          problems->push_back({i, len, "\\x needs two hex digits"});
          i += len - 1;
          continue;
        }
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 3;
        continue;
      }
      case 'u': {
        size_t j = i + 2;
        if (j >= body.size() || body[j] != '{') {
          problems->push_back({i, 2, "\\u needs braces: \\u{1F600}"});
          ++i;
          continue;
        }
        ++j;
        uint32_t cp = 0;
        size_t digits = 0;
        while (j < body.size() && HexValue(body[j]) >= 0 && digits < 7) {
          cp = cp * 16 + static_cast<uint32_t>(HexValue(body[j]));
          ++j;
          ++digits;
        }
        bool closed = j < body.size() && body[j] == '}';
        size_t len = (closed ? j + 1 : j) - i;
        if (!closed || digits == 0 || digits > 6) {
          problems->push_back({i, len, "\\u{...} needs 1 to 6 hex digits and a closing brace"});
        } else if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          problems->push_back({i, len, "\\u{...} is not a Unicode scalar value"});
        } else {
          AppendUtf8(cp, &out);
        }
        i += len - 1;
        continue;
      }
      default: {
        uint32_t cp = 0;
        size_t len = DecodeUtf8(body, i + 1, &cp);
        problems->push_back({i, 1 + std::max<size_t>(len, 1),
                             "unknown escape; use \\\" \\\\ \\n \\t \\r \\0 \\xHH or \\u{...}"});
        i += std::max<size_t>(len, 1);
        continue;
      }
    }
  }
  return out;
}

void AppendQuotedAscii(unsigned char c, std::string* out) {
  switch (c) {
    case '"':
      *out += "\\\"";
      break;
    case '\\':
      *out += "\\\\";
      break;
    case '\n':
      *out += "\\n";
      break;
    case '\t':
      *out += "\\t";
      break;
    case '\r':
      *out += "\\r";
      break;
    default:
      if (c < 0x20 || c == 0x7F) {
        AppendHexByte(c, out);
      } else {
        out->push_back(static_cast<char>(c));
      }
  }
}

std::string QuoteString(std::string_view value) {
  std::string out = "\"";
  for (size_t i = 0; i < value.size();) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    if (c < 0x80) {
      AppendQuotedAscii(c, &out);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    size_t len = DecodeUtf8(value, i, &cp);
    if (len == 0) {
      AppendHexByte(c, &out);
      ++i;
    } else if (IsInvisible(cp)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%X}", cp);
      out += buf;
      i += len;
    } else {
      out.append(value.substr(i, len));
      i += len;
    }
  }
  out.push_back('"');
  return out;
}

std::string DecodeRegexBody(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size()) {
      if (body[i + 1] != '/') out.push_back('\\');
      out.push_back(body[i + 1]);
      ++i;
      continue;
    }
    out.push_back(body[i]);
  }
  return out;
}

bool EncodeRegexBody(std::string_view regex, std::string* body) {
  body->clear();
  if (regex.empty() || regex[0] == '*') return false;
  bool after_backslash = false;
  for (size_t i = 0; i < regex.size();) {
    unsigned char c = static_cast<unsigned char>(regex[i]);
    if (c < 0x20 || c == 0x7F) return false;
    if (c >= 0x80) {
      uint32_t cp = 0;
      size_t len = DecodeUtf8(regex, i, &cp);
      if (len == 0 || IsInvisible(cp)) return false;
      body->append(regex.substr(i, len));
      i += len;
      after_backslash = false;
      continue;
    }
    if (after_backslash) {
      if (c == '/') return false;  // `\/` as written would read back as `/`
      body->push_back(static_cast<char>(c));
      after_backslash = false;
    } else if (c == '\\') {
      body->push_back('\\');
      after_backslash = true;
    } else if (c == '/') {
      body->append("\\/");
    } else {
      body->push_back(static_cast<char>(c));
    }
    ++i;
  }
  return !after_backslash;  // a trailing backslash would escape the closing slash
}

const char* FlagForLetter(char letter) {
  switch (letter) {
    case 'i':
      return "caseless";
    case 's':
      return "dotall";
    case 'm':
      return "multiline";
    case '8':
      return "utf8";
    case 'u':
      return "ucp";
    default:
      return nullptr;
  }
}

char LetterForFlag(std::string_view flag) {
  if (flag == "caseless") return 'i';
  if (flag == "dotall") return 's';
  if (flag == "multiline") return 'm';
  if (flag == "utf8") return '8';
  if (flag == "ucp") return 'u';
  return 0;
}

bool IsBareWhenText(std::string_view expr) {
  if (expr.empty()) return false;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\f'; };
  if (blank(expr.front()) || blank(expr.back())) return false;
  for (char c : expr) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t') return false;
    if (u >= 0x7F) return false;  // keep non-ASCII in strings, where it is escaped when needed
    if (c == '{' || c == '}' || c == '"' || c == '/' || c == '#') return false;
  }
  return true;
}

}  // namespace doberman::compiler::dsl
