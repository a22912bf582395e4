// Shell commands hidden in a notebook cell. A NotebookEdit writes code that the person (or the
// agent, through the kernel) runs next; IPython runs `!cmd`, `%%bash` cells, `%sx` and
// `os.system(...)` as shell, so those are judged as commands, not only scanned as written content.
#ifndef DOBERMAN_GUARD_NOTEBOOK_SHELL_H_
#define DOBERMAN_GUARD_NOTEBOOK_SHELL_H_

#include <string>
#include <string_view>
#include <vector>

namespace doberman::guard {

// Appends every shell command found in `source` (a cell's text) to `out`:
//  - a shell cell magic on the cell's first line (%%bash, %%sh, %%zsh, %%script SHELL, %%sx,
//    %%system): the rest of the cell;
//  - line escapes and magics, also on the right of an assignment: `!cmd`, `!!cmd`, `%sx cmd`,
//    `%system cmd`;
//  - calls of os.system / os.popen / os.exec* / subprocess.* / pty.spawn: their first argument when
//  it
//    is a string literal or a list of string literals (re-quoted as one command line); otherwise
//    the argument's source text, so that nothing is skipped silently.
void ExtractNotebookShell(std::string_view source, std::vector<std::string>* out);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_NOTEBOOK_SHELL_H_
