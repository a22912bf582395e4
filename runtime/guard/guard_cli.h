// doberman-guard's command line as data: every command, operand and option with its help. The
// argument parser accepts exactly what this lists (an option not listed for a command is a usage
// error), and --help, the completions and the man page are rendered from it (cli_docs.h).
#ifndef DOBERMAN_GUARD_GUARD_CLI_H_
#define DOBERMAN_GUARD_GUARD_CLI_H_

#include "cli_docs.h"
#include "guard_runner.h"

namespace doberman::guard {

const cli::ProgramDoc& GuardProgram();

// Parses argv (argv[1] is the command) into `o`, environment defaults included. False on any usage
// error: an unknown command, an option the command does not take, a bad value.
bool ParseGuardArgs(int argc, char** argv, Options* o);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_GUARD_CLI_H_
