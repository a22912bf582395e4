// The parser state shared by the two halves of the shell normalizer (private to them): the bash
// reader (shell_reader.cc: lists, words, quotes, expansions, here-documents) and Doberman's command
// policy (shell_command_policy.cc: wrappers, assignments, `sh -c`, eval, find -exec, segments). The
// reader assembles each simple command's words and hands them to EmitCommand; the policy hands
// payloads back to the reader through ParseText. Contract and output conventions are in
// shell_normalizer.h.
#ifndef DOBERMAN_RUNTIME_SHELL_PARSER_H_
#define DOBERMAN_RUNTIME_SHELL_PARSER_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include "shell_normalizer.h"
#include "utf8.h"

namespace doberman::internal {
namespace shell_parser {

using Scratch = SegmentList::Scratch;
using Word = Scratch::Word;
using Level = Scratch::Level;
using Heredoc = Scratch::Heredoc;

inline constexpr size_t kNone = static_cast<size_t>(-1);
// Hard cap on the nesting depth whatever the limits say: the stack holds a few frames per level.
inline constexpr size_t kDepthCap = 256;

// Word flags.
inline constexpr uint32_t kQuoted = 1U << 0;  // some part was quoted or escaped
inline constexpr uint32_t kSubst =
    1U << 1;  // contains $(...), `...`, <(...), >(...), ${...} or $((...))
inline constexpr uint32_t kRedir = 1U
                                   << 2;  // a redirection: Word::op operator bytes, then the target
inline constexpr uint32_t kHereString = 1U << 3;  // `<<<word`
inline constexpr uint32_t kHeredoc = 1U << 4;     // `<<DELIM` / `<<-DELIM`
inline constexpr uint32_t kArray = 1U << 5;       // `NAME=(a b)`: elements between the parentheses

// What ends a command list.
enum class Close : uint8_t { kEof, kParen, kBrace };
// How a command ended: a pipe keeps the next command in the same pipeline (for here-documents piped
// to a shell).
enum class Sep : uint8_t { kEnd, kPipe };

// Bash only separates words on space and tab; CR, VT, FF and NUL are treated as blanks too so that
// a stray CR (CRLF input) or an embedded NUL cannot glue junk onto `/` and hide it from a rule.
inline bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\0';
}
inline bool IsMeta(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
}
inline bool EndsWord(char c) { return IsBlank(c) || c == '\n' || IsMeta(c); }

// Bytes that end a plain run inside a word: word ends, quotes, escapes and expansions. Everything
// else is copied in one append (the hot path: most of a command is plain bytes).
inline constexpr std::array<bool, 256> kStopsPlainRun = [] {
  std::array<bool, 256> t{};
  for (char c : std::string_view(" \t\r\v\f\n;&|()<>\\'\"`$", 18))
    t[static_cast<unsigned char>(c)] = true;
  t[0] = true;
  return t;
}();
inline bool IsWhite(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Whether `s` is `lower` (given in lower case) up to ASCII case: Windows names and ssh's options.
inline bool EqualsAsciiCaseless(std::string_view s, std::string_view lower) {
  return s.size() == lower.size() &&
         std::equal(s.begin(), s.end(), lower.begin(), [](char a, char b) {
           return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
         });
}
inline bool IsNameStart(char c) { return IsAlpha(c) || c == '_'; }
inline bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }
inline int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline bool AllLetters(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsAlpha(c)) return false;
  }
  return true;
}

// The arguments of a base64 or hex decoder (base64 -d, basenc --base64 -d, openssl base64 -d,
// xxd -r -p), fed one by one; then Kind says what the command decodes. Shared by the pipe-to-shell
// reading and the `$(... | base64 -d)` rewrite, which must agree on what a decoder is.
struct DecoderArgs {
  enum class Kind : uint8_t { kNotADecoder, kBase64, kHex };
  bool decode = false, revert = false, plain = false, base64 = false;

  void Note(std::string_view v) {
    const bool short_flags = v.size() >= 2 && v[0] == '-' && v[1] != '-' && AllLetters(v.substr(1));
    decode = decode || v == "--decode" || (short_flags && v.find_first_of("dD") != v.npos);
    revert = revert || v == "-revert" || (short_flags && v.find('r') != v.npos);
    plain = plain || v == "-plain" || v == "-ps" || (short_flags && v.find('p') != v.npos);
    base64 = base64 || v == "--base64" || v == "base64" || v == "-base64" || v == "-a";
  }
  Kind Of(std::string_view argv0) const {
    if (argv0 == "xxd") return revert && plain ? Kind::kHex : Kind::kNotADecoder;
    const bool b64 = base64 || argv0 == "base64";
    if (argv0 != "base64" && argv0 != "basenc" && argv0 != "openssl") return Kind::kNotADecoder;
    return decode && b64 ? Kind::kBase64 : Kind::kNotADecoder;
  }
};

// Interpreters that run program text given inline (`python3 -c`, `perl -e`, `node -e`, awk's
// program) or on stdin: their shell calls are read (HandleEmbedded, NoteStdinProgram).
inline bool IsInlineProgram(std::string_view argv0) {
  // Every command is asked: most are rejected by their first letter before any comparison.
  switch (argv0.empty() ? '\0' : argv0[0]) {
    case 'a':
    case 'b':
    case 'd':
    case 'g':
    case 'l':
    case 'm':
    case 'n':
    case 'p':
    case 'r':
    case 'R':
      break;
    default:
      return false;
  }
  static constexpr std::string_view kNames[] = {"awk",  "gawk", "mawk",   "nawk", "perl",
                                                "ruby", "node", "nodejs", "deno", "bun",
                                                "php",  "lua",  "Rscript"};
  if (std::find(std::begin(kNames), std::end(kNames), argv0) != std::end(kNames)) return true;
  return argv0.substr(0, 6) == "python" || argv0.substr(0, 4) == "pypy" ||
         argv0.substr(0, 3) == "lua";
}

// The text last written to `path` earlier in the command line (SegmentList::Scratch::written; `x`
// and `./x` are the same file), or null. shell_written_files.cc.
const std::string* FindWrittenText(const SegmentList::Scratch& sc, std::string_view path);

// An empty or blank substitution body (`$()`, `` `` ``) expands to nothing; it is elided from the
// word so that `r$()m` reads as the `rm` bash runs.
inline bool IsEmptyCommand(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return IsBlank(c) || c == '\n'; });
}

// `$IFS` / `${IFS}` unquoted (length of the spelling at `s`, or 0): with the default IFS it expands
// to white space that splits the word, the classic `rm${IFS}-rf${IFS}/` spelling.
inline size_t IfsLength(std::string_view s) {
  if (s.substr(0, 6) == "${IFS}") return 6;
  if (s.substr(0, 4) == "$IFS" && (s.size() == 4 || !IsNameChar(s[4]))) return 4;
  return 0;
}

inline bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

inline std::string_view Basename(std::string_view v) {
  const size_t slash = v.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == v.size()) return v;
  return v.substr(slash + 1);
}

// The next word of `s` separated by spaces, from *p on (empty when none is left); *p moves past it.
// Table entries ("uv run") and words ssh joins for the remote shell are read this way.
inline std::string_view NextSpaceSeparated(std::string_view s, size_t* p) {
  while (*p < s.size() && s[*p] == ' ') ++*p;
  const size_t begin = *p;
  while (*p < s.size() && s[*p] != ' ') ++*p;
  return s.substr(begin, *p - begin);
}

inline void Append(std::string* sink, std::string_view s) {
  if (sink != nullptr) sink->append(s);
}
inline void Append(std::string* sink, char c) {
  if (sink != nullptr) sink->push_back(c);
}

inline void AppendUtf8(std::string* sink, uint32_t cp) {
  char bytes[4];
  Append(sink, std::string_view(bytes, EncodeUtf8(cp, bytes)));
}

// Writes one word of a segment: bare, or single-quoted when it holds white space (so that it stays
// one word for the rules), or '' when empty.
// Appends `v` single-quoted, a quote in it as '\'': one word for the shell reader whatever it holds
// (text that is parsed again, such as an inline program's argument lists, is written this way).
inline void AppendQuoted(std::string* s, std::string_view v) {
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

inline void AppendWord(std::string* s, std::string_view v) {
  if (!v.empty() && std::none_of(v.begin(), v.end(), IsWhite)) {
    s->append(v);
    return;
  }
  AppendQuoted(s, v);
}

inline std::string_view View(const Level& lv, const Word& w) {
  return std::string_view(lv.bytes.data() + w.begin, w.size);
}

// The first of words [j, e) of `lv` that is not a redirection, or e.
inline size_t NextWord(const Level& lv, size_t j, size_t e) {
  while (j < e && (lv.words[j].flags & kRedir) != 0) ++j;
  return j;
}

// `NAME=value`, `NAME+=value`, `NAME[sub]=value`, with the name and `=` unquoted (`"A=1" cmd` runs
// `A=1`).
inline bool IsAssignment(const Level& lv, const Word& w) {
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
  bool stop = false;          // the segment limit was hit: unwind without doing more work
  bool substituting = false;  // parsing a command rewritten with variable values: no second rewrite
  bool in_function = false;   // parsing a function body for a call: no nested call is expanded
  bool in_written_file = false;  // parsing a written file that is run: nothing more is noted
  // What Scratch::piped / piped_decoded hold, and the depth and pipeline of the command that wrote
  // it (only a later command of that same pipeline reads it).
  // kPaths: the operands of `find` or `ls`, paths the command prints (for `| while read`, not for a
  // shell: they are not its commands).
  enum class Piped : uint8_t { kEmpty, kLiteral, kDecoded, kPaths } piped = Piped::kEmpty;
  size_t piped_depth = 0;
  // Bytes LoopFeed may still look ahead over (each `while read` loop searches for its `done`): a
  // line of many loops without one cannot make the search quadratic.
  size_t loop_feed_budget = 256 * 1024;
  size_t piped_pipeline = 0;

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
  bool function_body = false;   // a function's name was read: a `{` next opens its body
  bool after_time = false;      // after the `time` keyword: `-p` is its option
};

}  // namespace shell_parser

// The parser over one buffer (the command line, a payload, a backtick body, a here-document body).
// Nested constructs in the same buffer recurse on the same object; another buffer gets its own
// (cheap) object.
struct ShellNormalizer::Impl {
  using Ctx = shell_parser::Ctx;
  using ListState = shell_parser::ListState;
  using Close = shell_parser::Close;
  using Sep = shell_parser::Sep;
  using Level = shell_parser::Level;
  using Word = shell_parser::Word;
  Impl(const ShellNormalizer& n, Ctx& c, std::string_view text) : norm(n), ctx(c), in(text) {}

  const ShellNormalizer& norm;
  Ctx& ctx;
  std::string_view in;
  size_t pos = 0;
  bool in_array = false;  // reading an array's elements: `(` after `NAME=` there is not another
  bool loop_condition_next =
      false;  // `while` / `until` was read: the next command is its condition

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
      if (shell_parser::IsBlank(in[pos])) {
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
  void ReadPipelineHeredocsApart(Level& lv, size_t pipeline);
  void DetachRemoteStdin(Level& lv, size_t i, size_t e, size_t pipeline);
  void NoteScriptFileHeredocs(Level& lv, std::string_view argv0, size_t b, size_t i, size_t e,
                              size_t pipeline);
  void NoteEchoedScript(const Level& lv, std::string_view argv0, size_t b, size_t i, size_t e);
  std::string* NewDetachedScript();
  size_t NoteWrittenFile(std::string_view path, std::string_view text, bool append);
  void NoteWrittenTargets(const Level& lv, std::string_view argv0, size_t b, size_t i, size_t e,
                          std::string_view text);
  void NoteWrittenHeredocs(Level& lv, std::string_view argv0, size_t b, size_t i, size_t e,
                           size_t pipeline);
  void NoteFileRun(std::string_view path, size_t program_segment);
  void NoteRunsOfWrittenFiles(const Level& lv, std::string_view argv0, bool shell, size_t b,
                              size_t i, size_t e);
  const std::string* WrittenText(std::string_view path) const;
  void RunWrittenFiles();
  void BeginGroupOutput();
  void EndGroupOutput();
  void NoteGroupRedirection(const Level& lv, size_t b, size_t e);
  void CollectGroupOutput(const Level& lv, size_t b, size_t e, std::string_view printed);
  void MarkGroupOutputUnknown();
  void CountGroupCommand(bool known_print);
  void AddGroupText(std::string_view text);
  void NoteGroupHeredocs(Level& lv, size_t b, size_t e, size_t pipeline);
  void PipeGroupOutput(size_t depth, size_t pipeline);
  bool RunsShellFromStdin(const Level& lv, size_t k, size_t e) const;
  void HandleRunner(Level& lv, const CommandTraits& traits, size_t i, size_t e, size_t depth,
                    size_t pipeline);
  void NoteStdinProgram(Level& lv, std::string_view argv0, size_t b, size_t e, size_t depth,
                        size_t pipeline);
  void ParseProgramCommands(std::string_view program, size_t depth);
  void WriteProgram(size_t segment, std::string_view text, bool runs_commands, size_t depth);

  bool ReadWord(size_t depth, Word* w);
  void ReadArrayElements(size_t depth, std::string* bytes);
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
  void NotePipedData(const Level& lv, std::string_view argv0, size_t i, size_t e, size_t depth,
                     size_t pipeline);
  bool FilterPipedText(const Level& lv, std::string_view argv0, size_t i, size_t e, size_t depth,
                       size_t pipeline);
  void HandleEmbedded(Level& lv, std::string_view argv0, size_t i, size_t e, size_t depth);
  void HandleWindowsShell(Level& lv, std::string_view argv0, size_t i, size_t e, size_t depth);
  void HandleRemoteCommand(Level& lv, std::string_view argv0, size_t i, size_t e, size_t depth,
                           size_t pipeline);
  void ParseEmbedded(std::string_view text, size_t depth);
  std::string* NewSegment();
  size_t RememberVariable(std::string_view name, std::string_view raw, bool append);
  void RecordAssignments(const Level& lv, size_t j, size_t e);
  void RecordLoopVariable(const Level& lv, size_t j, size_t e);
  void RecordPositionalParameters(const Level& lv, size_t j, size_t e);
  void RecordReadVariables(const Level& lv, size_t j, size_t e, size_t depth, size_t pipeline,
                           bool loop_condition);
  void RecordMapfileArray(const Level& lv, size_t j, size_t e, size_t depth, size_t pipeline,
                          bool loop_condition);
  std::string_view LoopFeed(size_t from) const;
  bool KnownStdin(const Level& lv, size_t j, size_t e, size_t depth, size_t pipeline,
                  bool loop_condition);
  bool SubstituteVariables(const Level& lv, size_t b, size_t e, size_t depth);
  void ReadProcessSubstScript(Level& lv, size_t i, size_t e, size_t depth);
  void RememberFunction(std::string_view body);
  void NoteFunctionCall(const Level& lv, std::string_view name, size_t i, size_t e);
  void ExpandFunctionCalls();
  void AppendRedirs(std::string* s, const Level& lv, size_t b, size_t e) const;
  void AppendArgs(std::string* s, const Level& lv, const CommandTraits* traits, size_t j,
                  size_t e) const;
};

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_SHELL_PARSER_H_
