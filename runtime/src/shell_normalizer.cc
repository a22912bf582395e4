// Shell-aware command normalizer: one bounded, single-pass recursive-descent reading of a bash
// command line that emits the canonical segments the command rules match. Contract and output
// conventions are in shell_normalizer.h. Runtime side: no exceptions, no regex, no allocation once
// the SegmentList is warm.
//
// How it reads: Impl::ParseList walks a command list and assembles each simple command's words
// (quotes removed, substitutions recursed into as they are met) in a per-depth scratch Level; at
// the command's end EmitCommand strips assignments and wrappers, recurses into `sh -c` payloads,
// eval and find -exec, and writes the segment. Every recursive path goes one depth deeper and
// checks the limit first, so the stack is bounded by max_depth; every loop consumes input or
// returns, so the time is bounded by the input size times the depth.
#include "shell_normalizer.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace doberman::internal {
namespace {

using Scratch = SegmentList::Scratch;
using Word = Scratch::Word;
using Level = Scratch::Level;
using Heredoc = Scratch::Heredoc;

constexpr size_t kNone = static_cast<size_t>(-1);
// Hard cap on the nesting depth whatever the limits say: the stack holds a few frames per level.
constexpr size_t kDepthCap = 256;

// Word flags.
constexpr uint32_t kQuoted = 1U << 0;  // some part was quoted or escaped
constexpr uint32_t kSubst = 1U << 1;   // contains $(...), `...`, <(...), >(...), ${...} or $((...))
constexpr uint32_t kRedir = 1U << 2;   // a redirection: Word::op operator bytes, then the target
constexpr uint32_t kHereString = 1U << 3;  // `<<<word`
constexpr uint32_t kHeredoc = 1U << 4;     // `<<DELIM` / `<<-DELIM`

// What ends a command list.
enum class Close : uint8_t { kEof, kParen, kBrace };
// How a command ended: a pipe keeps the next command in the same pipeline (for here-documents piped
// to a shell).
enum class Sep : uint8_t { kEnd, kPipe };

// Bash only separates words on space and tab; CR, VT, FF and NUL are treated as blanks too so that
// a stray CR (CRLF input) or an embedded NUL cannot glue junk onto `/` and hide it from a rule.
bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\0';
}
bool IsMeta(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
}
bool EndsWord(char c) { return IsBlank(c) || c == '\n' || IsMeta(c); }

// Bytes that end a plain run inside a word: word ends, quotes, escapes and expansions. Everything
// else is copied in one append (the hot path: most of a command is plain bytes).
constexpr std::array<bool, 256> kStopsPlainRun = [] {
  std::array<bool, 256> t{};
  for (char c : std::string_view(" \t\r\v\f\n;&|()<>\\'\"`$", 18))
    t[static_cast<unsigned char>(c)] = true;
  t[0] = true;
  return t;
}();
bool IsWhite(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsNameStart(char c) { return IsAlpha(c) || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool AllLetters(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsAlpha(c)) return false;
  }
  return true;
}

// An empty or blank substitution body (`$()`, `` `` ``) expands to nothing; it is elided from the
// word so that `r$()m` reads as the `rm` bash runs.
bool IsEmptyCommand(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return IsBlank(c) || c == '\n'; });
}

// `$IFS` / `${IFS}` unquoted (length of the spelling at `s`, or 0): with the default IFS it expands
// to white space that splits the word, the classic `rm${IFS}-rf${IFS}/` spelling.
size_t IfsLength(std::string_view s) {
  if (s.substr(0, 6) == "${IFS}") return 6;
  if (s.substr(0, 4) == "$IFS" && (s.size() == 4 || !IsNameChar(s[4]))) return 4;
  return 0;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

std::string_view Basename(std::string_view v) {
  const size_t slash = v.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == v.size()) return v;
  return v.substr(slash + 1);
}

void Append(std::string* sink, std::string_view s) {
  if (sink != nullptr) sink->append(s);
}
void Append(std::string* sink, char c) {
  if (sink != nullptr) sink->push_back(c);
}

void AppendUtf8(std::string* sink, uint32_t cp) {
  if (cp < 0x80) {
    Append(sink, static_cast<char>(cp));
  } else if (cp < 0x800) {
    Append(sink, static_cast<char>(0xC0 | (cp >> 6)));
    Append(sink, static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    Append(sink, static_cast<char>(0xE0 | (cp >> 12)));
    Append(sink, static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    Append(sink, static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    Append(sink, static_cast<char>(0xF0 | (cp >> 18)));
    Append(sink, static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    Append(sink, static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    Append(sink, static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Writes one word of a segment: bare, or single-quoted when it holds white space (so that it stays
// one word for the rules), or '' when empty.
void AppendWord(std::string* s, std::string_view v) {
  if (v.empty()) {
    s->append("''");
    return;
  }
  if (std::none_of(v.begin(), v.end(), IsWhite)) {
    s->append(v);
    return;
  }
  s->push_back('\'');
  for (char c : v) {
    if (c == '\'') {
      s->append("'\\''");
    } else {
      s->push_back(c);
    }
  }
  s->push_back('\'');
}

std::string_view View(const Level& lv, const Word& w) {
  return std::string_view(lv.bytes.data() + w.begin, w.size);
}

// `NAME=value`, `NAME+=value`, `NAME[sub]=value`, with the name and `=` unquoted (`"A=1" cmd` runs
// `A=1`).
bool IsAssignment(const Level& lv, const Word& w) {
  if ((w.flags & kRedir) != 0) return false;
  const std::string_view v = View(lv, w);
  if (v.empty() || !IsNameStart(v[0])) return false;
  size_t k = 1;
  while (k < v.size() && IsNameChar(v[k])) ++k;
  if (k > w.plain) return false;
  if (k < v.size() && v[k] == '[') {
    const size_t close = v.find(']', k);
    if (close == std::string_view::npos) return false;
    k = close + 1;
  }
  if (k < v.size() && v[k] == '+') ++k;
  return k < v.size() && v[k] == '=';
}

struct Ctx {
  SegmentList* out;
  size_t first;  // out->count when Normalize started: the segment limit counts from here
  size_t max_segments;
  size_t max_depth;
  ShellStatus status = ShellStatus::kOk;
  bool stop = false;  // the segment limit was hit: unwind without doing more work

  Level& Lv(size_t depth) { return out->scratch.levels[depth]; }

  // Keeps the most severe status seen.
  void Raise(ShellStatus s) {
    auto rank = [](ShellStatus x) {
      switch (x) {
        case ShellStatus::kOk:
          return 0;
        case ShellStatus::kUnbalanced:
          return 1;
        case ShellStatus::kTooLong:
          return 2;
        case ShellStatus::kTooDeep:
          return 3;
        case ShellStatus::kTooManySegments:
          return 4;
      }
      return 4;
    };
    if (rank(s) > rank(status)) status = s;
  }
};

// Per-list parsing state. The case/function/time fields describe the command being assembled.
struct ListState {
  size_t pipeline = 0;
  size_t case_nesting = 0;
  bool expect_pattern = false;  // the next command is a case pattern
  bool pattern = false;         // current words are a case pattern: dropped at `)`
  bool case_header = false;     // current words are `case WORD`: dropped at `in`
  bool drop_name = false;       // after `function`: the next word is the function's name
  bool after_time = false;      // after the `time` keyword: `-p` is its option
};

}  // namespace

// The parser over one buffer (the command line, a payload, a backtick body, a here-document body).
// Nested constructs in the same buffer recurse on the same object; another buffer gets its own
// (cheap) object.
struct ShellNormalizer::Impl {
  Impl(const ShellNormalizer& n, Ctx& c, std::string_view text) : norm(n), ctx(c), in(text) {}

  const ShellNormalizer& norm;
  Ctx& ctx;
  std::string_view in;
  size_t pos = 0;

  int At(size_t i) const { return i < in.size() ? static_cast<unsigned char>(in[i]) : -1; }

  // False (and kTooDeep) when `depth` is deeper than allowed; the caller then reads the construct
  // flat.
  bool Enter(size_t depth) {
    if (depth <= ctx.max_depth) return true;
    ctx.Raise(ShellStatus::kTooDeep);
    return false;
  }

  void SkipBlanks() {
    while (pos < in.size()) {
      if (IsBlank(in[pos])) {
        ++pos;
      } else if (in[pos] == '\\' && At(pos + 1) == '\n') {
        pos += 2;
      } else {
        break;
      }
    }
  }

  // Parses `text` as a command line one level deeper (payloads, eval, here-documents fed to a
  // shell).
  void ParseText(std::string_view text, size_t depth) {
    if (ctx.stop || !Enter(depth)) return;
    Impl sub(norm, ctx, text);
    sub.ParseList(depth, Close::kEof);
  }

  bool ParseList(size_t depth, Close close, bool hand_over_heredocs = false);
  void OpenParen(size_t depth, ListState* st);
  bool ReadCommandWord(size_t depth, ListState* st, Close close);
  void EndCommand(size_t depth, ListState* st, Sep sep, bool drop);
  void TransferHeredocs(size_t from, size_t to, size_t pipeline);
  void ReadHeredocBodies(size_t depth);

  bool ReadWord(size_t depth, Word* w);
  void ReadRedirection(size_t depth, ListState* st, size_t fd_begin);
  void ReadSingleQuoted(std::string* sink);
  uint32_t ReadDoubleQuoted(size_t depth, std::string* sink);
  void ReadAnsiC(std::string* sink);
  uint32_t ReadDollar(size_t depth, std::string* sink, bool dq);
  uint32_t ReadBacktick(size_t depth, std::string* sink, bool dq);
  void ReadProcessSubst(size_t depth, std::string* sink);
  void ScanParam(size_t depth, bool dq);
  void ScanExpansions(size_t depth);
  size_t ArithEnd(size_t p) const;

  void EmitCommand(Level& lv, size_t b, size_t e, size_t depth, size_t pipeline, bool with_redirs);
  void HandleShell(Level& lv, size_t b, size_t i, size_t e, size_t depth, size_t pipeline);
  void HandleJoined(Level& lv, std::string_view head, size_t j, size_t e, size_t depth);
  void HandleFindExec(Level& lv, size_t i, size_t e, size_t depth, size_t pipeline);
  std::string* NewSegment();
  void AppendRedirs(std::string* s, const Level& lv, size_t b, size_t e) const;
  void AppendArgs(std::string* s, const Level& lv, const CommandTraits* traits, size_t j,
                  size_t e) const;
};

// ---------------------------------------------------------------------------------------------------------
// Lists and commands

// Reads a command list up to `close`; returns true when the closing `)` or `}` was found (and
// consumed). With `hand_over_heredocs`, here-documents still pending at the close are left in this
// depth's Level for the caller to move into the enclosing list (`(cat <<EOF)` reads its body after
// the line).
bool ShellNormalizer::Impl::ParseList(size_t depth, Close close, bool hand_over_heredocs) {
  Level& lv = ctx.Lv(depth);
  lv.bytes.clear();
  lv.words.clear();
  lv.heredocs.clear();
  lv.delims.clear();
  lv.aux.clear();
  ListState st;
  bool closed = false;
  while (!ctx.stop && !closed) {
    SkipBlanks();
    if (pos >= in.size()) break;
    const char c = in[pos];
    switch (c) {
      case '\n':
        ++pos;
        if (st.case_header) break;  // `case WORD` may continue with `in` on the next line
        EndCommand(depth, &st, Sep::kEnd, false);
        ReadHeredocBodies(depth);
        break;
      case '#': {
        const size_t nl = in.find('\n', pos);
        pos = nl == std::string_view::npos ? in.size() : nl;
        break;
      }
      case ';': {
        ++pos;
        bool case_sep = false;
        if (At(pos) == ';') {
          ++pos;
          case_sep = true;
          if (At(pos) == '&') ++pos;
        } else if (At(pos) == '&') {
          ++pos;
          case_sep = true;
        }
        EndCommand(depth, &st, Sep::kEnd, false);
        if (case_sep && st.case_nesting > 0) st.expect_pattern = true;
        break;
      }
      case '&':
        if (At(pos + 1) == '>') {
          ReadRedirection(depth, &st, kNone);
        } else {
          pos += At(pos + 1) == '&' ? 2 : 1;
          EndCommand(depth, &st, Sep::kEnd, false);
        }
        break;
      case '|':
        if (st.pattern) {  // alternatives of a case pattern
          ++pos;
        } else if (At(pos + 1) == '|') {
          pos += 2;
          EndCommand(depth, &st, Sep::kEnd, false);
        } else {
          pos += At(pos + 1) == '&' ? 2 : 1;
          EndCommand(depth, &st, Sep::kPipe, false);
        }
        break;
      case '(':
        OpenParen(depth, &st);
        break;
      case ')':
        ++pos;
        if (st.pattern) {
          EndCommand(depth, &st, Sep::kEnd, true);
        } else if (close == Close::kParen) {
          EndCommand(depth, &st, Sep::kEnd, false);
          closed = true;
        } else {
          // Outside a case statement a `)` here is a bash syntax error; read on as if it separated.
          if (st.case_nesting == 0) ctx.Raise(ShellStatus::kUnbalanced);
          EndCommand(depth, &st, Sep::kEnd, false);
        }
        break;
      case '<':
      case '>':
        if (At(pos + 1) == '(') {
          closed = !ReadCommandWord(depth, &st, close);
        } else {
          ReadRedirection(depth, &st, kNone);
        }
        break;
      default:
        closed = !ReadCommandWord(depth, &st, close);
        break;
    }
  }
  if (ctx.stop) return closed;
  if (!closed) {
    EndCommand(depth, &st, Sep::kEnd, false);
    if (close != Close::kEof) ctx.Raise(ShellStatus::kUnbalanced);
  }
  if (st.case_nesting > 0 || st.case_header ||
      (!lv.heredocs.empty() && !(closed && hand_over_heredocs))) {
    ctx.Raise(ShellStatus::kUnbalanced);
  }
  return closed;
}

void ShellNormalizer::Impl::OpenParen(size_t depth, ListState* st) {
  Level& lv = ctx.Lv(depth);
  if (st->expect_pattern && lv.words.empty()) {  // `(pattern)` form of a case item
    ++pos;
    st->expect_pattern = false;
    st->pattern = true;
    return;
  }
  if (lv.words.size() == 1 && lv.words[0].flags == 0 && lv.words[0].plain == lv.words[0].size) {
    // `name ()`: a function definition; what follows is its body, an ordinary compound command.
    size_t q = pos + 1;
    while (q < in.size() && IsBlank(in[q])) ++q;
    if (q < in.size() && in[q] == ')') {
      pos = q + 1;
      lv.words.clear();
      lv.bytes.clear();
      return;
    }
  }
  if (!Enter(depth + 1)) {  // too deep: read the contents flat at this depth
    ++pos;
    return;
  }
  const bool arith_position = lv.words.empty() || (lv.words.size() == 1 && lv.words[0].flags == 0 &&
                                                   View(lv, lv.words[0]) == "for");
  if (arith_position && At(pos + 1) == '(') {
    const size_t end = ArithEnd(pos + 2);
    if (end != kNone) {  // `(( expr ))`: not a command, but substitutions inside it run
      Impl sub(norm, ctx, in.substr(pos + 2, end - 2 - (pos + 2)));
      sub.ScanExpansions(depth + 1);
      pos = end;
      return;
    }
  }
  ++pos;
  if (ParseList(depth + 1, Close::kParen, true)) TransferHeredocs(depth + 1, depth, st->pipeline);
}

// Reads a word in command position or as an argument; handles reserved words and `{ ...; }` groups.
// Returns false when the word was the `}` that closes this list.
bool ShellNormalizer::Impl::ReadCommandWord(size_t depth, ListState* st, Close close) {
  Level& lv = ctx.Lv(depth);
  const size_t before = pos;
  Word w;
  const bool got = ReadWord(depth, &w);
  if (pos == before) ++pos;  // cannot happen by construction; guarantees progress regardless
  if (!got) return true;
  const std::string_view v = View(lv, w);
  // `2>file`, `10<&0`: digits glued to a redirection operator are its descriptor.
  if (w.flags == 0 && w.plain == w.size && AllDigits(v) && (At(pos) == '<' || At(pos) == '>') &&
      At(pos + 1) != '(') {
    ReadRedirection(depth, st, w.begin);
    return true;
  }
  const bool plain = w.flags == 0 && w.plain == w.size;
  auto drop = [&]() { lv.bytes.resize(w.begin); };
  if (plain && lv.words.empty() && !st->case_header && !st->pattern) {
    if (st->drop_name) {
      st->drop_name = false;
      drop();
      return true;
    }
    if (st->after_time) {
      st->after_time = false;
      if (v == "-p") {
        drop();
        return true;
      }
    }
    if (v == "{") {
      drop();
      if (Enter(depth + 1) && ParseList(depth + 1, Close::kBrace, true)) {
        TransferHeredocs(depth + 1, depth, st->pipeline);
      }
      return true;
    }
    if (v == "}") {
      drop();
      return close != Close::kBrace;  // a stray `}` is dropped
    }
    if (v == "case") {
      drop();
      st->case_header = true;
      ++st->case_nesting;
      return true;
    }
    if (v == "esac") {
      drop();
      if (st->case_nesting > 0) --st->case_nesting;
      st->expect_pattern = false;
      return true;
    }
    if (v == "function") {
      drop();
      st->drop_name = true;
      return true;
    }
    if (v == "time") {
      drop();
      st->after_time = true;
      return true;
    }
    if (v == "if" || v == "then" || v == "else" || v == "elif" || v == "fi" || v == "do" ||
        v == "done" || v == "while" || v == "until" || v == "!" || v == "coproc") {
      drop();
      return true;
    }
  }
  st->after_time = false;
  if (st->expect_pattern && lv.words.empty()) {
    st->expect_pattern = false;
    st->pattern = true;
  }
  if (st->case_header && plain && v == "in" && !lv.words.empty()) {
    lv.words.clear();
    lv.bytes.clear();
    st->case_header = false;
    st->expect_pattern = true;
    return true;
  }
  // `{rm,-rf,/}`: an unquoted brace list expands to one word per item (the classic spelling without
  // spaces). Only the simple, unnested form; the items are slices of the same bytes.
  if (plain && v.size() >= 3 && v.front() == '{' && v.back() == '}' &&
      v.find(',') != std::string_view::npos && v.find_first_of("{}", 1) == v.size() - 1) {
    size_t item = 1;
    for (size_t k = 1; k < v.size(); ++k) {
      if (v[k] != ',' && v[k] != '}') continue;
      if (k > item) {
        Word part;
        part.begin = w.begin + item;
        part.size = k - item;
        part.plain = part.size;
        lv.words.push_back(part);
      }
      item = k + 1;
    }
    return true;
  }
  lv.words.push_back(w);
  return true;
}

void ShellNormalizer::Impl::EndCommand(size_t depth, ListState* st, Sep sep, bool drop) {
  Level& lv = ctx.Lv(depth);
  if (!drop && !ctx.stop && !st->pattern && !st->case_header && !lv.words.empty()) {
    EmitCommand(lv, 0, lv.words.size(), depth, st->pipeline, true);
  }
  lv.words.clear();
  lv.bytes.clear();
  st->pattern = false;
  st->case_header = false;
  st->drop_name = false;
  st->after_time = false;
  if (sep != Sep::kPipe) ++st->pipeline;
}

// `(cat <<EOF)` and `{ cat <<EOF; }` read their here-document after the line ends, which is in the
// enclosing list.
void ShellNormalizer::Impl::TransferHeredocs(size_t from, size_t to, size_t pipeline) {
  Level& src = ctx.Lv(from);
  Level& dst = ctx.Lv(to);
  for (Heredoc h : src.heredocs) {
    const size_t begin = dst.delims.size();
    dst.delims.append(src.delims, h.delim_begin, h.delim_size);
    h.delim_begin = begin;
    h.pipeline = pipeline;
    dst.heredocs.push_back(h);
  }
  src.heredocs.clear();
  src.delims.clear();
}

void ShellNormalizer::Impl::ReadHeredocBodies(size_t depth) {
  Level& lv = ctx.Lv(depth);
  for (size_t k = 0; k < lv.heredocs.size() && !ctx.stop; ++k) {
    const Heredoc h = lv.heredocs[k];
    const std::string_view delim(lv.delims.data() + h.delim_begin, h.delim_size);
    const size_t body_begin = pos;
    size_t body_end = kNone;
    while (pos < in.size()) {
      size_t line_end = in.find('\n', pos);
      if (line_end == std::string_view::npos) line_end = in.size();
      size_t ls = pos;
      if (h.strip_tabs) {
        while (ls < line_end && in[ls] == '\t') ++ls;
      }
      std::string_view line = in.substr(ls, line_end - ls);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF input
      const size_t next = line_end < in.size() ? line_end + 1 : in.size();
      if (line == delim) {
        body_end = pos;
        pos = next;
        break;
      }
      pos = next;
    }
    if (body_end == kNone) {
      body_end = in.size();
      ctx.Raise(ShellStatus::kUnbalanced);
    }
    const std::string_view body = in.substr(body_begin, body_end - body_begin);
    if (h.commands) {
      if (!h.strip_tabs) {
        ParseText(body, depth + 1);
      } else {
        const size_t mark = lv.aux.size();
        bool line_start = true;
        for (char c : body) {
          if (line_start && c == '\t') continue;
          line_start = c == '\n';
          lv.aux.push_back(c);
        }
        ParseText(std::string_view{lv.aux}.substr(mark), depth + 1);
        lv.aux.resize(mark);
      }
    } else if (!h.quoted) {
      // An unquoted delimiter means the body is expanded: its substitutions run even when it is
      // data.
      Impl sub(norm, ctx, body);
      sub.ScanExpansions(depth);
    }
  }
  lv.heredocs.clear();
  lv.delims.clear();
}

// ---------------------------------------------------------------------------------------------------------
// Words

// Reads one word at pos (which is not a blank or an operator, except for `<(`/`>(`) into the
// Level's bytes. Returns false when it turned out empty and unquoted (a lone line continuation): no
// word.
bool ShellNormalizer::Impl::ReadWord(size_t depth, Word* w) {
  std::string* bytes = &ctx.Lv(depth).bytes;
  w->begin = bytes->size();
  w->flags = 0;
  w->op = 0;
  bool plain = true;
  auto note = [&](size_t before, uint32_t flags) {
    if (flags == 0) return;
    if (plain) {
      w->plain = before - w->begin;
      plain = false;
    }
    w->flags |= flags;
  };
  while (pos < in.size() && !ctx.stop) {
    const char c = in[pos];
    const size_t before = bytes->size();
    if (EndsWord(c)) {
      if ((c == '<' || c == '>') && At(pos + 1) == '(' && before == w->begin) {
        ReadProcessSubst(depth, bytes);
        note(before, kSubst);
        continue;
      }
      break;
    }
    switch (c) {
      case '\\':
        if (pos + 1 >= in.size()) {  // a trailing backslash is literal
          bytes->push_back('\\');
          ++pos;
        } else if (in[pos + 1] == '\n') {
          pos += 2;
        } else {
          bytes->push_back(in[pos + 1]);
          pos += 2;
          note(before, kQuoted);
        }
        break;
      case '\'':
        ReadSingleQuoted(bytes);
        note(before, kQuoted);
        break;
      case '"':
        note(before, ReadDoubleQuoted(depth, bytes));
        break;
      case '`':
        note(before, ReadBacktick(depth, bytes, false));
        break;
      case '$':
        if (const size_t ifs = IfsLength(in.substr(pos)); ifs > 0) {
          pos += ifs;
          if (bytes->size() > w->begin || w->flags != 0) goto done;  // the word ends here
          break;
        }
        note(before, ReadDollar(depth, bytes, false));
        break;
      default: {
        size_t run = pos + 1;
        while (run < in.size() && !kStopsPlainRun[static_cast<unsigned char>(in[run])]) ++run;
        bytes->append(in.data() + pos, run - pos);
        pos = run;
        break;
      }
    }
  }
done:
  w->size = bytes->size() - w->begin;
  if (plain) w->plain = w->size;
  return w->size > 0 || w->flags != 0;
}

// Reads a redirection at pos (its operator; `fd_begin` is where already-read descriptor digits
// start in the Level's bytes, or kNone) and its target, and adds it to the current command as one
// word.
void ShellNormalizer::Impl::ReadRedirection(size_t depth, ListState* st, size_t fd_begin) {
  Level& lv = ctx.Lv(depth);
  Word w;
  if (fd_begin != kNone) {
    w.begin = fd_begin;
    const std::string_view fd(lv.bytes.data() + fd_begin, lv.bytes.size() - fd_begin);
    // The default descriptor is implied: `1>x` is `>x`, `0<x` is `<x`.
    if ((fd == "1" && in[pos] == '>') || (fd == "0" && in[pos] == '<')) lv.bytes.resize(fd_begin);
  } else {
    w.begin = lv.bytes.size();
  }
  size_t len = 1;
  bool heredoc = false;
  bool strip = false;
  bool herestring = false;
  if (in[pos] == '&') {
    len = At(pos + 2) == '>' ? 3 : 2;  // `&>`, `&>>`
  } else if (in[pos] == '<') {
    if (At(pos + 1) == '<') {
      if (At(pos + 2) == '<') {
        len = 3;
        herestring = true;
      } else {
        len = At(pos + 2) == '-' ? 3 : 2;
        heredoc = true;
        strip = len == 3;
      }
    } else if (At(pos + 1) == '>' || At(pos + 1) == '&') {
      len = 2;
    }
  } else if (At(pos + 1) == '>' || At(pos + 1) == '&' || At(pos + 1) == '|') {
    len = 2;  // `>>`, `>&`, `>|`
  }
  lv.bytes.append(in.substr(pos, len));
  pos += len;
  w.op = static_cast<uint32_t>(lv.bytes.size() - w.begin);
  w.flags = kRedir | (heredoc ? kHeredoc : 0) | (herestring ? kHereString : 0);
  SkipBlanks();
  Word t;
  const bool has_target =
      pos < in.size() &&
      (!EndsWord(in[pos]) || ((in[pos] == '<' || in[pos] == '>') && At(pos + 1) == '('));
  if (!has_target || !ReadWord(depth, &t)) {
    ctx.Raise(ShellStatus::kUnbalanced);  // bash: syntax error near unexpected token
  } else {
    w.flags |= t.flags;
    if (heredoc) {
      Heredoc h;
      h.delim_begin = lv.delims.size();
      h.delim_size = t.size;
      h.pipeline = st->pipeline;
      h.strip_tabs = strip;
      h.quoted = (t.flags & kQuoted) != 0;
      lv.delims.append(lv.bytes, t.begin, t.size);
      lv.heredocs.push_back(h);
    }
  }
  w.size = lv.bytes.size() - w.begin;
  w.plain = 0;
  lv.words.push_back(w);
}

void ShellNormalizer::Impl::ReadSingleQuoted(std::string* sink) {
  const size_t close = in.find('\'', pos + 1);
  if (close == std::string_view::npos) {
    Append(sink, in.substr(pos + 1));
    pos = in.size();
    ctx.Raise(ShellStatus::kUnbalanced);
    return;
  }
  Append(sink, in.substr(pos + 1, close - pos - 1));
  pos = close + 1;
}

// At `"`. Returns the word flags it contributes.
uint32_t ShellNormalizer::Impl::ReadDoubleQuoted(size_t depth, std::string* sink) {
  uint32_t flags = kQuoted;
  ++pos;
  while (pos < in.size() && !ctx.stop) {
    const char c = in[pos];
    if (c == '"') {
      ++pos;
      return flags;
    }
    if (c == '\\') {
      const int d = At(pos + 1);
      if (d == '\n') {
        pos += 2;
        continue;
      }
      if (d == '"' || d == '\\' || d == '$' || d == '`') {
        Append(sink, static_cast<char>(d));
        pos += 2;
        continue;
      }
      Append(sink, '\\');
      ++pos;
      continue;
    }
    if (c == '`') {
      flags |= ReadBacktick(depth, sink, true);
      continue;
    }
    if (c == '$') {
      flags |= ReadDollar(depth, sink, true);
      continue;
    }
    Append(sink, c);
    ++pos;
  }
  ctx.Raise(ShellStatus::kUnbalanced);
  return flags;
}

// After `$'`: bash's ANSI-C quoting. A decoded NUL ends the string, as in bash.
void ShellNormalizer::Impl::ReadAnsiC(std::string* sink) {
  bool nul = false;
  auto put = [&](uint32_t v) {
    if (v == 0) nul = true;
    if (!nul) Append(sink, static_cast<char>(v));
  };
  while (pos < in.size()) {
    const char c = in[pos];
    if (c == '\'') {
      ++pos;
      return;
    }
    if (c != '\\') {
      put(static_cast<unsigned char>(c));
      ++pos;
      continue;
    }
    if (pos + 1 >= in.size()) {
      ++pos;
      break;
    }
    const char e = in[pos + 1];
    pos += 2;
    switch (e) {
      case 'a':
        put(7);
        break;
      case 'b':
        put(8);
        break;
      case 'e':
      case 'E':
        put(27);
        break;
      case 'f':
        put(12);
        break;
      case 'n':
        put(10);
        break;
      case 'r':
        put(13);
        break;
      case 't':
        put(9);
        break;
      case 'v':
        put(11);
        break;
      case '\\':
      case '\'':
      case '"':
      case '?':
        put(static_cast<unsigned char>(e));
        break;
      case 'c':  // \cX is control-X; the closing quote is never the X (bash finds it first)
        if (pos < in.size() && in[pos] != '\'') {
          put(static_cast<unsigned char>(in[pos]) & 0x1F);
          ++pos;
        } else {
          put('\\');
          put('c');
        }
        break;
      case 'x':
      case 'u':
      case 'U': {
        const size_t max_digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t v = 0;
        size_t digits = 0;
        while (digits < max_digits && pos < in.size() && HexValue(in[pos]) >= 0) {
          v = v * 16 + static_cast<uint32_t>(HexValue(in[pos]));
          ++pos;
          ++digits;
        }
        if (digits == 0) {
          put('\\');
          put(static_cast<unsigned char>(e));
        } else if (e == 'x') {
          put(v);
        } else if (v == 0) {
          put(0);
        } else if (!nul && v <= 0x10FFFF && (v < 0xD800 || v > 0xDFFF)) {
          AppendUtf8(sink, v);
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t v = static_cast<uint32_t>(e - '0');
          for (int k = 0; k < 2 && pos < in.size() && in[pos] >= '0' && in[pos] <= '7'; ++k) {
            v = v * 8 + static_cast<uint32_t>(in[pos] - '0');
            ++pos;
          }
          put(v & 0xFF);
        } else {
          put('\\');
          put(static_cast<unsigned char>(e));
        }
        break;
    }
  }
  ctx.Raise(ShellStatus::kUnbalanced);
}

// At `$`. Returns the word flags it contributes (0 for a literal `$` or `$NAME`, which stay as
// text).
uint32_t ShellNormalizer::Impl::ReadDollar(size_t depth, std::string* sink, bool dq) {
  const int c1 = At(pos + 1);
  if (!dq && c1 == '\'') {
    pos += 2;
    ReadAnsiC(sink);
    return kQuoted;
  }
  if (!dq && c1 == '"') {  // $"..." (locale translation) reads as "..."
    ++pos;
    return ReadDoubleQuoted(depth, sink);
  }
  if (c1 == '(' || c1 == '{') {
    if (!Enter(depth + 1)) {  // too deep: keep the opener as text and read on flat
      Append(sink, in.substr(pos, 2));
      pos += 2;
      return kSubst;
    }
    const size_t start = pos;
    if (c1 == '{') {
      pos += 2;
      ScanParam(depth + 1, dq);
      Append(sink, in.substr(start, pos - start));
      return kSubst;
    }
    if (At(pos + 2) == '(') {
      const size_t end = ArithEnd(pos + 3);
      if (end != kNone) {  // arithmetic, not a command; its own substitutions still run
        Impl sub(norm, ctx, in.substr(pos + 3, end - 2 - (pos + 3)));
        sub.ScanExpansions(depth + 1);
        Append(sink, in.substr(start, end - start));
        pos = end;
        return kSubst;
      }
    }
    pos += 2;
    const bool closed = ParseList(depth + 1, Close::kParen);
    const std::string_view inner = in.substr(start + 2, (closed ? pos - 1 : pos) - (start + 2));
    if (IsEmptyCommand(inner)) return kQuoted;  // `r$()m` runs rm
    Append(sink, "$(");
    Append(sink, inner);
    Append(sink, ')');
    return kSubst;
  }
  Append(sink, '$');
  ++pos;
  return 0;
}

// At a backtick. The body is de-escaped (\`, \\, \$, and \" inside double quotes) into the Level's
// aux buffer, parsed from there, and written to the word in the `$(...)` form. Returns the word
// flags.
uint32_t ShellNormalizer::Impl::ReadBacktick(size_t depth, std::string* sink, bool dq) {
  std::string& aux = ctx.Lv(depth).aux;
  const size_t mark = aux.size();
  ++pos;
  bool closed = false;
  while (pos < in.size()) {
    const char c = in[pos];
    if (c == '`') {
      ++pos;
      closed = true;
      break;
    }
    const int d = At(pos + 1);
    if (c == '\\' && (d == '`' || d == '\\' || d == '$' || (dq && d == '"'))) {
      aux.push_back(static_cast<char>(d));
      pos += 2;
      continue;
    }
    aux.push_back(c);
    ++pos;
  }
  if (!closed) ctx.Raise(ShellStatus::kUnbalanced);
  const std::string_view inner = std::string_view{aux}.substr(mark);
  if (IsEmptyCommand(inner)) {
    aux.resize(mark);
    return kQuoted;
  }
  // The inner parse runs one level deeper and never touches this level's aux, so `inner` stays
  // valid.
  ParseText(inner, depth + 1);
  Append(sink, "$(");
  Append(sink, inner);
  Append(sink, ')');
  aux.resize(mark);
  return kSubst;
}

// At `<(` or `>(`.
void ShellNormalizer::Impl::ReadProcessSubst(size_t depth, std::string* sink) {
  const size_t start = pos;
  if (!Enter(depth + 1)) {
    Append(sink, in.substr(pos, 2));
    pos += 2;
    return;
  }
  pos += 2;
  const bool closed = ParseList(depth + 1, Close::kParen);
  const size_t inner_end = closed ? pos - 1 : pos;
  Append(sink, in.substr(start, inner_end - start));
  Append(sink, ')');
}

// After `${`, up to the matching `}`; substitutions inside (`${x:-$(cmd)}`) are parsed.
void ShellNormalizer::Impl::ScanParam(size_t depth, bool dq) {
  while (pos < in.size() && !ctx.stop) {
    const char c = in[pos];
    if (c == '}') {
      ++pos;
      return;
    }
    if (c == '\\') {
      pos = std::min(in.size(), pos + 2);
    } else if (c == '\'' && !dq) {
      ReadSingleQuoted(nullptr);
    } else if (c == '"') {
      ReadDoubleQuoted(depth, nullptr);
    } else if (c == '`') {
      ReadBacktick(depth, nullptr, dq);
    } else if (c == '$') {
      ReadDollar(depth, nullptr, dq);
    } else {
      ++pos;
    }
  }
  ctx.Raise(ShellStatus::kUnbalanced);
}

// Walks data that the shell expands (an unquoted here-document body, arithmetic) and parses only
// its command substitutions.
void ShellNormalizer::Impl::ScanExpansions(size_t depth) {
  while (pos < in.size() && !ctx.stop) {
    const char c = in[pos];
    if (c == '\\') {
      pos = std::min(in.size(), pos + 2);
    } else if (c == '`') {
      ReadBacktick(depth, nullptr, true);
    } else if (c == '$') {
      ReadDollar(depth, nullptr, true);
    } else {
      ++pos;
    }
  }
}

// `p` is just after `$((` or `((`. Returns the position after the matching `))` when the construct
// is arithmetic, kNone when it is a command substitution or subshell that starts with `(` (bash
// decides the same way: arithmetic only if the parentheses close as `))`). Iterative and linear in
// what it scans.
size_t ShellNormalizer::Impl::ArithEnd(size_t p) const {
  size_t open = 0;
  for (size_t q = p; q < in.size(); ++q) {
    const char c = in[q];
    if (c == '\\') {
      ++q;
    } else if (c == '\'') {
      const size_t close = in.find('\'', q + 1);
      if (close == std::string_view::npos) return kNone;
      q = close;
    } else if (c == '"') {
      ++q;
      while (q < in.size() && in[q] != '"') q += in[q] == '\\' ? 2 : 1;
      if (q >= in.size()) return kNone;
    } else if (c == '(') {
      ++open;
    } else if (c == ')') {
      if (open > 0) {
        --open;
      } else {
        return At(q + 1) == ')' ? q + 2 : kNone;
      }
    }
  }
  return kNone;
}

// ---------------------------------------------------------------------------------------------------------
// Commands to segments

std::string* ShellNormalizer::Impl::NewSegment() {
  SegmentList* out = ctx.out;
  if (out->count - ctx.first >= ctx.max_segments) {
    ctx.Raise(ShellStatus::kTooManySegments);
    ctx.stop = true;
    return nullptr;
  }
  if (out->count >= out->segments.size()) out->segments.emplace_back();
  std::string* s = &out->segments[out->count++];
  s->clear();
  return s;
}

void ShellNormalizer::Impl::AppendRedirs(std::string* s, const Level& lv, size_t b,
                                         size_t e) const {
  for (size_t j = b; j < e; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) == 0) continue;
    const std::string_view v = View(lv, w);
    if (!s->empty()) s->push_back(' ');
    s->append(v.substr(0, w.op));
    const std::string_view target = v.substr(w.op);
    if (!target.empty() || (w.flags & kQuoted) != 0) AppendWord(s, target);
  }
}

// Arguments j.. of a command: combined short flags split for split_flag_commands, then aliases,
// both until `--`.
void ShellNormalizer::Impl::AppendArgs(std::string* s, const Level& lv, const CommandTraits* traits,
                                       size_t j, size_t e) const {
  const bool split = traits != nullptr && traits->split_flags;
  const StringMap<std::string>* aliases =
      traits == nullptr || traits->aliases.empty() ? nullptr : &traits->aliases;
  auto aliased = [aliases](std::string_view flag) -> std::string_view {
    if (aliases == nullptr) return flag;
    const auto it = aliases->find(flag);
    return it == aliases->end() ? flag : std::string_view{it->second};
  };
  bool options = split || aliases != nullptr;
  for (; j < e; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) != 0) continue;
    const std::string_view v = View(lv, w);
    s->push_back(' ');
    if (options) {
      if (v == "--") {
        options = false;
      } else if (split && v.size() > 2 && v[0] == '-' && AllLetters(v.substr(1))) {
        for (size_t k = 1; k < v.size(); ++k) {
          if (k > 1) s->push_back(' ');
          const char flag[2] = {'-', v[k]};
          AppendWord(s, aliased(std::string_view(flag, 2)));
        }
        continue;
      } else {
        AppendWord(s, aliased(v));
        continue;
      }
    }
    AppendWord(s, v);
  }
}

// Emits the command made of words [b, e) of `lv` (and, first, the commands inside it).
void ShellNormalizer::Impl::EmitCommand(Level& lv, size_t b, size_t e, size_t depth,
                                        size_t pipeline, bool with_redirs) {
  if (ctx.stop) return;
  auto next = [&](size_t i) {
    while (i < e && (lv.words[i].flags & kRedir) != 0) ++i;
    return i;
  };
  auto skip_assignments = [&](size_t i) {
    while (i < e && IsAssignment(lv, lv.words[i])) i = next(i + 1);
    return i;
  };
  const size_t first = next(b);
  size_t i = skip_assignments(first);
  size_t wrapper = kNone;
  // The traits of word i's basename, when that was looked up (the word the loop stopped at).
  const CommandTraits* looked_up = nullptr;
  size_t looked_up_at = kNone;
  while (i < e && (lv.words[i].flags & kSubst) == 0) {
    looked_up = norm.Traits(Basename(View(lv, lv.words[i])));
    looked_up_at = i;
    if (looked_up == nullptr || !looked_up->wrapper) break;
    const WrapperSpec& spec = *looked_up->wrapper;
    const bool env = spec.name == "env";
    // `command -v NAME` / `command -V NAME` only look NAME up: nothing after them runs, so the
    // segment stays `command -v ...` instead of being unwrapped into NAME's arguments.
    const bool command_builtin = spec.name == "command";
    bool lookup_only = false;
    const size_t wrapper_word = i;
    wrapper = i;
    i = next(i + 1);
    while (i < e) {  // the wrapper's options
      const std::string_view v = View(lv, lv.words[i]);
      if (v.empty() || v[0] != '-') break;
      if (command_builtin && v != "--" && v.find_first_of("vV") != std::string_view::npos) {
        lookup_only = true;
        break;
      }
      i = next(i + 1);
      if (v == "--") break;
      if (env && (v.substr(0, 2) == "-S" || v.substr(0, 15) == "--split-string=" ||
                  v == "--split-string")) {
        // `env -S 'cmd args'` splits its string into a command line: parse it (with what follows).
        std::string_view head = v.substr(0, 2) == "-S" ? v.substr(2) : v.substr(v.find('=') + 1);
        if (v == "-S" || v == "--split-string") {
          head = i < e ? View(lv, lv.words[i]) : std::string_view();
          if (i < e) i = next(i + 1);
        }
        HandleJoined(lv, head, i, e, depth);
        return;
      }
      if (std::find(spec.value_options.begin(), spec.value_options.end(), v) !=
              spec.value_options.end() &&
          i < e) {
        i = next(i + 1);
      }
    }
    if (lookup_only) {
      i = wrapper_word;
      wrapper = kNone;
      break;
    }
    if (env) i = skip_assignments(i);
    for (int k = 0; k < spec.positional_args && i < e; ++k) i = next(i + 1);
    i = skip_assignments(i);
  }

  if (i >= e) {  // nothing left to run
    bool redirs = false;
    for (size_t j = b; j < e; ++j) redirs = redirs || (lv.words[j].flags & kRedir) != 0;
    if (wrapper == kNone && first >= e && !(with_redirs && redirs)) return;
    std::string* s = NewSegment();
    if (s == nullptr) return;
    if (wrapper != kNone) {
      AppendWord(s, Basename(View(lv, lv.words[wrapper])));
    } else {
      for (size_t j = first; j < e; j = next(j + 1)) {
        if (!s->empty()) s->push_back(' ');
        AppendWord(s, View(lv, lv.words[j]));
      }
    }
    if (with_redirs) AppendRedirs(s, lv, b, e);
    return;
  }

  const Word& cmd = lv.words[i];
  const std::string_view name = View(lv, cmd);
  const bool spaced = std::any_of(name.begin(), name.end(), IsWhite);
  // A basename is meaningless for a substitution's text or a string with spaces in it.
  const std::string_view argv0 = (cmd.flags & kSubst) != 0 || spaced ? name : Basename(name);
  if (spaced && wrapper != kNone) {
    // No program has a name like `rm -rf /`, but wrappers such as watch and parallel run their
    // words through `sh -c`: read them as a command line too (over-inclusive at worst).
    HandleJoined(lv, std::string_view(), i, e, depth);
  }
  // The wrapper loop usually looked this very name up already.
  const CommandTraits* traits =
      looked_up_at == i && argv0 == Basename(name) ? looked_up : norm.Traits(argv0);
  if (traits != nullptr && traits->shell) {
    HandleShell(lv, b, i, e, depth, pipeline);
  } else if (argv0 == "eval") {
    size_t j = next(i + 1);
    if (j < e && View(lv, lv.words[j]) == "--") j = next(j + 1);
    HandleJoined(lv, std::string_view(), j, e, depth);
  } else if (argv0 == "find") {
    HandleFindExec(lv, i, e, depth, pipeline);
  }
  std::string* s = NewSegment();
  if (s == nullptr) return;
  AppendWord(s, argv0);
  AppendArgs(s, lv, traits, i + 1, e);
  if (with_redirs) AppendRedirs(s, lv, b, e);
}

// A shell: `-c PAYLOAD` (also `-lc`, `-c -- PAYLOAD`, su's `-c'cmd'`, `--command=`) is parsed as a
// command line. Without one the shell reads commands from stdin, so the here-documents piped or
// redirected into it, and its here-strings, are parsed as commands.
void ShellNormalizer::Impl::HandleShell(Level& lv, size_t b, size_t i, size_t e, size_t depth,
                                        size_t pipeline) {
  auto next = [&](size_t k) {
    while (k < e && (lv.words[k].flags & kRedir) != 0) ++k;
    return k;
  };
  bool have_c = false;
  bool found = false;
  std::string_view payload;
  for (size_t j = next(i + 1); j < e && !found; j = next(j + 1)) {
    const std::string_view v = View(lv, lv.words[j]);
    if (v == "--" || v == "-") {
      j = next(j + 1);
      if (have_c && j < e) {
        payload = View(lv, lv.words[j]);
        found = true;
      }
      break;
    }
    if (v.size() >= 2 && (v[0] == '-' || v[0] == '+')) {
      if (v.substr(0, 2) == "--") {
        if (v == "--command") {
          have_c = true;
        } else if (v.substr(0, 10) == "--command=") {
          payload = v.substr(10);
          found = true;
        } else if ((v == "--rcfile" || v == "--init-file") && j < e) {
          j = next(j + 1);
        }
      } else if (AllLetters(v.substr(1))) {
        if (v[0] == '-' && v.find('c') != std::string_view::npos) have_c = true;
        if (v.back() == 'o' || v.back() == 'O') j = next(j + 1);  // `-o pipefail`, `-eo pipefail`
      } else if (v[0] == '-' && v[1] == 'c') {
        payload = v.substr(2);  // su -c'cmd'
        found = true;
      }
      if (j >= e) break;
      continue;
    }
    if (have_c) {
      payload = v;
      found = true;
    }
    // Otherwise su's user name or a script path: keep looking for a later -c (over-inclusive at
    // worst).
  }
  if (found) {
    ParseText(payload, depth + 1);
    return;
  }
  for (Heredoc& h : lv.heredocs) {
    if (h.pipeline == pipeline) h.commands = true;
  }
  for (size_t j = b; j < e && !ctx.stop; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kHereString) != 0) ParseText(View(lv, w).substr(w.op), depth + 1);
  }
}

// eval and env -S: `head` and the words j.. joined by spaces are parsed as a command line.
void ShellNormalizer::Impl::HandleJoined(Level& lv, std::string_view head, size_t j, size_t e,
                                         size_t depth) {
  // This depth's aux is free at this point (no backtick is being read), and ParseText only writes
  // deeper.
  std::string& aux = ctx.Lv(depth).aux;
  const size_t mark = aux.size();
  aux.append(head);
  for (; j < e; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) != 0) continue;
    if (aux.size() > mark) aux.push_back(' ');
    aux.append(View(lv, w));
  }
  ParseText(std::string_view{aux}.substr(mark), depth + 1);
  aux.resize(mark);
}

// find's -exec/-execdir/-ok/-okdir CMD ... ; (or {} +) run CMD: emit it as a segment of its own.
void ShellNormalizer::Impl::HandleFindExec(Level& lv, size_t i, size_t e, size_t depth,
                                           size_t pipeline) {
  for (size_t j = i + 1; j < e && !ctx.stop; ++j) {
    if ((lv.words[j].flags & kRedir) != 0) continue;
    const std::string_view v = View(lv, lv.words[j]);
    if (v != "-exec" && v != "-execdir" && v != "-ok" && v != "-okdir") continue;
    const size_t start = j + 1;
    size_t k = start;
    std::string_view prev;
    for (; k < e; ++k) {
      if ((lv.words[k].flags & kRedir) != 0) continue;
      const std::string_view a = View(lv, lv.words[k]);
      if (a == ";" || (a == "+" && prev == "{}")) break;
      prev = a;
    }
    if (start < k && Enter(depth + 1)) EmitCommand(lv, start, k, depth + 1, pipeline, false);
    j = k;
  }
}

// ---------------------------------------------------------------------------------------------------------

ShellNormalizer::ShellNormalizer(const ShellTables& tables, const ShellLimits& limits)
    : limits_(limits) {
  // A name listed twice as a wrapper keeps its first spec, as the separate table did.
  for (const WrapperSpec& w : tables.wrappers) {
    CommandTraits& t = commands_[w.name];
    if (!t.wrapper) t.wrapper = w;
  }
  for (const std::string& s : tables.shells) commands_[s].shell = true;
  for (const std::string& s : tables.split_flag_commands) commands_[s].split_flags = true;
  for (const FlagAlias& a : tables.aliases) commands_[a.command].aliases.emplace(a.from, a.to);
}

ShellStatus ShellNormalizer::Normalize(std::string_view command, SegmentList* out) const {
  if (out == nullptr) return ShellStatus::kUnbalanced;  // nowhere to write: fail closed
  Ctx ctx{out, out->count, limits_.max_segments, std::min(limits_.max_depth, kDepthCap)};
  if (out->segments.size() < out->count) out->segments.resize(out->count);
  // Levels 0..max_depth, sized once up front: the parser holds references into them while
  // recursing.
  if (out->scratch.levels.size() < ctx.max_depth + 2) out->scratch.levels.resize(ctx.max_depth + 2);
  if (command.size() > limits_.max_bytes) {
    ctx.Raise(ShellStatus::kTooLong);
    command = command.substr(0, limits_.max_bytes);
  }
  Impl top(*this, ctx, command);
  top.ParseList(0, Close::kEof);
  return ctx.status;
}

}  // namespace doberman::internal
