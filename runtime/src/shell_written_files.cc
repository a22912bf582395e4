// Files a command line writes and then runs: `echo 'rm -rf ~' > /tmp/x && bash /tmp/x`, `cat > job
// <<'EOF' ... EOF` then `chmod +x job; ./job`, `printf ... > t.py; python3 t.py`. Bash runs the
// text that was written, so the shell normalizer reads it too, as commands or as the interpreter's
// program, where the file name alone told the rules nothing. Part of the command policy
// (shell_command_policy.cc); the state lives in SegmentList::Scratch::written.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "interpreter_options.h"
#include "shell_normalizer.h"
#include "shell_parser.h"

namespace doberman::internal {

using namespace shell_parser;  // NOLINT(google-build-using-namespace): this file's own helpers

namespace {

// The same file spelled `x` and `./x` (the common pair: written as `x`, run as `./x`).
std::string_view SamePath(std::string_view path) {
  while (path.substr(0, 2) == "./") path.remove_prefix(2);
  return path;
}

// The entry of `path` last written (SamePath already applied), or kNone.
size_t FindWritten(const SegmentList::Scratch& sc, std::string_view path) {
  for (size_t k = sc.written_count; k-- > 0;) {
    if (sc.written[k].path == path) return k;
  }
  return kNone;
}

// Whether redirection word `w` sends the command's standard output to its target (`>x`, `>>x`,
// `1>x`, `>|x`, `&>x`, `&>>x`), and whether it appends.
bool WritesStdout(const Level& lv, const Word& w, bool* append) {
  if ((w.flags & kRedir) == 0 || (w.flags & (kHeredoc | kHereString)) != 0) return false;
  std::string_view op = View(lv, w).substr(0, w.op);
  if (!op.empty() && (op[0] == '1' || op[0] == '&')) op.remove_prefix(1);
  *append = op.substr(0, 2) == ">>";
  return op == ">" || op == ">>" || op == ">|";
}

// Whether any of words [b, e) of `lv` sends the command's standard output to a file.
bool RedirectsStdout(const Level& lv, size_t b, size_t e) {
  bool append = false;
  for (size_t j = b; j < e; ++j) {
    if (WritesStdout(lv, lv.words[j], &append)) return true;
  }
  return false;
}

// Words of the command that name a file it writes: its stdout redirections, and tee's operands.
template <typename F>
void ForEachTarget(const Level& lv, std::string_view argv0, size_t b, size_t i, size_t e, F&& f) {
  bool tee_append = false;
  for (size_t j = b; j < e; ++j) {
    const Word& w = lv.words[j];
    bool append = false;
    std::string_view path;
    if (WritesStdout(lv, w, &append)) {
      path = View(lv, w).substr(w.op);
    } else if (argv0 == "tee" && j > i && (w.flags & kRedir) == 0) {
      const std::string_view v = View(lv, w);
      if (v == "-a" || v == "--append") tee_append = true;
      if (!v.empty() && v[0] != '-') path = v;
      append = tee_append;
    }
    if (!path.empty() && path.substr(0, 5) != "/dev/") f(path, append);
  }
}

}  // namespace

// Remembers that `text` is written to (or, `append`, added to) `path`; the entry's index, or kNone
// when none is kept: inside a written file's own reading, or past kMaxWrittenFiles (noted, so that
// a later run of a file not kept fails closed). A file run since it was last written keeps that
// text (the run read it) and the new text goes to a new entry.
size_t ShellNormalizer::Impl::NoteWrittenFile(std::string_view path, std::string_view text,
                                              bool append) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if (ctx.in_written_file) return kNone;
  path = SamePath(path);
  const size_t found = FindWritten(sc, path);
  const bool was_run = found != kNone && (sc.written[found].run_by_shell ||
                                          sc.written[found].program_segment != kNone);
  if (found != kNone && !was_run) {
    std::string& kept = sc.written[found].text;
    if (!append) kept.clear();
    kept.append(text);
    return found;
  }
  if (sc.written_count == kMaxWrittenFiles) {
    sc.written_overflow = true;
    return kNone;
  }
  if (sc.written.size() == sc.written_count) sc.written.emplace_back();
  const size_t slot = sc.written_count++;
  SegmentList::Scratch::WrittenFile& f = sc.written[slot];
  f.path.assign(path);
  f.text.clear();
  if (append && found != kNone) f.text = sc.written[found].text;
  f.text.append(text);
  f.run_by_shell = false;
  f.program_segment = kNone;
  return slot;
}

// The files words [b, e) of `lv` (command argv0 at i) write `text` to: what echo or printf prints,
// or what tee passes on.
void ShellNormalizer::Impl::NoteWrittenTargets(const Level& lv, std::string_view argv0, size_t b,
                                               size_t i, size_t e, std::string_view text) {
  ForEachTarget(lv, argv0, b, i, e,
                [&](std::string_view path, bool append) { NoteWrittenFile(path, text, append); });
}

// Here-documents of `pipeline` written to a file (`cat > x <<EOF`, `cat <<EOF | tee x`): each
// gets that file's entry, so that its body is the file's text once it is read.
void ShellNormalizer::Impl::NoteWrittenHeredocs(Level& lv, std::string_view argv0, size_t b,
                                                size_t i, size_t e, size_t pipeline) {
  bool pending = false;
  for (const Heredoc& h : lv.heredocs)
    pending = pending || (h.pipeline == pipeline && !h.commands && h.written_file == kNone);
  if (!pending) return;
  ForEachTarget(lv, argv0, b, i, e, [&](std::string_view path, bool append) {
    const size_t slot = NoteWrittenFile(path, {}, append);
    if (slot == kNone) return;
    for (Heredoc& h : lv.heredocs) {
      if (h.pipeline == pipeline && !h.commands && h.written_file == kNone) h.written_file = slot;
    }
  });
}

const std::string* shell_parser::FindWrittenText(const SegmentList::Scratch& sc,
                                                 std::string_view path) {
  const size_t k = FindWritten(sc, SamePath(path));
  return k == kNone ? nullptr : &sc.written[k].text;
}

// The text last written to `path` in this line, or null.
const std::string* ShellNormalizer::Impl::WrittenText(std::string_view path) const {
  return FindWrittenText(ctx.out->scratch, path);
}

// `path` is run: by a shell (program_segment kNone) or as the program of the interpreter whose
// segment is program_segment. A file written earlier in the line is then read when the line ends
// (RunWrittenFiles); a path run after more files were written than are kept fails closed.
void ShellNormalizer::Impl::NoteFileRun(std::string_view path, size_t program_segment) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if (ctx.in_written_file || path.empty()) return;
  const size_t k = FindWritten(sc, SamePath(path));
  if (k == kNone) {
    if (sc.written_overflow) ctx.Raise(ShellStatus::kTooManySegments);
    return;
  }
  SegmentList::Scratch::WrittenFile& f = sc.written[k];
  if (program_segment == kNone) {
    f.run_by_shell = true;
  } else if (f.program_segment == kNone) {
    f.program_segment = program_segment;
  }
}

// The ways command argv0 (word i of `lv`, its segment just written) runs a file: as its command
// word (`./job`, `/tmp/x`, `"$f"`), as a shell's script or standard input (`bash x`, `sh -e x
// arg`, `sh < x`), sourced (`. x`, `source x`), or as an interpreter's program (`python3 x.py`,
// `python3 -W ignore x.py`, `python3 < x.py`, `awk -f x`, not `python3 -c CODE x`; the options
// are read by interpreter_options.h). Called only once the line has written a file.
void ShellNormalizer::Impl::NoteRunsOfWrittenFiles(const Level& lv, std::string_view argv0,
                                                   bool shell, size_t b, size_t i, size_t e) {
  if (ctx.in_written_file) return;
  const std::string_view name = View(lv, lv.words[i]);
  if (name.find('/') != std::string_view::npos || name.substr(0, 1) == "$")
    NoteFileRun(name, kNone);
  const bool interpreter = IsInlineProgram(argv0);
  if (!shell && !interpreter && argv0 != "source" && argv0 != ".") return;
  const size_t segment = interpreter ? ctx.out->count - 1 : kNone;
  for (size_t j = b; j < e; ++j) {  // `sh < x`, `python3 < t.py`
    const Word& w = lv.words[j];
    const std::string_view v = View(lv, w);
    if ((shell || interpreter) && (w.flags & kRedir) != 0 &&
        (w.flags & (kHeredoc | kHereString)) == 0 && v.substr(0, w.op) == "<") {
      NoteFileRun(v.substr(w.op), segment);
    }
  }
  bool options = true, subcommand = false;
  for (size_t j = NextWord(lv, i + 1, e); j < e; j = NextWord(lv, j + 1, e)) {
    const std::string_view v = View(lv, lv.words[j]);
    if (options && v == "--") {
      options = false;
      continue;
    }
    if (options && v.size() >= 2 && (v[0] == '-' || (shell && v[0] == '+'))) {
      std::string_view glued;
      switch (ReadInterpreterOption(argv0, shell, v, &glued)) {
        case OptionEffect::kFlag:
          continue;
        case OptionEffect::kTakesValue:  // `python3 -W ignore x.py`, `bash -o pipefail x`
          j = NextWord(lv, j + 1, e);
          continue;
        case OptionEffect::kInlineCode:  // the operands after it are its arguments
          return;
        case OptionEffect::kProgramGlued:
          NoteFileRun(glued, segment);
          return;
        case OptionEffect::kProgramNext:  // `awk -f prog.awk`
          j = NextWord(lv, j + 1, e);
          if (j < e) NoteFileRun(View(lv, lv.words[j]), segment);
          return;
      }
    }
    if (!subcommand && IsRunSubcommand(argv0, v)) {  // `deno run x.ts`
      subcommand = true;
      continue;
    }
    if (!shell && FirstOperandIsProgramText(argv0)) return;  // `awk '{...}' data`
    NoteFileRun(v, segment);
    return;
  }
}

// A group opens (`{`, `(`, `do`, `then`): what its echo and printf commands print is collected
// from here on. Bounded by the input: each command's text is added once, to one buffer.
void ShellNormalizer::Impl::BeginGroupOutput() {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if (ctx.in_written_file) return;
  sc.group_marks.push_back({sc.group_output.size(), 0, 0, true});
}

// The group closes: its text is what a redirection right after it writes (NoteGroupRedirection)
// or a pipe after it passes on (PipeGroupOutput). An outer group keeps it as part of its own.
void ShellNormalizer::Impl::EndGroupOutput() {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if (ctx.in_written_file || sc.group_marks.empty()) return;
  const SegmentList::Scratch::GroupMark& closing = sc.group_marks.back();
  const size_t mark = std::min(closing.from, sc.group_output.size());
  sc.closed_group_complete = closing.complete && closing.commands == closing.known_prints;
  sc.group_marks.pop_back();
  sc.closed_group_output.assign(sc.group_output, mark);
  sc.group_closed = true;
  if (sc.group_marks.empty()) sc.group_output.clear();
}

// A command inside the open groups printed text that is not known (or not kept): what they print
// is incomplete, so it is never what a pipe after them passes on.
void ShellNormalizer::Impl::MarkGroupOutputUnknown() {
  for (SegmentList::Scratch::GroupMark& m : ctx.out->scratch.group_marks) m.complete = false;
}

// Inside the open groups, a command is read (EmitCommand), or a command read is an echo or printf
// of known text (`known_print`, NotePipedData): when the two counts differ at a group's end, what
// the group printed is not all known.
void ShellNormalizer::Impl::CountGroupCommand(bool known_print) {
  for (SegmentList::Scratch::GroupMark& m : ctx.out->scratch.group_marks)
    ++(known_print ? m.known_prints : m.commands);
}

// A `{ ...; }` or `( ... )` group just closed at `depth` in `pipeline`: when every command in it
// printed known text, that text is what the next command of the pipeline reads, as an echo's is
// (`{ echo 'rm -rf ~'; } | sh`, `( printf ...; ) | tee x`). Loops and ifs are not passed on:
// their conditions print too.
void ShellNormalizer::Impl::PipeGroupOutput(size_t depth, size_t pipeline) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if (ctx.in_written_file || !sc.group_closed || !sc.closed_group_complete ||
      sc.closed_group_output.empty())
    return;
  sc.piped.assign(sc.closed_group_output);
  ctx.piped = Ctx::Piped::kLiteral;
  ctx.piped_depth = depth;
  ctx.piped_pipeline = pipeline;
}

// A command right after a group closed (words [b, e) of `lv`): when it is only output
// redirections (`{ echo ...; } > /tmp/x`), they write the group's text to their files.
void ShellNormalizer::Impl::NoteGroupRedirection(const Level& lv, size_t b, size_t e) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  sc.group_closed = false;
  if (ctx.in_written_file) return;
  bool redirected = false;
  for (size_t j = b; j < e; ++j) {
    if ((lv.words[j].flags & kRedir) == 0) return;
    bool append = false;
    redirected = redirected || WritesStdout(lv, lv.words[j], &append);
  }
  if (redirected) NoteWrittenTargets(lv, {}, b, b, e, sc.closed_group_output);
}

// An echo or printf (words [b, e) of `lv`) inside a group adds what it prints (`printed`) to the
// group's text, unless it writes that to a file of its own.
void ShellNormalizer::Impl::CollectGroupOutput(const Level& lv, size_t b, size_t e,
                                               std::string_view printed) {
  if (!RedirectsStdout(lv, b, e)) AddGroupText(printed);
}

// Adds `text` (a line a command inside the open groups prints) to their text, up to the input's
// size; past it the text is incomplete.
void ShellNormalizer::Impl::AddGroupText(std::string_view text) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  if (ctx.in_written_file || sc.group_marks.empty() || text.empty()) return;
  if (sc.group_output.size() + text.size() <= norm.limits_.max_bytes) {
    sc.group_output.append(text);
    if (text.back() != '\n') sc.group_output.push_back('\n');
  } else {
    MarkGroupOutputUnknown();
  }
}

// A `cat` (words [b, e) of `lv`) inside a group, its output not redirected, prints the
// here-documents of its pipeline: each body is added to the group's text when it is read
// (ReadHeredocBodies), `{ cat <<'EOF' ... EOF } > job`. Unless a shell or program reads it instead.
void ShellNormalizer::Impl::NoteGroupHeredocs(Level& lv, size_t b, size_t e, size_t pipeline) {
  if (ctx.in_written_file || ctx.out->scratch.group_marks.empty() || RedirectsStdout(lv, b, e))
    return;
  for (Heredoc& h : lv.heredocs) {
    if (h.pipeline == pipeline && !h.commands && h.written_file == kNone) h.group_printed = true;
  }
}

// Reads each written file that was run, once the line has been read (here-document bodies are
// read at the end of their line): a shell's as commands of this line, an interpreter's as the
// program of its segment. One level: what those readings write or run is not followed further.
void ShellNormalizer::Impl::RunWrittenFiles() {
  SegmentList::Scratch& sc = ctx.out->scratch;
  ctx.in_written_file = true;
  for (size_t k = 0; k < sc.written_count && !ctx.stop; ++k) {
    const SegmentList::Scratch::WrittenFile& f = sc.written[k];
    if (f.text.empty()) continue;
    if (f.run_by_shell) {
      ParseText(f.text, 1);
      // Also read as a script being written is (for BLOCK, its raw text too), where the rules over
      // the raw command text (a piped download's `| sh`) see it; once, if not handed over already.
      const SegmentList& out = *ctx.out;
      bool handed = false;
      for (size_t d = 0; d < out.detached_script_count; ++d)
        handed = handed || out.detached_scripts[d] == f.text;
      if (!handed) {
        if (std::string* script = NewDetachedScript()) script->assign(f.text);
      }
    }
    if (f.program_segment < ctx.out->count) WriteProgram(f.program_segment, f.text, true, 0);
  }
  ctx.in_written_file = false;
}

}  // namespace doberman::internal
