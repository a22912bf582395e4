// Shell-aware normalization: turns one command line into the canonical segments that command rules
// match. Runtime side; no allocation once the output's capacity has grown (the caller reuses
// SegmentList).
#ifndef DOBERMAN_RUNTIME_SHELL_NORMALIZER_H_
#define DOBERMAN_RUNTIME_SHELL_NORMALIZER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pack_model.h"

namespace doberman::internal {

struct ShellLimits {
  size_t max_segments = 256;
  size_t max_depth = 64;
  size_t max_bytes = 100000;
};

// Why normalization stopped early. Anything but kOk makes the caller fail closed (AUTH).
enum class ShellStatus : uint8_t {
  kOk = 0,
  kTooManySegments,
  kTooDeep,
  kTooLong,
  kUnbalanced,  // unterminated quote, substitution or heredoc
};

// The output: canonical segments, each `argv0 arg1 arg2 ...` joined by single spaces, where argv0
// is the basename of the executed program with quotes/escapes removed, wrappers and leading
// VAR=value assignments stripped, combined short flags split and aliases applied for commands in
// the tables. An argument that contains white space after unquoting is written inside single quotes
// so that it stays one word. Substitutions ($(...), backticks, <(...)) and `sh -c` payloads are
// parsed as their own segments as well.
//
// Conventions of the canonical form (the rules are written against them):
//  - Redirections are moved after the arguments, in their original order, each as ONE word: the
//  operator
//    immediately followed by its unquoted target (`>file`, `>>log`, `2>&1`, `&>/dev/null`, `<in`,
//    `<<<word`, `<<EOF` for a here-document). An explicit default descriptor is dropped (`1>x` ->
//    `>x`, `0<x` -> `<x`); other descriptor numbers stay (`2>/dev/null`).
//  - A command substitution stays in its word as `$(` + the inner raw text + `)`; backticks are
//  written in
//    that same form. Process substitutions keep their operator: `<(raw)`, `>(raw)`. `${...}` and
//    arithmetic `$((...))` stay as raw text. `$NAME` stays as written.
//  - A word containing white space (space, tab, CR, LF, VT, FF) is written inside single quotes, an
//    embedded `'` as `'\''`; the empty word is written `''`. Other words are written bare.
//  - A command made only of assignments keeps them as its segment (`FOO=1`); one made only of
//  wrappers is
//    the last wrapper's name (`sudo`, `env`); one made only of redirections is those (`>file`).
// Bounds of the variable substitution described at ShellNormalizer::Normalize.
inline constexpr size_t kMaxShellVariables = 32;
inline constexpr size_t kMaxShellVariableBytes = 4096;
// Bounds of the function-call expansion described there: functions remembered, and calls expanded
// per command line (one more is kTooManySegments, like any other exhausted bound).
inline constexpr size_t kMaxShellFunctions = 16;
inline constexpr size_t kMaxShellFunctionCalls = 16;
// Files written by one command line whose later running is followed (see Normalize).
inline constexpr size_t kMaxWrittenFiles = 8;

struct SegmentList {
  std::vector<std::string> segments;  // only the first `count` entries are live; capacity is reused
  size_t count = 0;
  // Per live segment: the pipeline of the line's top level it was read in (`a | b; c` gives 0, 0,
  // 1; a substitution's or a `sh -c` payload's commands share their command's). Scripts being
  // written combine rules within one such pipeline (decider.cc).
  std::vector<uint32_t> pipelines;
  uint32_t next_pipeline = 0;
  // Command lines read apart from this one's segments (call_units.h reads them as a script being
  // written: their commands, for BLOCK only): here-document bodies that are shell scripts (a `#!`
  // line that runs a shell) written to a file or a pipe rather than run (`cat > deploy.sh
  // <<'EOF'`), and the commands ssh and kubectl exec send to another machine
  // (shell_remote_commands.cc), echo/printf text written to such a file, and a file the line
  // writes and a shell then runs (shell_written_files.cc). At most
  // kMaxDetachedScripts (one more is kTooManySegments: a script left unread must not pass); the
  // first `detached_script_count` entries are live.
  static constexpr size_t kMaxDetachedScripts = 8;
  std::vector<std::string> detached_scripts;
  size_t detached_script_count = 0;
  void Clear() {
    count = 0;
    next_pipeline = 0;
    detached_script_count = 0;
  }

  // Working memory of ShellNormalizer::Normalize (one level per nesting depth), kept here so that a
  // caller that reuses its SegmentList pays no allocation once capacities have grown. Not output;
  // never read it.
  struct Scratch {
    struct Word {
      size_t begin = 0;  // offset of the unquoted bytes in Level::bytes
      size_t size = 0;
      size_t plain = 0;  // length of the leading run that came from unquoted, unescaped text
      uint32_t op = 0;   // redirection words: length of the operator that precedes the target
      uint32_t flags = 0;
    };
    struct Heredoc {
      size_t delim_begin = 0;  // offset in Level::delims
      size_t delim_size = 0;
      size_t pipeline = 0;      // pipeline of the command that opened it
      bool strip_tabs = false;  // `<<-`
      bool quoted = false;      // delimiter was quoted: the body is not expanded
      bool commands = false;    // the body feeds a shell: parse it as commands
      // The body feeds a stdin program (python3, psql ...): the index of that program's segment,
      // which the body is appended to.
      size_t program_segment = static_cast<size_t>(-1);
      bool program_runs_commands = false;  // that program's shell calls are read (HandleEmbedded)
      // The body is a script read apart (SegmentList::detached_scripts) whatever its first line:
      // it feeds the shell of another machine (ssh host <<EOF) or is written to a file named as a
      // shell script (cat > x.sh <<EOF). ReadPipelineHeredocsApart sets it.
      bool read_apart = false;
      // The body is written to a file named later in the line as a command to run (WrittenFile):
      // the index of that file's entry, its text filled in when the body is read.
      size_t written_file = static_cast<size_t>(-1);
      // The body is printed by a `cat` inside a group (NoteGroupHeredocs): part of what the group
      // prints, for a redirection after it.
      bool group_printed = false;
    };
    struct Level {
      std::string bytes;   // words of the command being assembled at this depth
      std::string aux;     // de-escaped backtick text, eval/env -S joins, `<<-` bodies
      std::string delims;  // delimiters of the pending here-documents
      std::vector<Word> words;
      std::vector<Heredoc> heredocs;
    };
    std::vector<Level> levels;
    // Variables assigned earlier in the command line (`X=/; rm -rf $X`): names and literal values,
    // the first `var_count` live (see Normalize).
    std::vector<std::string> var_names;
    std::vector<std::string> var_values;
    // Whether the value is a list (its words joined by spaces): a `for` loop's words, one per
    // iteration, an array's elements, or the lines a `while read` loop reads. A quoted "$NAME"
    // (or "${NAME[@]}") then stands for each word, not for one word holding them all.
    std::vector<char> var_is_list;
    size_t var_count = 0;
    std::string substituted;  // the command being rewritten with those values
    // Functions defined earlier in the command line (`f() { cat "$1"; }`): names and bodies, the
    // first `fn_count` live, and the name of a definition whose body has not been read yet.
    std::vector<std::string> fn_names, fn_bodies;
    size_t fn_count = 0;
    std::string fn_pending;
    // Calls to expand once the line is read: the function of each (first `fn_calls` live), and
    // their arguments, flat, call k owning call_args[call_arg_begin[k] .. call_arg_begin[k+1]).
    std::vector<size_t> call_fn, call_arg_begin;
    std::vector<std::string> call_args;
    size_t fn_calls = 0;
    size_t call_arg_count = 0;
    // Files the command line writes (`echo 'rm -rf ~' > /tmp/x`, `cat > job <<EOF`) and whether a
    // later command of the line runs them (`bash /tmp/x`, `. ./x`, `./job`, `python3 x.py`): the
    // path as spelled, the text written, and how it is run (shell_written_files.cc). The first
    // `written_count` live, at most kMaxWrittenFiles; `written_overflow` when one more was written.
    struct WrittenFile {
      std::string path, text;
      bool run_by_shell = false;
      size_t program_segment = static_cast<size_t>(-1);  // run by an interpreter: its segment
    };
    std::vector<WrittenFile> written;
    size_t written_count = 0;
    bool written_overflow = false;
    // What the echo and printf commands of the groups being read print (`{ echo ...; } > f`,
    // `( ... )`, a loop's `do ... done`, an if's `then ... fi`): `group_output` holds the open
    // groups' text, from `group_marks` on for each; `closed_group_output` the text of the group
    // that just closed, which a redirection right after it writes (`group_closed`) or a pipe
    // passes on (only when complete: every command inside printed known text or nothing).
    struct GroupMark {
      size_t from = 0;
      // Commands read inside the group, and of them the echo and printf commands of known text:
      // the group's text is complete when they are the same and nothing was dropped.
      size_t commands = 0, known_prints = 0;
      bool complete = true;
    };
    std::string group_output, closed_group_output;
    std::vector<GroupMark> group_marks;
    bool group_closed = false, closed_group_complete = false;
    std::string word_buf, printed_buf, encoded_buf, value_buf, loop_buf, read_input,
        printf_words;  // working buffers (capacity reused)
    // Data piped towards a shell (`echo B64 | base64 -d | sh`): the literal an echo or printf
    // writes, and what a base64 or hex decoder makes of it.
    std::string piped, piped_decoded;
  };
  Scratch scratch;
};

class ShellNormalizer {
 public:
  ShellNormalizer(const ShellTables& tables, const ShellLimits& limits);

  // Appends the canonical segments of `command` to `out` (after out->count). Thread-safe: const, no
  // shared mutable state (each thread passes its own SegmentList). On a non-kOk status, the
  // segments produced so far stay in `out`:
  //  - kTooLong: only the first limits.max_bytes bytes were normalized (best effort, like
  //  kUnbalanced), or a command rewritten with variable values would have passed max_bytes (that
  //  rewrite is skipped);
  //  - kTooManySegments: the first limits.max_segments segments (counted from this call) are kept;
  //  - kTooDeep: constructs nested deeper than limits.max_depth (capped at 256 to bound stack use)
  //  are
  //    read as flat text, and everything else is still normalized;
  //  - kUnbalanced: unterminated quote, substitution, group or here-document, a stray `)` or a
  //    redirection without target; the segments are what a best-effort reading gives.
  // Segments of an inner command (substitution, `sh -c` payload, eval, find -exec) come before the
  // segment of the command that contains it; a here-document body fed to a shell comes after it.
  //
  // Reading rules beyond plain bash tokenizing, all towards seeing the command bash would run:
  //  - reserved words (if/then/else/elif/fi, while/until/do/done, case patterns/esac, `!`, `time
  //  [-p]`,
  //    coproc, function definitions) are not commands: their bodies are;
  //  - `rm${IFS}-rf`, `{rm,-rf,/}` (a plain, unnested brace list) and `r$()m` are split/joined as
  //  bash
  //    expands them; other parameters and globs stay as text;
  //  - a here-document is parsed as commands when its command is a shell without -c, or a later
  //  command
  //    of the same pipeline is (`cat <<EOF | sh`); an unquoted one's substitutions are parsed
  //    anyway; a shell's here-string is parsed as commands too;
  //  - `eval ARGS`, `env -S STRING ARGS` and a wrapped command word containing white space
  //    (`watch 'a; b'`) are parsed as command lines (env -S then emits no env segment);
  //  - find -exec/-execdir/-ok/-okdir end at `;` or at `+` right after `{}`.
  //  - CR, VT, FF and NUL separate words (bash only uses space and tab) so they cannot hide an
  //  argument.
  //  - a variable given a literal value earlier in the same command line or script (`X=/`,
  //    `export X=/`, `local X=/`) is substituted into later commands that name it (`$X`, `${X}`):
  //    such a command is parsed a second time with the values in place, after its own segment, so
  //    `X=/; rm -rf $X` also yields `rm -r -f /`. Only extra segments: over-inclusive at worst
  //    (scoping, conditionals and loops are not followed), never a segment less. Bounded by
  //    kMaxShellVariables names of at most kMaxShellVariableBytes each, one rewrite per command.
  //  - a call of a function defined earlier in the same command line or script (`f() { ...; }`,
  //    `function f { ...; }`) whose body names a parameter or variable parses that body once more
  //    with the call's arguments as its positional parameters (`$1`..`$9`, `$@`, `$*`), so
  //    `f() { rm -rf "$1"; }; f /` also yields `rm -r -f /`. These parses run after the whole
  //    line has been read, their segments last: they can only add segments, never push one of the
  //    line's own past max_segments. Calls inside an expanded body are not expanded (one level).
  //    Bounded by kMaxShellFunctions definitions and kMaxShellFunctionCalls expanded calls: a
  //    further call that would be expanded raises kTooManySegments.
  //  - a file the line writes (echo or printf redirected, tee of an echoed literal, a
  //    here-document saved by a redirection or tee, a decoder's output, what a group, loop body
  //    or if branch printed with a redirection after it) and a later command of the
  //    line runs (as its command word, a shell's script or `<` input, `source`/`.`, `cat FILE |
  //    sh`, an interpreter's program file) is read once the line has been read: by a shell, as
  //    commands of this line and as a detached script; by an interpreter, as the program of its
  //    segment (shell_written_files.cc). Bounded by kMaxWrittenFiles files; a run of a path after
  //    one more was written raises kTooManySegments;
  //  - a shell reading its commands from a pipeline that writes a literal (`echo 'rm -rf /' | sh`,
  //    what printf prints: shell_printf.h) or decodes one (`echo B64 | base64 -d | sh`, `base64 -d
  //    <<< B64 | bash`, `echo HEX | xxd -r -p | sh`; base64 or hex, one layer) also gets that text
  //    parsed as a command line: only extra segments, like the rewrite above;
  //  - command lines carried inside another program's arguments are parsed too: the string
  //    literals an inline program passes to system/popen/exec-like calls or backticks (awk, python
  //    -c, perl -e, ruby -e, node -e, php -r ...), awk's `"cmd" | getline`, gdb's `-ex 'shell CMD'`
  //    and `-ex '!CMD'`, vim's `-c ':!CMD'` and `+!CMD`. Text that does not read as a command line
  //    there adds what it can and is not an error of the outer command.
  //  - a container's command (`docker|podman|nerdctl run|create|exec ... IMAGE CMD`, `docker
  //    compose run|exec SERVICE CMD`) is a command of this line, read from its words; the command
  //    ssh or kubectl exec|run|debug (after `--`) sends to another machine is handed over in
  //    detached_scripts instead, and ssh's ProxyCommand/LocalCommand is parsed here
  //    (shell_remote_commands.cc); so are the here-documents and here-strings ssh (with no remote
  //    command, or a remote shell without -c) or `kubectl exec -- sh` feeds the remote shell;
  //  - a stdin program (the pack's stdin_programs: python3, perl, node, psql, sftp ...) gets what
  //    its pipeline feeds it - a here-document's body (without its last line break), an echoed
  //    or decoded literal - written into its segment after `<<<`, as a here-string is written,
  //    and an inline program's shell calls in that text are parsed as above;
  //  - Windows shells' command lines (`powershell|pwsh ... -Command WORDS`, `cmd /c|/k WORDS`) are
  //    parsed like a -c payload (read as bash: cmdlet names and arguments, not Windows paths).
  ShellStatus Normalize(std::string_view command, SegmentList* out) const;

 private:
  struct Impl;
  // Transparent hashing so that lookups take the string_views the parser produces, without
  // allocating.
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <typename V>
  using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  // Everything the tables say about one command name, so that a command word costs one lookup
  // (four separate tables cost four hashes of the same word per segment).
  struct CommandTraits {
    std::optional<WrapperSpec> wrapper;
    bool shell = false;
    bool split_flags = false;
    bool stdin_program = false;  // runs the program text on its stdin (python3, psql ...)
    // As a runner ("uv run", "npx"): the words that follow the name, one entry per runner.
    std::vector<std::vector<std::string>> runners;
    StringMap<std::string> aliases;  // from -> to
  };
  const CommandTraits* Traits(std::string_view name) const {
    const auto it = commands_.find(name);
    return it == commands_.end() ? nullptr : &it->second;
  }

  StringMap<CommandTraits> commands_;
  ShellLimits limits_;
};

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_SHELL_NORMALIZER_H_
