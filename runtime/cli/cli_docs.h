// One description of a command-line program (its commands, their operands and options, the
// environment it reads), rendered into everything a user reads or a shell completes: the --help
// text, bash and zsh completions and a man page. Each tool builds this once from the definitions
// its parser uses (dobermanc: its CLI11 app; doberman-guard: its option table), so none of the
// four can drift from what the parser accepts.
#ifndef DOBERMAN_CLI_CLI_DOCS_H_
#define DOBERMAN_CLI_CLI_DOCS_H_

#include <string>
#include <utility>
#include <vector>

namespace doberman::cli {

// What an option's value (or an operand) is, for completion.
enum class ValueKind { kNone, kFile, kDirectory, kWord, kCommand };

struct OptionDoc {
  std::string flag;        // "--pack"
  std::string short_flag;  // "-V", or empty
  std::string value;       // "P" (metavariable), empty for a flag
  ValueKind kind = ValueKind::kNone;
  std::vector<std::string> choices;  // closed set of values, when there is one
  std::string help;
  bool repeatable = false;
};

struct CommandDoc {
  std::string name;
  std::string operands;  // as shown in the synopsis: "HOST", "PATHS...", "-- SERVER [ARGS...]"
  ValueKind operand_kind = ValueKind::kNone;
  std::vector<std::string> operand_choices;  // e.g. the host names
  std::string summary;                       // one line
  std::string description;                   // paragraphs, may be empty
  std::vector<OptionDoc> options;
};

struct ProgramDoc {
  std::string name, summary, description;
  std::vector<OptionDoc> global_options;  // before or after the command
  std::vector<CommandDoc> commands;
  std::vector<std::pair<std::string, std::string>> environment;  // variable, meaning
  std::string exit_status;
  std::vector<std::string> see_also;  // "dobermanc(1)"
  std::string version;
};

const CommandDoc* FindCommand(const ProgramDoc& doc, const std::string& name);
// The option `flag` as `command` accepts it (its own or a global one), or nullptr.
const OptionDoc* FindOption(const ProgramDoc& doc, const CommandDoc* command,
                            const std::string& flag);

std::string RenderUsage(const ProgramDoc& doc);
std::string RenderBashCompletion(const ProgramDoc& doc);
std::string RenderZshCompletion(const ProgramDoc& doc);
std::string RenderManPage(const ProgramDoc& doc);

// `PROGRAM completion bash|zsh` and `PROGRAM man`: prints the rendering; 2 on an unknown shell.
int PrintGenerated(const ProgramDoc& doc, const std::string& what, const std::string& shell);

}  // namespace doberman::cli

#endif  // DOBERMAN_CLI_CLI_DOCS_H_
