// dobermanc's command line as a cli::ProgramDoc, read from the CLI11 app its parser uses: the
// --help text CLI11 prints, the completions and the man page all come from the same definitions.
#ifndef DOBERMAN_COMPILER_CLI_PROGRAM_H_
#define DOBERMAN_COMPILER_CLI_PROGRAM_H_

#include <CLI/CLI.hpp>

#include "cli_docs.h"

namespace doberman::compiler {

cli::ProgramDoc ProgramFromCli11(const CLI::App& app, const std::string& version);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_CLI_PROGRAM_H_
