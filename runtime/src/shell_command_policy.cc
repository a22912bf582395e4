// The command-policy half of the shell normalizer: what Doberman makes of a simple command the bash
// reader (shell_reader.cc) assembled. Assignments and wrappers (sudo, env, timeout, nice ...) are
// stripped, shells' `-c` payloads, eval, env -S and the here-documents fed to a shell are parsed
// again as command lines, find -exec commands become segments of their own, and the canonical
// segment the command rules match is written. Also the public entry points (ShellNormalizer).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#include "command_literals.h"
#include "encoded_runs.h"
#include "shell_normalizer.h"
#include "shell_parser.h"
#include "shell_printf.h"
#include "shell_text_filters.h"
#include "units.h"

namespace doberman::internal {

using namespace shell_parser;  // NOLINT(google-build-using-namespace): this file's own helpers

// ---------------------------------------------------------------------------------------------------------
// Commands to segments

// The next detached script's slot, or nullptr when all kMaxDetachedScripts are taken: then the
// command line holds a script that will not be read, which fails closed like a segment too many.
std::string* ShellNormalizer::Impl::NewDetachedScript() {
  SegmentList& out = *ctx.out;
  if (out.detached_script_count >= SegmentList::kMaxDetachedScripts) {
    ctx.Raise(ShellStatus::kTooManySegments);
    return nullptr;
  }
  if (out.detached_scripts.size() == out.detached_script_count) out.detached_scripts.emplace_back();
  std::string* script = &out.detached_scripts[out.detached_script_count++];
  script->clear();
  return script;
}

std::string* ShellNormalizer::Impl::NewSegment() {
  SegmentList* out = ctx.out;
  if (out->count - ctx.first >= ctx.max_segments) {
    ctx.Raise(ShellStatus::kTooManySegments);
    ctx.stop = true;
    return nullptr;
  }
  if (out->count >= out->segments.size()) out->segments.emplace_back();
  if (out->pipelines.size() < out->segments.size()) out->pipelines.resize(out->segments.size());
  out->pipelines[out->count] = out->next_pipeline;
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
  if (!ctx.out->scratch.group_marks.empty()) CountGroupCommand(false);
  // Whether this command is a `while` or `until` loop's condition (read below); any command ends
  // it.
  const bool loop_condition = std::exchange(loop_condition_next, false);
  // `{ echo ...; } > f`: the redirection after a group writes what the group printed.
  if (ctx.out->scratch.group_closed) NoteGroupRedirection(lv, b, e);
  auto next = [&](size_t i) { return NextWord(lv, i, e); };
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
    if (s == nullptr) {
      if (wrapper == kNone) RecordAssignments(lv, first, e);
      return;
    }
    if (wrapper != kNone) {
      AppendWord(s, Basename(View(lv, lv.words[wrapper])));
    } else {
      for (size_t j = first; j < e; j = next(j + 1)) {
        if (!s->empty()) s->push_back(' ');
        AppendWord(s, View(lv, lv.words[j]));
      }
    }
    if (with_redirs) AppendRedirs(s, lv, b, e);
    // `exec 3<>/dev/tcp/$host/$port` and `> "$out"`: the redirections' targets are read with the
    // known values too (a command with no redirection has nothing to rewrite but assignments,
    // which RecordAssignments reads). A rewrite's parse records the assignments itself, with the
    // values known before them: recording them here first would feed `X=$X/b` its own result.
    const bool rewritten = with_redirs && redirs && SubstituteVariables(lv, b, e, depth);
    if (wrapper == kNone && !rewritten) RecordAssignments(lv, first, e);
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
  if (wrapper != kNone && name.substr(0, 3) == ":::" &&
      Basename(View(lv, lv.words[wrapper])) == "parallel") {
    // GNU parallel given no command runs each argument after ::: as a command line through the
    // shell (`parallel ::: 'rm -rf /' 'curl x | sh'`); arguments after :::: name files of them.
    bool commands = true;
    for (size_t j = i; j < e && !ctx.stop; j = next(j + 1)) {
      const std::string_view v = View(lv, lv.words[j]);
      if (v == ":::" || v == ":::+" || v == "::::" || v == "::::+") {
        commands = v.size() < 4 || v[3] != ':';
      } else if (commands && (lv.words[j].flags & kRedir) == 0) {
        HandleJoined(lv, v, e, e, depth);
      }
    }
  }
  // The wrapper loop usually looked this very name up already.
  const CommandTraits* traits =
      looked_up_at == i && argv0 == Basename(name) ? looked_up : norm.Traits(argv0);
  NotePipedData(lv, argv0, i, e, depth, pipeline);
  HandleEmbedded(lv, argv0, i, e, depth);
  HandleRemoteCommand(lv, argv0, i, e, depth, pipeline);
  NoteScriptFileHeredocs(lv, argv0, b, i, e, pipeline);
  if (!lv.heredocs.empty()) {
    NoteWrittenHeredocs(lv, argv0, b, i, e, pipeline);
    if (argv0 == "cat") NoteGroupHeredocs(lv, b, e, pipeline);
  }
  NoteEchoedScript(lv, argv0, b, i, e);
  if (ctx.piped == Ctx::Piped::kLiteral && ctx.piped_depth == depth &&
      ctx.piped_pipeline == pipeline && argv0 == "tee") {
    NoteWrittenTargets(lv, argv0, b, i, e, ctx.out->scratch.piped);
  }
  HandleWindowsShell(lv, argv0, i, e, depth);
  if (traits != nullptr && !traits->runners.empty())
    HandleRunner(lv, *traits, i, e, depth, pipeline);
  if (traits != nullptr && traits->shell) {
    HandleShell(lv, b, i, e, depth, pipeline);
    ReadProcessSubstScript(lv, i, e, depth);
  } else if (argv0 == "source" || argv0 == ".") {
    ReadProcessSubstScript(lv, i, e, depth);
  } else if (argv0 == "eval") {
    size_t j = next(i + 1);
    if (j < e && View(lv, lv.words[j]) == "--") j = next(j + 1);
    HandleJoined(lv, std::string_view(), j, e, depth);
  } else if (argv0 == "find") {
    HandleFindExec(lv, i, e, depth, pipeline);
  } else if (argv0 == "for") {
    RecordLoopVariable(lv, i + 1, e);
  } else if (argv0 == "read") {
    RecordReadVariables(lv, i + 1, e, depth, pipeline, loop_condition);
  } else if (argv0 == "mapfile" || argv0 == "readarray") {
    RecordMapfileArray(lv, i + 1, e, depth, pipeline, loop_condition);
  }
  std::string* s = NewSegment();
  if (s == nullptr) return;
  AppendWord(s, argv0);
  AppendArgs(s, lv, traits, i + 1, e);
  if (with_redirs) AppendRedirs(s, lv, b, e);
  if (traits != nullptr && traits->stdin_program)
    NoteStdinProgram(lv, argv0, b, e, depth, pipeline);
  const SegmentList::Scratch& sc = ctx.out->scratch;
  if ((sc.written_count > 0 || sc.written_overflow) && (cmd.flags & kSubst) == 0)
    NoteRunsOfWrittenFiles(lv, argv0, traits != nullptr && traits->shell, b, i, e);
  // Assignments and `set --` are recorded after the rewrite, and only when there was none: its
  // parse records them with the values known before them (`export X=$X/b` is X's old value plus
  // /b, `set -- "$2" "$1"` swaps).
  if (!SubstituteVariables(lv, b, e, depth)) {
    if (argv0 == "export" || argv0 == "declare" || argv0 == "local" || argv0 == "typeset" ||
        argv0 == "readonly") {
      RecordAssignments(lv, i + 1, e);
    } else if (argv0 == "set") {
      RecordPositionalParameters(lv, i + 1, e);
    }
  }
  if ((cmd.flags & kSubst) == 0) NoteFunctionCall(lv, name, i, e);
}

// A program that runs the text on its stdin (`python3 - <<'EOF'`, `cat <<EOF | psql`,
// `echo CODE | base64 -d | node`, `perl <<< CODE`): what its pipeline feeds it is its program,
// written into its segment (the one just emitted) as a here-string is, where the rules written for
// `-c`/`-e` code see it, and the shell calls in it are read as HandleEmbedded reads an inline
// program's. A literal or decoded text piped in is known now; here-document bodies are read after
// the line ends, so ReadHeredocBodies does the same with them. Over-inclusive when the text is data
// for a script named on the command line, which can only raise the verdict.
void ShellNormalizer::Impl::NoteStdinProgram(Level& lv, std::string_view argv0, size_t b, size_t e,
                                             size_t depth, size_t pipeline) {
  const size_t segment = ctx.out->count - 1;
  const bool runs_commands = IsInlineProgram(argv0);
  for (Heredoc& h : lv.heredocs) {
    if (h.pipeline == pipeline && !h.commands) {
      h.program_segment = segment;
      h.program_runs_commands = runs_commands;
    }
  }
  const bool decoded = ctx.piped == Ctx::Piped::kDecoded;
  const std::string& text = decoded ? ctx.out->scratch.piped_decoded : ctx.out->scratch.piped;
  // An echoed word that names a variable (`printf "$X" | node`) is not known text: the program
  // stays unseen (and its segment the one the unseen-program rules read).
  const bool known = decoded || (ctx.piped == Ctx::Piped::kLiteral &&
                                 text.find_first_of("$`") == std::string::npos);
  if (known && ctx.piped_depth == depth && ctx.piped_pipeline == pipeline) {
    ctx.piped = Ctx::Piped::kEmpty;
    WriteProgram(segment, text, runs_commands, depth);
  }
  if (!runs_commands) return;
  for (size_t j = b; j < e && !ctx.stop; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kHereString) != 0) ParseProgramCommands(View(lv, w).substr(w.op), depth);
  }
}

// A stdin program's text, written into its segment as a here-string is written, and, for an inline
// program, its shell calls parsed. `text` may be the scratch's piped text: ParseProgramCommands
// copies the calls out of it before it parses them (which may write the scratch buffers).
void ShellNormalizer::Impl::WriteProgram(size_t segment, std::string_view text, bool runs_commands,
                                         size_t depth) {
  std::string& s = ctx.out->segments[segment];
  s.append(" <<<");
  AppendWord(&s, text);
  if (runs_commands) ParseProgramCommands(text, depth);
}

// The command lines an inline program's text passes to system(), popen(), backticks ...,
// parsed as commands of their own. `program` must not point into this depth's aux (appended to
// here).
void ShellNormalizer::Impl::ParseProgramCommands(std::string_view program, size_t depth) {
  std::string& aux = ctx.Lv(depth).aux;
  const size_t mark = aux.size();
  AppendCommandLiterals(program, /*backticks=*/true, &aux);
  if (aux.size() > mark) ParseEmbedded(std::string_view{aux}.substr(mark), depth);
  aux.resize(mark);
}

// A shell: `-c PAYLOAD` (also `-lc`, `-c -- PAYLOAD`, su's `-c'cmd'`, `--command=`) is parsed as a
// command line. Without one the shell reads commands from stdin, so the here-documents piped or
// redirected into it, and its here-strings, are parsed as commands.
void ShellNormalizer::Impl::HandleShell(Level& lv, size_t b, size_t i, size_t e, size_t depth,
                                        size_t pipeline) {
  auto next = [&](size_t k) { return NextWord(lv, k, e); };
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
  if ((ctx.piped == Ctx::Piped::kLiteral || ctx.piped == Ctx::Piped::kDecoded) &&
      ctx.piped_depth == depth && ctx.piped_pipeline == pipeline) {
    // `echo CMD | sh`, `... | base64 -d | sh`: the shell runs that text. Copied to this depth's aux
    // (free here, as in HandleJoined): parsing it may write the scratch buffers again.
    std::string& aux = ctx.Lv(depth).aux;
    const size_t mark = aux.size();
    aux.append(ctx.piped == Ctx::Piped::kDecoded ? ctx.out->scratch.piped_decoded
                                                 : ctx.out->scratch.piped);
    ctx.piped = Ctx::Piped::kEmpty;
    ParseText(std::string_view{aux}.substr(mark), depth + 1);
    aux.resize(mark);
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

namespace {

// What echo or printf (argv0, its words i+1..e of `lv`) writes to its output, into *out without
// echo's closing line break: echo's words after its options joined by spaces, with echo -e's
// escapes read, and printf's format worked out over its arguments (shell_printf.h). Where that is
// not worked out (a directive such as %x or %-10s, an unknown escape, more than 64 words or
// `max_bytes`), the words themselves, printf's format left out when it holds a `%`: each word is
// still read, as the rules would read it typed. False (nothing written) for `printf -v`, which
// prints into a variable.
bool PrintedText(const Level& lv, std::string_view argv0, size_t i, size_t e, size_t max_bytes,
                 std::string* out) {
  constexpr size_t kMaxWords = 64;
  std::array<std::string_view, kMaxWords> words{};
  size_t n = 0;
  size_t rest = e;  // the first word past kMaxWords
  bool options = true;
  bool escapes = false;
  for (size_t k = NextWord(lv, i + 1, e); k < e; k = NextWord(lv, k + 1, e)) {
    const std::string_view v = View(lv, lv.words[k]);
    if (options && argv0 == "echo" && v.size() >= 2 && v[0] == '-' &&
        v.find_first_not_of("neE", 1) == std::string_view::npos) {
      // The last of -e and -E given wins, as in bash.
      for (char c : v.substr(1)) escapes = c == 'e' || (escapes && c != 'E');
      continue;
    }
    if (options && argv0 == "printf" && v == "-v") return false;
    const bool end_of_options = options && argv0 == "printf" && v == "--";
    options = false;
    if (end_of_options) continue;
    if (n == kMaxWords) {
      rest = k;
      break;
    }
    words[n++] = v;
  }
  out->clear();
  const std::span<const std::string_view> all(words.data(), n);
  if (rest == e && argv0 == "printf" && n > 0 &&
      shell_printf::FormatPrintf(words[0], all.subspan(1), max_bytes, out)) {
    return true;
  }
  out->clear();
  auto append = [out](std::string_view v) {
    if (!out->empty()) out->push_back(' ');
    out->append(v);
  };
  if (rest == e && escapes) {
    std::string joined;
    for (std::string_view v : all) joined.append(joined.empty() ? "" : " ").append(v);
    bool stop = false;
    if (shell_printf::AppendEscaped(joined, shell_printf::Escapes::kEcho, out, &stop)) return true;
    out->clear();
  }
  const bool skip_format =
      argv0 == "printf" && n > 0 && words[0].find('%') != std::string_view::npos;
  for (size_t k = skip_format ? 1 : 0; k < n; ++k) append(words[k]);
  for (size_t k = rest; k < e; k = NextWord(lv, k + 1, e)) append(View(lv, lv.words[k]));
  return true;
}

// The text of the here-string of the command whose name is word i (`CMD <<< TEXT`), empty when it
// has none; `arg` is handed each of the words after the name that is not a redirection, until it
// returns false.
template <typename OnArg>
std::string_view HereStringAndArgs(const Level& lv, size_t i, size_t e, OnArg&& arg) {
  std::string_view here;
  for (size_t j = i + 1; j < e; ++j) {
    const Word& w = lv.words[j];
    const std::string_view v = View(lv, w);
    if ((w.flags & kHereString) != 0) here = v.substr(w.op);
    if ((w.flags & kRedir) == 0 && !arg(w, v)) break;
  }
  return here;
}
}  // namespace

// Follows data along a pipeline towards a shell: the literal an echo or printf writes, then what a
// base64 or hex decoder (base64 -d, basenc --base64 -d, openssl base64 -d, xxd -r -p) makes of it,
// or of its own here-string. HandleShell parses the decoded text when a shell without -c reads it.
void ShellNormalizer::Impl::NotePipedData(const Level& lv, std::string_view argv0, size_t i,
                                          size_t e, size_t depth, size_t pipeline) {
  // Every command comes here: most are turned away by their first letter before any comparison
  // (echo, printf, cat, find, ls, rev, tr, base64, basenc, openssl and xxd are read below).
  switch (argv0.empty() ? '\0' : argv0[0]) {
    case 'e':
    case 'p':
    case 'c':
    case 'f':
    case 'l':
    case 'r':
    case 't':
    case 'b':
    case 'o':
    case 'x':
      break;
    default:
      return;
  }
  SegmentList::Scratch& sc = ctx.out->scratch;
  auto for_args = [&](auto&& f) {
    for (size_t j = i + 1; j < e; ++j) {
      const Word& w = lv.words[j];
      if ((w.flags & kRedir) == 0) f(w, View(lv, w));
    }
  };
  auto add_word = [&](std::string_view v) {  // to the words piped, joined by single spaces
    if (!sc.piped.empty()) sc.piped.push_back(' ');
    sc.piped.append(v);
  };
  auto carry = [&](Ctx::Piped kind) {  // what this command writes down its pipeline
    ctx.piped = kind;
    ctx.piped_depth = depth;
    ctx.piped_pipeline = pipeline;
  };
  if (argv0 == "echo" || argv0 == "printf") {
    bool literal = PrintedText(lv, argv0, i, e, norm.limits_.max_bytes, &sc.piped);
    for_args(
        [&](const Word& w, std::string_view) { literal = literal && (w.flags & kSubst) == 0; });
    if (!sc.group_marks.empty()) {
      if (literal) CountGroupCommand(true);
      CollectGroupOutput(lv, i, e, sc.piped);
    }
    carry(literal && !sc.piped.empty() ? Ctx::Piped::kLiteral : Ctx::Piped::kEmpty);
    return;
  }
  if (sc.written_count > 0 && argv0 == "cat") {
    // `cat FILE | sh` of a file this line wrote (shell_written_files.cc): its text, as echoed.
    size_t operands = 0;
    std::string_view file;
    for_args([&](const Word&, std::string_view v) {
      ++operands;
      file = v;
    });
    const std::string* text = operands == 1 ? WrittenText(file) : nullptr;
    if (text != nullptr && !text->empty()) {
      sc.piped.assign(*text);
      carry(Ctx::Piped::kLiteral);
    }
    return;
  }
  if (argv0 == "find" || argv0 == "ls") {
    // The paths they are given, for a `while read` later in the pipeline: what ls lists is named
    // by them, and find prints its start points and everything below them, unless a test such as
    // -name filters what it prints (its output is then unknown).
    static constexpr std::string_view kUnfiltered[] = {
        "-maxdepth", "-mindepth", "-type",   "-depth", "-xdev", "-mount",
        "-print",    "-print0",   "-follow", "-H",     "-L",    "-P"};
    sc.piped.clear();
    bool literal = true;
    bool expression = false;  // find: past its start points
    bool takes_value = false;
    for_args([&](const Word& w, std::string_view v) {
      if ((w.flags & kSubst) != 0 || v.find('$') != std::string_view::npos) literal = false;
      if (takes_value) {
        takes_value = false;
        return;
      }
      if (v.empty()) return;
      if (argv0 == "find" && (expression || v[0] == '-' || v[0] == '(' || v[0] == '!')) {
        expression = true;
        if (std::find(std::begin(kUnfiltered), std::end(kUnfiltered), v) == std::end(kUnfiltered))
          literal = false;
        takes_value = v == "-maxdepth" || v == "-mindepth" || v == "-type";
        return;
      }
      if (v[0] != '-') add_word(v);  // not one of ls's options
    });
    carry(literal && !sc.piped.empty() ? Ctx::Piped::kPaths : Ctx::Piped::kEmpty);
    return;
  }
  if (argv0 == "rev" || argv0 == "tr") {
    if (FilterPipedText(lv, argv0, i, e, depth, pipeline)) carry(Ctx::Piped::kDecoded);
    return;
  }
  if (argv0 != "base64" && argv0 != "basenc" && argv0 != "openssl" && argv0 != "xxd") return;
  DecoderArgs args;
  const std::string_view here = HereStringAndArgs(lv, i, e, [&](const Word&, std::string_view v) {
    args.Note(v);
    return true;
  });
  const DecoderArgs::Kind kind = args.Of(argv0);
  const bool hex = kind == DecoderArgs::Kind::kHex;
  const bool is_decoder = kind != DecoderArgs::Kind::kNotADecoder;
  const bool from_pipe = ctx.piped == Ctx::Piped::kLiteral && ctx.piped_depth == depth &&
                         ctx.piped_pipeline == pipeline;
  ctx.piped = Ctx::Piped::kEmpty;
  if (!is_decoder || (here.empty() && !from_pipe)) return;
  // Decoders skip line breaks (and -i, any other white space): keep only the encoded characters.
  if (!here.empty()) sc.piped.assign(here);
  sc.piped.erase(std::remove_if(sc.piped.begin(), sc.piped.end(), IsWhite), sc.piped.end());
  DecodeLimits dl;
  dl.max_run_bytes = norm.limits_.max_bytes;
  if (!DecodeRun(sc.piped, {0, sc.piped.size(), hex ? Encoding::kHex : Encoding::kBase64}, dl,
                 &sc.piped_decoded)) {
    return;
  }
  carry(Ctx::Piped::kDecoded);
  // `base64 -d <<< B64 > /tmp/r`: the decoded text is what the file holds, for a later run.
  NoteWrittenTargets(lv, argv0, i, i, e, sc.piped_decoded);
}

// `rev` and `tr` between known text and the rest of the pipeline (`echo '~ fr- mr' | rev | sh`,
// `echo 'ez -es ~' | tr a-z n-za-m | sh`, `rev <<< TEXT`): what they print is worked out
// (shell_text_filters.h) into `piped_decoded`, and true is returned, so that NotePipedData carries
// it on as decoded text. Text that is not known (an echoed variable) or a form they do not read
// leaves what was piped as it was (false): a filter's input, read over-inclusively as grep's is.
bool ShellNormalizer::Impl::FilterPipedText(const Level& lv, std::string_view argv0, size_t i,
                                            size_t e, size_t depth, size_t pipeline) {
  SegmentList::Scratch& sc = ctx.out->scratch;
  std::array<std::string_view, 4> args;
  size_t count = 0;
  bool readable = true;  // no expansion among the arguments, and not too many of them
  const std::string_view here = HereStringAndArgs(lv, i, e, [&](const Word& w, std::string_view v) {
    readable =
        (w.flags & kSubst) == 0 && v.find('$') == std::string_view::npos && count < args.size();
    if (readable) args[count++] = v;
    return readable;
  });
  if (!readable) return false;
  const bool from_pipe =
      ctx.piped_depth == depth && ctx.piped_pipeline == pipeline &&
      (ctx.piped == Ctx::Piped::kDecoded ||
       (ctx.piped == Ctx::Piped::kLiteral && sc.piped.find_first_of("$`") == std::string::npos));
  if (here.empty() && !from_pipe) return false;
  // The input in `piped`, so that the output can go to `piped_decoded`.
  if (!here.empty()) {
    sc.piped.assign(here);
  } else if (ctx.piped == Ctx::Piped::kDecoded) {
    sc.piped.assign(sc.piped_decoded);
  }
  return ApplyTextFilter(argv0, std::span(args.data(), count), sc.piped, &sc.piped_decoded);
}

namespace {
// The file an output redirection writes (`>x`, `>>x`, `&>x`), or empty for any other word.
std::string_view OutputTarget(const Level& lv, const Word& w) {
  if ((w.flags & kRedir) == 0 || (w.flags & (kHeredoc | kHereString)) != 0) return {};
  const std::string_view v = View(lv, w);
  if (v.substr(0, w.op).find('>') == std::string_view::npos) return {};
  return v.substr(w.op);
}
}  // namespace

// A here-document written to a file named as a shell script (`cat > deploy.sh <<'EOF'`, `cat <<EOF
// | tee -a run.bash`) is a script being written, as a Write of that file is, whether or not its
// body opens with a `#!` line: its body becomes a detached script when it is read
// (ReadHeredocBodies).
void ShellNormalizer::Impl::NoteScriptFileHeredocs(Level& lv, std::string_view argv0, size_t b,
                                                   size_t i, size_t e, size_t pipeline) {
  bool script_file = false;
  for (size_t j = b; j < e && !script_file; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) != 0) {
      script_file = IsShellScript(OutputTarget(lv, w), {});
    } else if (argv0 == "tee" && j > i) {
      script_file = IsShellScript(View(lv, w), {});
    }
  }
  if (script_file) ReadPipelineHeredocsApart(lv, pipeline);
}

// `echo|printf TEXT > FILE` writes a file as `cat > FILE <<EOF` does: when FILE is named as a shell
// script, or TEXT opens with a shell's `#!` line, TEXT is a script being written and becomes a
// detached script, so that `echo 'rm -rf ~' > x.sh && bash x.sh` meets the rules its here-document
// spelling meets. TEXT is what the command prints (PrintedText).
void ShellNormalizer::Impl::NoteEchoedScript(const Level& lv, std::string_view argv0, size_t b,
                                             size_t i, size_t e) {
  if (argv0 != "echo" && argv0 != "printf") return;
  bool to_file = false;
  bool script_name = false;
  for (size_t j = b; j < e; ++j) {  // from b: `>x.sh echo ...` writes the file too
    const std::string_view target = OutputTarget(lv, lv.words[j]);
    if (target.empty()) continue;
    to_file = true;
    script_name = script_name || IsShellScript(target, {});
  }
  if (!to_file) return;
  std::string text;
  if (!PrintedText(lv, argv0, i, e, norm.limits_.max_bytes, &text)) return;
  if (argv0 == "echo") text.push_back('\n');
  NoteWrittenTargets(lv, argv0, b, i, e, text);
  if (!script_name && !IsShellScript({}, text)) return;
  if (std::string* script = NewDetachedScript()) {
    script->assign(text);
    if (text.empty() || text.back() != '\n') script->push_back('\n');
  }
}

// Windows shells: `powershell|pwsh [options] -Command|-c WORDS...` and `cmd /c|/k WORDS...` run the
// rest of their words as one command line. Read as bash, which is close enough for what the command
// rules match (a cmdlet or program name first, its arguments after); Windows paths, whose
// backslashes bash would take as escapes, are matched on the raw text instead (rules/windows/).
// PowerShell accepts any unambiguous prefix of a parameter name, in any case (-com, -C).
void ShellNormalizer::Impl::HandleWindowsShell(Level& lv, std::string_view argv0, size_t i,
                                               size_t e, size_t depth) {
  const bool powershell =
      EqualsAsciiCaseless(argv0, "powershell") || EqualsAsciiCaseless(argv0, "powershell.exe") ||
      EqualsAsciiCaseless(argv0, "pwsh") || EqualsAsciiCaseless(argv0, "pwsh.exe");
  const bool cmd = EqualsAsciiCaseless(argv0, "cmd") || EqualsAsciiCaseless(argv0, "cmd.exe");
  if (!powershell && !cmd) return;
  for (size_t j = NextWord(lv, i + 1, e); j < e; j = NextWord(lv, j + 1, e)) {
    const std::string_view v = View(lv, lv.words[j]);
    bool starts = false;
    if (cmd) {
      starts = EqualsAsciiCaseless(v, "/c") || EqualsAsciiCaseless(v, "/k") ||
               EqualsAsciiCaseless(v, "/r");
    } else if (v.size() >= 2 && v[0] == '-') {
      // -c, -co, -com ... -command (not -config..., -ConfigurationName)
      const std::string_view name = v.substr(1);
      std::string_view full = "command";
      starts = name.size() <= full.size() &&
               EqualsAsciiCaseless(name, full.substr(0, name.size())) &&
               name.size() != 2;  // -co is ambiguous in PowerShell (-Command, -ConfigurationName)
    }
    if (starts) {
      HandleJoined(lv, std::string_view(), j + 1, e, depth);
      return;
    }
  }
}

// Text found inside another program's argument (HandleEmbedded): parsed like a payload, except
// that text which does not read as a command line is not an error of the command around it.
void ShellNormalizer::Impl::ParseEmbedded(std::string_view text, size_t depth) {
  const ShellStatus before = ctx.status;
  ParseText(text, depth + 1);
  if (ctx.status == ShellStatus::kUnbalanced) ctx.status = before;
}

// Command lines another program runs from its arguments (see Normalize): inline programs' shell
// calls, gdb's `shell`/`!` commands, vim's `:!` commands.
void ShellNormalizer::Impl::HandleEmbedded(Level& lv, std::string_view argv0, size_t i, size_t e,
                                           size_t depth) {
  const bool inline_program = IsInlineProgram(argv0);
  const bool gdb = argv0 == "gdb";
  const bool vim = argv0 == "vim" || argv0 == "vi" || argv0 == "nvim" || argv0 == "view" ||
                   argv0 == "vimdiff" || argv0 == "ex" || argv0 == "gvim";
  if (!inline_program && !gdb && !vim) return;
  // This depth's aux holds the literals while they are parsed (ParseText writes only deeper).
  std::string& aux = ctx.Lv(depth).aux;
  for (size_t j = i + 1; j < e && !ctx.stop; ++j) {
    const Word& w = lv.words[j];
    if ((w.flags & kRedir) != 0) continue;
    std::string_view v = View(lv, w);
    const size_t mark = aux.size();
    if (inline_program) {
      ParseProgramCommands(v, depth);
      continue;
    } else {
      std::string_view prev = j > i + 1 ? View(lv, lv.words[j - 1]) : std::string_view();
      bool command = false;
      if (gdb) {
        if (v.substr(0, 15) == "--eval-command=") {
          v.remove_prefix(15);
          command = true;
        }
        command = command || prev == "-ex" || prev == "-iex" || prev == "--eval-command" ||
                  prev == "--init-eval-command";
      } else {
        command = prev == "-c" || prev == "--cmd" || (!v.empty() && v[0] == '+');
        if (!v.empty() && v[0] == '+') v.remove_prefix(1);
      }
      if (!command) continue;
      while (!v.empty() && (IsBlank(v[0]) || v[0] == ':')) v.remove_prefix(1);
      if (v.substr(0, 7) == "silent ") v.remove_prefix(7);
      while (!v.empty() && IsBlank(v[0])) v.remove_prefix(1);
      if (!v.empty() && v[0] == '!') {
        aux.append(v.substr(1));
      } else if (gdb && v.substr(0, 6) == "shell ") {
        aux.append(v.substr(6));
      } else if (gdb && v.substr(0, 7) == "python ") {
        AppendCommandLiterals(v, /*backticks=*/true, &aux);
      }
    }
    if (aux.size() > mark) ParseEmbedded(std::string_view{aux}.substr(mark), depth);
    aux.resize(mark);
  }
}

// A runner (`uv run`, `poetry run`, `npx`, `bundle exec` ...: the pack's runners table) runs the
// command after its words and options in a prepared environment: that command is also a command of
// this line (the runner's own segment stays, for the rules about the runner). Options before the
// runner's words and after them are skipped; `--` ends them. Which options take a value is not
// known here, so when the last option skipped could have taken the next word as its value, the
// command is read from both words, and a later `--` (`aws-vault exec PROFILE -- CMD`) starts one
// more reading (over-inclusive at worst).
void ShellNormalizer::Impl::HandleRunner(Level& lv, const CommandTraits& traits, size_t i, size_t e,
                                         size_t depth, size_t pipeline) {
  auto next = [&](size_t k) { return NextWord(lv, k, e); };
  auto is_option = [&](size_t k) {
    const std::string_view v = View(lv, lv.words[k]);
    return v.size() > 1 && v[0] == '-';
  };
  for (const std::vector<std::string>& words : traits.runners) {
    size_t k = next(i + 1);
    bool matched = true;
    for (const std::string& word : words) {
      // options before the word, and one value after each (`poetry -C app run`)
      bool value_allowed = false;
      while (k < e && View(lv, lv.words[k]) != word && (is_option(k) || value_allowed)) {
        value_allowed = is_option(k) && View(lv, lv.words[k]).find('=') == std::string_view::npos;
        k = next(k + 1);
      }
      if (k >= e || View(lv, lv.words[k]) != word) {
        matched = false;
        break;
      }
      k = next(k + 1);
    }
    if (!matched) continue;
    bool maybe_value = false;  // the last option skipped may own the next word
    while (k < e && is_option(k)) {
      const std::string_view v = View(lv, lv.words[k]);
      k = next(k + 1);
      if (v == "--") {
        maybe_value = false;
        break;
      }
      maybe_value = v.find('=') == std::string_view::npos;
    }
    if (k >= e || ctx.stop) return;
    size_t after_dashes = e;
    for (size_t j = next(k + 1); j < e; j = next(j + 1)) {
      if (View(lv, lv.words[j]) == "--") {
        after_dashes = next(j + 1);
        break;
      }
    }
    const size_t after_value = maybe_value ? next(k + 1) : e;
    const size_t starts[] = {k, after_value, after_dashes == after_value ? e : after_dashes};
    for (const size_t start : starts) {
      if (start < e && !ctx.stop && Enter(depth + 1)) {
        EmitCommand(lv, start, e, depth + 1, pipeline, false);
        // A command given as one string (`tmux new -d 'rm -rf ~'`) is a command line the runner
        // hands to a shell, as a wrapper's is (EmitCommand).
        const std::string_view first = View(lv, lv.words[start]);
        if (std::any_of(first.begin(), first.end(), IsWhite))
          HandleJoined(lv, std::string_view(), start, e, depth);
      }
    }
    return;
  }
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
  for (const std::string& s : tables.stdin_programs) commands_[s].stdin_program = true;
  for (const std::string& r : tables.runners) {
    std::vector<std::string> words;
    size_t p = 0;
    for (std::string_view w = NextSpaceSeparated(r, &p); !w.empty(); w = NextSpaceSeparated(r, &p))
      words.emplace_back(w);
    if (words.empty()) continue;
    const std::string name = words.front();
    words.erase(words.begin());
    commands_[name].runners.push_back(std::move(words));
  }
  for (const FlagAlias& a : tables.aliases) commands_[a.command].aliases.emplace(a.from, a.to);
}

ShellStatus ShellNormalizer::Normalize(std::string_view command, SegmentList* out) const {
  if (out == nullptr) return ShellStatus::kUnbalanced;  // nowhere to write: fail closed
  Ctx ctx{out, out->count, limits_.max_segments, std::min(limits_.max_depth, kDepthCap)};
  if (out->segments.size() < out->count) out->segments.resize(out->count);
  if (out->pipelines.size() < out->segments.size()) out->pipelines.resize(out->segments.size());
  // Levels 0..max_depth, sized once up front: the parser holds references into them while
  // recursing.
  if (out->scratch.levels.size() < ctx.max_depth + 2) out->scratch.levels.resize(ctx.max_depth + 2);
  if (command.size() > limits_.max_bytes) {
    ctx.Raise(ShellStatus::kTooLong);
    command = command.substr(0, limits_.max_bytes);
  }
  out->scratch.var_count = 0;  // variables are remembered within one command line only
  out->scratch.fn_count = 0;   // and functions
  out->scratch.fn_calls = 0;
  out->scratch.call_arg_count = 0;
  out->scratch.written_count = 0;  // and files written
  out->scratch.written_overflow = false;
  out->scratch.group_output.clear();
  out->scratch.group_marks.clear();
  out->scratch.group_closed = false;
  Impl top(*this, ctx, command);
  top.ParseList(0, Close::kEof);
  top.ExpandFunctionCalls();
  top.RunWrittenFiles();
  return ctx.status;
}

}  // namespace doberman::internal
