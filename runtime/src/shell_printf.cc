// What echo and printf print, worked out from their literal words (see shell_printf.h).
#include "shell_printf.h"

#include "utf8.h"

namespace doberman::internal::shell_printf {
namespace {

int DigitValue(char c, int base) {
  int v = -1;
  if (c >= '0' && c <= '9') v = c - '0';
  if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
  if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
  return v < base ? v : -1;
}

// Reads up to `max_digits` digits of `base` from text[*k] on (moving *k past them) into *value;
// the number of digits read.
size_t ReadNumber(std::string_view text, size_t* k, int base, size_t max_digits, uint32_t* value) {
  size_t n = 0;
  *value = 0;
  while (n < max_digits && *k < text.size()) {
    const int d = DigitValue(text[*k], base);
    if (d < 0) break;
    *value = *value * static_cast<uint32_t>(base) + static_cast<uint32_t>(d);
    ++*k;
    ++n;
  }
  return n;
}

}  // namespace

char SimpleEscape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'v':
      return '\v';
    case 'e':
    case 'E':
      return '\x1b';
    case '\\':
    case '"':
    case '\'':
    case '?':
      return c;
    default:
      return 0;
  }
}

bool AppendEscaped(std::string_view text, Escapes style, std::string* out, bool* stop) {
  for (size_t k = 0; k < text.size();) {
    const char c = text[k++];
    if (c != '\\' || k == text.size()) {
      out->push_back(c);  // a trailing lone backslash prints as itself
      continue;
    }
    const char e = text[k++];
    if (const char simple = SimpleEscape(e); simple != 0) {
      out->push_back(simple);
      continue;
    }
    uint32_t value = 0;
    if (e == 'c' && style == Escapes::kEcho) {
      if (stop != nullptr) *stop = true;
      return true;
    }
    if (e == 'x') {
      if (ReadNumber(text, &k, 16, 2, &value) == 0) return false;
      out->push_back(static_cast<char>(value));
    } else if (e == 'u' || e == 'U') {
      if (ReadNumber(text, &k, 16, e == 'u' ? 4 : 8, &value) == 0 || value > 0x10FFFF) return false;
      char bytes[4];
      out->append(bytes, EncodeUtf8(value, bytes));
    } else if (e >= '0' && e <= '7') {
      // printf's format: \N, \NN, \NNN; echo -e and %b: \0, \0N .. \0NNN.
      if (style == Escapes::kEcho) {
        if (e != '0') return false;
      } else {
        --k;
      }
      ReadNumber(text, &k, 8, 3, &value);
      out->push_back(static_cast<char>(value & 0xFF));
    } else {
      return false;
    }
  }
  return true;
}

bool FormatPrintf(std::string_view format, std::span<const std::string_view> args, size_t max_bytes,
                  std::string* out) {
  out->clear();
  size_t next = 0;
  for (;;) {
    bool took = false;
    for (size_t k = 0; k < format.size(); ++k) {
      const char c = format[k];
      if (c == '\\') {
        // One escape at a time: its length is what AppendEscaped reads, so find where it ends.
        size_t end = k + 1;
        if (end < format.size()) {
          const char e = format[end++];
          const size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
          auto more = [&](int base, size_t n) {
            for (size_t m = 0; m < n && end < format.size() && DigitValue(format[end], base) >= 0;
                 ++m)
              ++end;
          };
          if (digits > 0) more(16, digits);
          if (e >= '0' && e <= '7') more(8, 2);
        }
        if (!AppendEscaped(format.substr(k, end - k), Escapes::kFormat, out)) return false;
        k = end - 1;
      } else if (c == '%') {
        if (++k == format.size()) return false;
        const char d = format[k];
        if (d == '%') {
          out->push_back('%');
          continue;
        }
        if (d != 's' && d != 'b' && d != 'd' && d != 'i' && d != 'c') return false;
        took = true;
        if (next < args.size()) {
          const std::string_view arg = args[next++];
          if (d == 'b') {
            bool stop = false;
            if (!AppendEscaped(arg, Escapes::kEcho, out, &stop)) return false;
            if (stop) return out->size() <= max_bytes;
          } else if (d == 'c') {
            out->append(arg.substr(0, 1));
          } else {
            out->append(arg);
          }
        }
      } else {
        out->push_back(c);
      }
      if (out->size() > max_bytes) return false;
    }
    if (!took || next >= args.size()) break;
  }
  return out->size() <= max_bytes;
}

}  // namespace doberman::internal::shell_printf
