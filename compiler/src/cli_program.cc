// Walks the CLI11 app: subcommands, their options and positionals, value names and choice sets.
#include "cli_program.h"

namespace doberman::compiler {
namespace {

// CLI11 type names: "FILE", "DIR", "TEXT:{text,json}" (IsMember appends the set).
cli::OptionDoc FromOption(const CLI::Option& opt) {
  cli::OptionDoc d;
  d.flag = opt.get_lnames().empty() ? "" : "--" + opt.get_lnames().front();
  d.short_flag = opt.get_snames().empty() ? "" : "-" + opt.get_snames().front();
  d.help = opt.get_description();
  d.repeatable = opt.get_items_expected_max() > 1;
  if (opt.get_items_expected_max() == 0) return d;  // a flag
  const std::string type = opt.get_type_name();
  const size_t open = type.find('{'), close = type.rfind('}');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    std::string set = type.substr(open + 1, close - open - 1);
    size_t start = 0;
    while (start <= set.size()) {
      size_t comma = set.find(',', start);
      if (comma == std::string::npos) comma = set.size();
      if (comma > start) d.choices.push_back(set.substr(start, comma - start));
      start = comma + 1;
    }
  }
  const std::string base = type.substr(0, type.find(':'));
  d.value = base.empty() ? "VALUE" : base;
  d.kind = base == "FILE"  ? cli::ValueKind::kFile
           : base == "DIR" ? cli::ValueKind::kDirectory
                           : cli::ValueKind::kWord;
  return d;
}

bool Skipped(const CLI::App& app, const CLI::Option* opt) {
  return opt == app.get_help_ptr() || opt == app.get_help_all_ptr() || opt == app.get_version_ptr();
}

}  // namespace

cli::ProgramDoc ProgramFromCli11(const CLI::App& app, const std::string& version) {
  cli::ProgramDoc d;
  d.name = "dobermanc";  // (CLI11 names the app after argv[0] once parsed)
  d.summary = "compiles Doberman guardrail packs (YAML or the DSL) into signed packs";
  d.version = version;
  d.description =
      "dobermanc reads pack manifests and the rule files they include (YAML or the Doberman "
      "DSL), checks every rule (each error names file:line:col with a caret), compiles the "
      "patterns into Hyperscan databases, and writes one pack file signed with an Ed25519 key: "
      "nothing is written when there is any error. doberman-guard and libdoberman_runtime load "
      "it.";
  for (const CLI::Option* opt : app.get_options()) {
    if (!Skipped(app, opt) && opt->nonpositional()) d.global_options.push_back(FromOption(*opt));
  }
  d.global_options.push_back({"--version",
                              "-V",
                              "",
                              cli::ValueKind::kNone,
                              {},
                              "print the version, pack formats and Hyperscan version",
                              false});
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    cli::CommandDoc c;
    c.name = sub->get_name();
    c.summary = sub->get_description();
    for (const CLI::Option* opt : sub->get_options()) {
      if (Skipped(*sub, opt)) continue;
      if (opt->nonpositional()) {
        c.options.push_back(FromOption(*opt));
        continue;
      }
      const cli::OptionDoc p = FromOption(*opt);
      std::string name = opt->get_name(true);
      for (char& ch : name) ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 32 : ch);
      c.operands += (c.operands.empty() ? "" : " ") + name + (p.repeatable ? "..." : "");
      // Completion offers the first operand's choices (a format, a shell); later operands are
      // files.
      if (c.operands.find(' ') == std::string::npos) {
        c.operand_kind = p.choices.empty() ? cli::ValueKind::kFile : cli::ValueKind::kWord;
        c.operand_choices = p.choices;
      }
    }
    d.commands.push_back(std::move(c));
  }
  d.exit_status =
      "0: done. 1: diagnostics with errors (nothing written), or test failures. 2: usage error. "
      "3: an input or output file could not be read or written.";
  d.see_also = {"doberman-guard(1)"};
  return d;
}

}  // namespace doberman::compiler
