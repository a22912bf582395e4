// Canonical forms of call fields that are not shell commands or prose: the target path; and whether
// written content is a shell script (read as the commands it will run).
#ifndef DOBERMAN_RUNTIME_UNITS_H_
#define DOBERMAN_RUNTIME_UNITS_H_

#include <string>
#include <string_view>

namespace doberman::internal {

// Writes the canonical path into `out`: backslashes become '/', `//` and `.` segments collapse,
// `..` resolves lexically (a relative path that climbs out keeps its leading `../`), a path inside
// `cwd` becomes relative to it, and ASCII letters are lower-cased (rules match case-insensitive
// filesystems too). Never touches the filesystem: symlinks are the host's business.
void CanonicalPath(std::string_view path, std::string_view cwd, std::string* out);

// Whether `content` written to `path` is a shell script: the path ends in .sh, .bash, .zsh, .ksh,
// .dash or .command, or the content opens with a `#!` line that runs sh, bash, zsh, ksh, dash or
// ash (directly or through env). Git hooks and other extension-less scripts are told by that line.
bool IsShellScript(std::string_view path, std::string_view content);

// The command lines that `content` written to `path` will run on this machine, for files made of
// them: a shell script (IsShellScript) is its own text; a Makefile's (Makefile, GNUmakefile, *.mk)
// recipe lines, without their tab and @/-/+ prefixes and with `$$` read as `$`, are copied into
// `buffer`; so are, one per line, the string literals a Python, JavaScript/TypeScript, Ruby, Perl
// or PHP source passes to the calls that run command lines (os.system, subprocess, child_process,
// system, backticks; command_literals.h) when its text names such a call. Empty otherwise. (A
// Dockerfile's RUN lines run inside the image being built, where `rm -rf /` or an appended
// ~/.bashrc harms no one: not read.)
std::string_view ScriptCommands(std::string_view path, std::string_view content,
                                std::string* buffer);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_UNITS_H_
