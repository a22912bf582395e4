// The bash reader half of the shell normalizer: one bounded, single-pass recursive-descent reading
// of a command list. ParseList walks the list and assembles each simple command's words (quotes
// removed, substitutions recursed into as they are met) in a per-depth scratch Level, then hands
// the command to the policy half (EmitCommand, shell_command_policy.cc). Every recursive path goes
// one depth deeper and checks the limit first, so the stack is bounded by max_depth; every loop
// consumes input or returns, so the time is bounded by the input size times the depth.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "shell_normalizer.h"
#include "shell_parser.h"
#include "shell_printf.h"
#include "units.h"

namespace doberman::internal {

using namespace shell_parser;  // NOLINT(google-build-using-namespace): this file's own helpers

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
      ctx.out->scratch.fn_pending.assign(View(lv, lv.words[0]));
      st->function_body = true;
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
  BeginGroupOutput();
  if (ParseList(depth + 1, Close::kParen, true)) TransferHeredocs(depth + 1, depth, st->pipeline);
  EndGroupOutput();
  PipeGroupOutput(depth, st->pipeline);
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
  const bool function_body = st->function_body;  // only the very next word may open the body
  st->function_body = false;
  if (plain && lv.words.empty() && !st->case_header && !st->pattern) {
    if (st->drop_name) {
      st->drop_name = false;
      ctx.out->scratch.fn_pending.assign(v);
      st->function_body = true;
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
      const size_t body = pos;
      BeginGroupOutput();
      if (Enter(depth + 1) && ParseList(depth + 1, Close::kBrace, true)) {
        TransferHeredocs(depth + 1, depth, st->pipeline);
      }
      EndGroupOutput();
      PipeGroupOutput(depth, st->pipeline);
      if (function_body) RememberFunction(in.substr(body, pos - body));
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
      loop_condition_next = v == "while" || v == "until";  // before drop(), which ends `v`
      // A loop's or an if's body prints as a group does (`for ...; do echo ...; done > f`).
      const bool opens = v == "do" || v == "then";
      const bool closes = v == "done" || v == "fi";
      drop();
      if (opens) BeginGroupOutput();
      if (closes) EndGroupOutput();
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
  if (sep != Sep::kPipe) {
    ++st->pipeline;
    if (depth == 0) ++ctx.out->next_pipeline;
  }
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

// The here-documents of this pipeline that no shell here reads become scripts read apart when their
// bodies are read (ReadHeredocBodies).
void ShellNormalizer::Impl::ReadPipelineHeredocsApart(Level& lv, size_t pipeline) {
  for (Heredoc& h : lv.heredocs) {
    if (h.pipeline == pipeline && !h.commands) h.read_apart = true;
  }
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
    SegmentList& out = *ctx.out;
    if (!h.commands && (h.read_apart || IsShellScript({}, body))) {
      if (std::string* script = NewDetachedScript()) script->assign(body);
    }
    if (h.group_printed && !h.commands && h.program_segment >= out.count) AddGroupText(body);
    if (!h.commands && h.written_file < out.scratch.written_count) {
      // The body is the text of a file the line writes (NoteWrittenHeredocs), for a later run.
      out.scratch.written[h.written_file].text.append(body);
    }
    if (h.program_segment < out.count && !h.commands) {
      // A stdin program's text (NoteStdinProgram), without the body's last line break, so that it
      // reads as the same text given as a here-string. Bounded: each body is written once, to one
      // segment, and is part of the input.
      std::string_view text = body;
      if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
      WriteProgram(h.program_segment, text, h.program_runs_commands, depth);
    }
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
      if (c == '(' && !in_array && plain && w->flags == 0 && before > w->begin &&
          (*bytes)[before - 1] == '=') {
        // `NAME=(` or `NAME+=(`: an array assignment, one word (IsAssignment checks the name).
        const std::string_view head(bytes->data() + w->begin, before - w->begin - 1);
        const std::string_view name =
            head.empty() || head.back() != '+' ? head : head.substr(0, head.size() - 1);
        if (!name.empty() && IsNameStart(name[0]) &&
            std::all_of(name.begin(), name.end(), IsNameChar)) {
          note(before, kArray);
          ReadArrayElements(depth, bytes);
          break;
        }
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

// The elements of an array assignment, pos at its `(`: each read as a word (quotes removed,
// expansions kept as written) into `bytes` between the parentheses, separated by single spaces.
// An operator inside, or no `)`, is bash's syntax error.
void ShellNormalizer::Impl::ReadArrayElements(size_t depth, std::string* bytes) {
  bytes->push_back('(');
  ++pos;
  bool first = true;
  in_array = true;
  while (!ctx.stop) {
    while (pos < in.size() && (IsWhite(in[pos]) || (in[pos] == '\\' && At(pos + 1) == '\n'))) {
      pos += in[pos] == '\\' ? 2 : 1;
    }
    if (pos < in.size() && in[pos] == ')') {
      ++pos;
      bytes->push_back(')');
      break;
    }
    if (pos >= in.size() || EndsWord(in[pos])) {
      ctx.Raise(ShellStatus::kUnbalanced);
      break;
    }
    if (!first) bytes->push_back(' ');
    first = false;
    Word element;
    const size_t at = pos;
    ReadWord(depth, &element);
    if (pos == at) {  // nothing read: never loop in place
      ctx.Raise(ShellStatus::kUnbalanced);
      break;
    }
  }
  in_array = false;
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
    if (const char simple = shell_printf::SimpleEscape(e); simple != 0) {
      put(static_cast<unsigned char>(simple));
      continue;
    }
    switch (e) {
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

}  // namespace doberman::internal
