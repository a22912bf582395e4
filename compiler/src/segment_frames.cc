// The pattern rewrite for joined databases (segment_frames.h). A small reader of Hyperscan's
// pattern syntax: it copies what cannot see a frame and rewrites what could, and refuses (rather
// than guesses) anything it does not know, so a refused pattern keeps its database unjoined.
#include "segment_frames.h"

#include <hs/hs.h>

#include <array>
#include <cstdint>
#include <vector>

#include "segment_frame.h"

namespace doberman::compiler {
namespace {

using internal::kFrameClose;
using internal::kFrameOpen;
using internal::kFrameStandIn;

constexpr uint32_t kOpen = static_cast<unsigned char>(kFrameOpen);
constexpr uint32_t kClose = static_cast<unsigned char>(kFrameClose);
constexpr uint32_t kStandIn = static_cast<unsigned char>(kFrameStandIn);
constexpr std::string_view kOpenText = "\\x1e";
constexpr std::string_view kCloseText = "\\x1f";
constexpr std::string_view kBothFrames = "\\x1e\\x1f";
// The three bytes a rewritten pattern must treat alike: the stand-in and the two frames.
constexpr std::array<uint32_t, 3> kAlike = {kStandIn, kOpen, kClose};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// One item of a class, or one escape outside a class.
struct Atom {
  enum Kind { kChar, kShorthand, kNegatedShorthand, kPosix, kOther } kind = kOther;
  uint32_t value = 0;            // kChar: the code point (or byte)
  bool covers_controls = false;  // kShorthand/kNegatedShorthand/kPosix: holds 0x1a, 0x1e, 0x1f
  std::string_view text;         // as written
};

class Rewriter {
 public:
  Rewriter(std::string_view rx, unsigned int flags)
      : rx_(rx), dotall_((flags & HS_FLAG_DOTALL) != 0), utf8_((flags & HS_FLAG_UTF8) != 0) {}

  std::optional<std::string> Run(std::string* why) {
    bool ok = true;
    while (ok && i_ < rx_.size()) ok = Step();
    if (!ok) {
      if (why != nullptr) *why = why_;
      return std::nullopt;
    }
    return out_;
  }

 private:
  bool Fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }

  bool IsAlikeByte(uint32_t v) const { return v == kOpen || v == kClose || v == kStandIn; }

  // A literal character at i_ (outside or inside a class): its code point and length.
  uint32_t ReadRawChar(size_t at, size_t* len) const {
    const auto b = static_cast<unsigned char>(rx_[at]);
    size_t n = 1;
    uint32_t v = b;
    if (utf8_ && b >= 0xC0) {
      n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
      v = b & (0x3F >> (n - 1));
      for (size_t k = 1; k < n && at + k < rx_.size(); ++k)
        v = (v << 6) | (static_cast<unsigned char>(rx_[at + k]) & 0x3F);
      if (at + n > rx_.size()) n = rx_.size() - at;
    }
    *len = n;
    return v;
  }

  // The escape starting at `at` (rx_[at] == '\\'). `in_class` changes what \b means.
  Atom ReadEscape(size_t at, bool in_class) const {
    Atom a;
    if (at + 1 >= rx_.size()) return a;
    const char e = rx_[at + 1];
    a.text = rx_.substr(at, 2);
    auto simple = [&](uint32_t v) {
      a.kind = Atom::kChar;
      a.value = v;
    };
    switch (e) {
      case 't':
        simple('\t');
        return a;
      case 'n':
        simple('\n');
        return a;
      case 'r':
        simple('\r');
        return a;
      case 'f':
        simple('\f');
        return a;
      case 'e':
        simple(0x1b);
        return a;
      case 'a':
        simple(0x07);
        return a;
      case 'b':
        if (in_class) simple(0x08);
        return a;  // outside a class: a word boundary (kOther, copied)
      case 'd':
      case 'w':
      case 's':
      case 'h':
      case 'v':
        a.kind = Atom::kShorthand;
        return a;
      case 'D':
      case 'W':
      case 'S':
      case 'H':
      case 'V':
      case 'N':
        a.kind = Atom::kNegatedShorthand;
        a.covers_controls = true;
        return a;
      case 'x': {
        size_t j = at + 2;
        uint32_t v = 0;
        if (j < rx_.size() && rx_[j] == '{') {
          size_t k = j + 1;
          while (k < rx_.size() && HexValue(rx_[k]) >= 0 && k - j <= 8)
            v = v * 16 + HexValue(rx_[k++]);
          if (k >= rx_.size() || rx_[k] != '}' || k == j + 1) return a;
          a.text = rx_.substr(at, k + 1 - at);
        } else {
          size_t k = j;
          while (k < rx_.size() && k < j + 2 && HexValue(rx_[k]) >= 0)
            v = v * 16 + HexValue(rx_[k++]);
          a.text = rx_.substr(at, k - at);
        }
        simple(v);
        return a;
      }
      default:
        break;
    }
    // Any other letter or digit names something this reader does not model (\p, \X, \R, \c,
    // octal and back references ...); other characters stand for themselves.
    if (!IsAsciiAlnum(e) && static_cast<unsigned char>(e) < 0x80)
      simple(static_cast<unsigned char>(e));
    return a;
  }

  bool Step() {
    const char c = rx_[i_];
    switch (c) {
      case '\\':
        return Escape();
      case '[':
        return Class();
      case '(':
        return Group();
      case '^':
        out_.append(kOpenText);
        ++i_;
        return true;
      case '$':
        out_.append("(?:\\n?").append(kCloseText).append(")");
        ++i_;
        return true;
      case '.':
        out_.append("[^").append(dotall_ ? "" : "\\n").append(kBothFrames).append("]");
        ++i_;
        return true;
      default: {
        size_t len = 0;
        const uint32_t v = ReadRawChar(i_, &len);
        if (IsAlikeByte(v)) return Fail("a control byte the frames use, written as itself");
        out_.append(rx_.substr(i_, len));
        i_ += len;
        return true;
      }
    }
  }

  bool Escape() {
    if (i_ + 1 >= rx_.size()) return Fail("a trailing backslash");
    const char e = rx_[i_ + 1];
    if (e == 'Q') return Quoted();
    if (e == 'A' || e == 'z' || e == 'Z') {
      if (e == 'A') out_.append(kOpenText);
      if (e == 'z') out_.append(kCloseText);
      if (e == 'Z') out_.append("(?:\\n?").append(kCloseText).append(")");
      i_ += 2;
      return true;
    }
    const Atom a = ReadEscape(i_, /*in_class=*/false);
    switch (a.kind) {
      case Atom::kChar:
        if (IsAlikeByte(a.value))
          return Fail("a control byte the frames use (" + std::string(a.text) + ")");
        out_.append(a.text);
        break;
      case Atom::kShorthand:
        out_.append(a.text);
        break;
      case Atom::kNegatedShorthand: {
        // \S is [^\s]: the frames join what it excludes. \N is "not a newline".
        const char lower = static_cast<char>(a.text[1] - 'A' + 'a');
        out_.append("[^");
        if (a.text[1] == 'N') {
          out_.append("\\n");
        } else {
          out_.push_back('\\');
          out_.push_back(lower);
        }
        out_.append(kBothFrames).append("]");
        break;
      }
      default:
        if (a.text == "\\b" || a.text == "\\B") {  // frames are non-word bytes, like the ends
          out_.append(a.text);
          break;
        }
        return Fail("the escape " + std::string(a.text));
    }
    i_ += a.text.size();
    return true;
  }

  bool Quoted() {
    size_t end = rx_.find("\\E", i_ + 2);
    const size_t stop = end == std::string_view::npos ? rx_.size() : end + 2;
    for (size_t k = i_ + 2; k < (end == std::string_view::npos ? rx_.size() : end); ++k) {
      if (IsAlikeByte(static_cast<unsigned char>(rx_[k])))
        return Fail("a control byte the frames use, quoted");
    }
    out_.append(rx_.substr(i_, stop - i_));
    i_ = stop;
    return true;
  }

  bool Group() {
    if (i_ + 1 < rx_.size() && rx_[i_ + 1] != '?') {
      out_.push_back('(');
      ++i_;
      return true;
    }
    size_t j = i_ + 2;
    if (j < rx_.size() && rx_[j] == ':') {
      out_.append("(?:");
      i_ = j + 1;
      return true;
    }
    if (j < rx_.size() && rx_[j] == '#') {
      const size_t close = rx_.find(')', j);
      if (close == std::string_view::npos) return Fail("an unterminated comment");
      i_ = close + 1;  // a comment says nothing to the matcher: dropped
      return true;
    }
    size_t k = j;
    while (k < rx_.size() && (rx_[k] == 'i' || rx_[k] == '-')) ++k;
    if (k > j && k < rx_.size() && (rx_[k] == ':' || rx_[k] == ')')) {
      out_.append(rx_.substr(i_, k + 1 - i_));  // only case-folding changes: frames unaffected
      i_ = k + 1;
      return true;
    }
    return Fail("the group " + std::string(rx_.substr(i_, std::min<size_t>(4, rx_.size() - i_))) +
                " (inline s, m or x flags, look-around or a named group)");
  }

  // Reads one class member at j (an endpoint of a range: a character only).
  bool ReadMember(size_t* j, Atom* a) {
    if (rx_.compare(*j, 2, "[:") == 0) {
      const size_t close = rx_.find(":]", *j + 2);
      if (close == std::string_view::npos) return Fail("an unterminated POSIX class");
      a->kind = Atom::kPosix;
      a->text = rx_.substr(*j, close + 2 - *j);
      std::string_view name = rx_.substr(*j + 2, close - *j - 2);
      const bool negated = !name.empty() && name[0] == '^';
      if (negated) name.remove_prefix(1);
      static constexpr std::array<std::string_view, 12> kNoControls = {
          "alpha",  "digit", "alnum", "upper", "lower", "space",
          "xdigit", "punct", "graph", "print", "blank", "word"};
      bool known_without = false;
      for (std::string_view n : kNoControls) known_without = known_without || n == name;
      if (!known_without && name != "cntrl" && name != "ascii")
        return Fail("the POSIX class " + std::string(a->text));
      a->covers_controls = known_without == negated;
      *j = close + 2;
      return true;
    }
    if (rx_[*j] == '\\') {
      *a = ReadEscape(*j, /*in_class=*/true);
      if (a->kind == Atom::kOther)
        return Fail("the escape " + std::string(a->text) + " in a class");
      *j += a->text.size();
      return true;
    }
    size_t len = 0;
    a->kind = Atom::kChar;
    a->value = ReadRawChar(*j, &len);
    a->text = rx_.substr(*j, len);
    *j += len;
    return true;
  }

  bool Class() {
    size_t j = i_ + 1;
    const bool negated = j < rx_.size() && rx_[j] == '^';
    if (negated) ++j;
    struct Member {
      Atom lo, hi;
      bool range = false;
    };
    std::vector<Member> members;
    bool first = true;
    while (j < rx_.size() && (rx_[j] != ']' || first)) {
      Member m;
      if (first && rx_[j] == ']') {
        m.lo.kind = Atom::kChar;
        m.lo.value = ']';
        m.lo.text = "\\]";
        ++j;
      } else if (!ReadMember(&j, &m.lo)) {
        return false;
      }
      first = false;
      if (m.lo.kind == Atom::kChar && j + 1 < rx_.size() && rx_[j] == '-' && rx_[j + 1] != ']') {
        ++j;
        if (!ReadMember(&j, &m.hi) || m.hi.kind != Atom::kChar)
          return Fail("a range that does not end in a character");
        m.range = true;
      }
      members.push_back(m);
    }
    if (j >= rx_.size()) return Fail("an unterminated class");
    // Whether the class as written holds each of the stand-in and the two frame bytes.
    std::array<bool, 3> held{};
    for (size_t k = 0; k < kAlike.size(); ++k) {
      for (const Member& m : members) {
        const bool in = m.range ? (m.lo.value <= kAlike[k] && kAlike[k] <= m.hi.value)
                        : m.lo.kind == Atom::kChar ? m.lo.value == kAlike[k]
                                                   : m.lo.covers_controls;
        held[k] = held[k] || in;
      }
    }
    if (held[0] != held[1] || held[0] != held[2])
      return Fail("a class that holds some of 0x1a, 0x1e and 0x1f but not all");
    std::string body;
    auto emit_char = [&](const Atom& a) {
      if (a.value == '-' && a.text == "-") {
        body.append("\\-");  // a literal '-' may come to stand between two members
      } else {
        body.append(a.text);
      }
    };
    const bool take_frames_out = !negated && held[1];
    for (const Member& m : members) {
      if (!m.range) {
        if (m.lo.kind != Atom::kChar && m.lo.covers_controls && take_frames_out)
          return Fail("the class member " + std::string(m.lo.text) + " would admit a frame byte");
        if (take_frames_out && m.lo.kind == Atom::kChar &&
            (m.lo.value == kOpen || m.lo.value == kClose))
          continue;
        if (m.lo.kind == Atom::kChar) {
          emit_char(m.lo);
        } else {
          body.append(m.lo.text);
        }
        continue;
      }
      if (!take_frames_out || m.hi.value < kOpen || m.lo.value > kClose) {
        emit_char(m.lo);
        body.push_back('-');
        emit_char(m.hi);
        continue;
      }
      // The range spans a frame byte: keep what lies on either side of 0x1e-0x1f.
      if (m.lo.value < kOpen) {
        emit_char(m.lo);
        body.append("-\\x1d");
      }
      if (m.hi.value > kClose) {
        body.append("\\x20-");
        emit_char(m.hi);
      }
    }
    out_.append(negated ? "[^" : "[");
    if (negated) out_.append(kBothFrames);
    out_.append(body).append("]");
    i_ = j + 1;
    return true;
  }

  std::string_view rx_;
  bool dotall_;
  bool utf8_;
  size_t i_ = 0;
  std::string out_;
  std::string why_;
};

}  // namespace

std::optional<std::string> FramePattern(std::string_view expression, unsigned int hs_flags,
                                        std::string* why) {
  if ((hs_flags & (HS_FLAG_MULTILINE | HS_FLAG_COMBINATION)) != 0) {
    if (why != nullptr) *why = "multi-line or combination mode";
    return std::nullopt;
  }
  return Rewriter(expression, hs_flags).Run(why);
}

}  // namespace doberman::compiler
