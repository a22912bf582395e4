// `rev` and `tr` worked out over known text (shell_text_filters.h), as GNU coreutils and
// util-linux define them for the forms read here.
#include "shell_text_filters.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace doberman::internal {
namespace {

// Each line's characters in reverse order; a UTF-8 sequence stays whole (rev works on characters).
void ReverseLines(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size());
  size_t start = 0;
  while (start <= in.size()) {
    size_t end = in.find('\n', start);
    if (end == std::string_view::npos) end = in.size();
    for (size_t k = end; k > start;) {
      size_t first = k - 1;  // back to the first byte of the character ending at k
      while (first > start && (static_cast<unsigned char>(in[first]) & 0xC0) == 0x80) --first;
      out->append(in.substr(first, k - first));
      k = first;
    }
    if (end == in.size()) break;
    out->push_back('\n');
    start = end + 1;
  }
}

// tr's SET as the bytes it lists, in order: `a-z` ranges and the escapes \\ \n \t \r \a \b \f \v
// and \NNN (octal). False for what tr reads otherwise ([:alpha:], [=c=], [c*n]) or a range that
// runs backwards.
bool ExpandSet(std::string_view set, std::string* bytes) {
  bytes->clear();
  if (set.find('[') != std::string_view::npos) return false;
  auto next = [&](size_t* k, unsigned char* c) {
    if (set[*k] != '\\' || *k + 1 == set.size()) {
      *c = static_cast<unsigned char>(set[(*k)++]);
      return true;
    }
    const char e = set[*k + 1];
    *k += 2;
    if (e >= '0' && e <= '7') {
      unsigned value = static_cast<unsigned>(e - '0');
      for (int n = 0; n < 2 && *k < set.size() && set[*k] >= '0' && set[*k] <= '7'; ++n)
        value = value * 8 + static_cast<unsigned>(set[(*k)++] - '0');
      if (value > 0xFF) return false;
      *c = static_cast<unsigned char>(value);
      return true;
    }
    static constexpr std::string_view kFrom = "ntrabfv\\";
    static constexpr std::string_view kTo = "\n\t\r\a\b\f\v\\";
    const size_t at = kFrom.find(e);
    *c = static_cast<unsigned char>(at == std::string_view::npos ? e : kTo[at]);
    return true;
  };
  for (size_t k = 0; k < set.size();) {
    unsigned char low = 0;
    if (!next(&k, &low)) return false;
    if (k + 1 < set.size() && set[k] == '-') {
      size_t after = k + 1;
      unsigned char high = 0;
      if (!next(&after, &high)) return false;
      if (high < low) return false;
      for (unsigned c = low; c <= high; ++c) bytes->push_back(static_cast<char>(c));
      k = after;
    } else {
      bytes->push_back(static_cast<char>(low));
    }
  }
  return true;
}

bool Translate(std::string_view set1, std::string_view set2, bool delete_chars, std::string_view in,
               std::string* out) {
  std::string from;
  std::string to;
  if (!ExpandSet(set1, &from) || from.empty()) return false;
  std::array<int16_t, 256> map{};
  for (size_t c = 0; c < map.size(); ++c) map[c] = static_cast<int16_t>(c);
  if (delete_chars) {
    for (char c : from) map[static_cast<unsigned char>(c)] = -1;
  } else {
    if (!ExpandSet(set2, &to) || to.empty()) return false;
    // A shorter SET2 is stretched with its last byte, as GNU tr does without -t.
    for (size_t k = 0; k < from.size(); ++k) {
      const char c = k < to.size() ? to[k] : to.back();
      map[static_cast<unsigned char>(from[k])] = static_cast<unsigned char>(c);
    }
  }
  out->clear();
  out->reserve(in.size());
  for (char c : in) {
    const int16_t m = map[static_cast<unsigned char>(c)];
    if (m >= 0) out->push_back(static_cast<char>(m));
  }
  return true;
}

}  // namespace

bool ApplyTextFilter(std::string_view argv0, std::span<const std::string_view> args,
                     std::string_view in, std::string* out) {
  std::array<std::string_view, 2> operands;
  size_t count = 0;
  bool delete_chars = false;
  bool options = true;
  for (const std::string_view a : args) {
    if (options && a == "--") {
      options = false;
    } else if (options && a.size() >= 2 && a[0] == '-') {
      if (argv0 != "tr" || a != "-d") return false;  // -c, -s, -t, rev's options ...
      delete_chars = true;
    } else {
      if (count == operands.size()) return false;
      operands[count++] = a;
    }
  }
  if (argv0 == "rev") {
    if (count != 0 || delete_chars) return false;  // a file operand: not the piped text
    ReverseLines(in, out);
    return true;
  }
  if (argv0 != "tr" || count != (delete_chars ? 1U : 2U)) return false;
  return Translate(operands[0], delete_chars ? std::string_view() : operands[1], delete_chars, in,
                   out);
}

}  // namespace doberman::internal
