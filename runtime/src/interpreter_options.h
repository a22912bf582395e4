// How a shell's or an interpreter's command line names the program it runs: which option words give
// the program inline (`python3 -c CODE`, `perl -e CODE`), which take the next word as their value
// (`python3 -W ignore x.py`, `node -r dotenv/config x.js`, `bash -o pipefail x`), which name the
// program file (`awk -f prog.awk`, `php -f x.php`). The shell normalizer uses it to find the file a
// command runs (shell_written_files.cc): an option read as a flag when it takes a value would make
// its value the program and hide the real one.
#ifndef DOBERMAN_RUNTIME_INTERPRETER_OPTIONS_H_
#define DOBERMAN_RUNTIME_INTERPRETER_OPTIONS_H_

#include <cstdint>
#include <string_view>

namespace doberman::internal {

enum class OptionEffect : uint8_t {
  kFlag,          // stands alone, or carries its value glued on (`-Wignore`, `--env-file=.env`)
  kTakesValue,    // the next word is its value
  kInlineCode,    // the program is given inline (`-c`, `-e`, `-m module`): no program file
  kProgramNext,   // the next word is the program file (`awk -f prog.awk`)
  kProgramGlued,  // the program file is glued on (`awk -fprog.awk`, `awk --file=prog.awk`)
};

// Reads `option` (a word of at least two bytes starting with `-`, or `+` for a shell) of command
// `argv0`, a shell when `shell`, else an interpreter (shell_parser::IsInlineProgram). For
// kProgramGlued, `*glued` is the file's name. Options no table knows are flags: an unknown option
// that takes a value makes its value look like the program, which is then the file looked up.
OptionEffect ReadInterpreterOption(std::string_view argv0, bool shell, std::string_view option,
                                   std::string_view* glued);

// Whether argv0's first operand is its program's text when no option named a program (awk's
// `awk '{print $1}' file`), rather than a program file (`python3 x.py`).
bool FirstOperandIsProgramText(std::string_view argv0);

// Whether `word` is a subcommand argv0 takes before its program file (`deno run x.ts`, `bun run
// x.js`).
bool IsRunSubcommand(std::string_view argv0, std::string_view word);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_INTERPRETER_OPTIONS_H_
