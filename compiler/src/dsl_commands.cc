// `dobermanc fmt FILE` (canonical DSL) and `dobermanc convert --to dsl|yaml FILE`. Both print to
// stdout and never write files. Before printing, the output is parsed again in memory and compared
// with the input's AST: anything that would not read back the same is refused (exit 1), so neither
// command can print lossy output.
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "dsl_ast_equal.h"
#include "dsl_frontend.h"
#include "dsl_printer.h"
#include "source_loader.h"
#include "yaml_frontend.h"
#include "yaml_printer.h"

namespace doberman::compiler {
namespace {

void Print(const Diagnostics& diags, const CommonOptions& common) {
  if (diags.all().empty()) return;
  std::string text = common.format == "json" ? diags.RenderJson() : diags.RenderText(common.color);
  std::fputs(text.c_str(), stderr);
}

int ExitFor(const Diagnostics& diags) {
  for (const Diagnostic& d : diags.all()) {
    if (d.severity == Severity::kError && d.id != DiagCode::E1001) return kExitDiagnostics;
  }
  return diags.has_errors() ? kExitIo : kExitOk;
}

// Parses `path`, prints it in `to` ("dsl" or "yaml"), checks the output reads back the same.
int Translate(const std::string& path, const std::string& to, const CommonOptions& common) {
  SourceMap sources;
  Diagnostics diags(sources, common.max_errors);
  ParsedFile parsed = LoadSourceFile(path, sources, diags);
  if (diags.has_errors() || std::holds_alternative<std::monostate>(parsed)) {
    if (!diags.has_errors())
      diags.Error(DiagCode::E1004, Loc{}, path + " is not a rule file or pack manifest");
    Print(diags, common);
    return ExitFor(diags);
  }
  const uint32_t file = 1;  // the only file LoadSourceFile registered
  const bool from_dsl = std::filesystem::path(path).extension() == ".dbr";
  std::vector<SourceComment> comments =
      from_dsl ? DslComments(sources, file) : YamlComments(sources.Text(file));
  std::string out;
  PrintError error;
  const bool to_dsl = to == "dsl";
  bool printed =
      to_dsl ? PrintDsl(parsed, comments, &out, &error) : PrintYaml(parsed, comments, &out, &error);
  if (!printed) {
    diags.Error(DiagCode::E1010, error.loc,
                "cannot write this file in " + std::string(to_dsl ? "the DSL" : "YAML") +
                    " without changing it: " + error.message);
    Print(diags, common);
    return kExitDiagnostics;
  }
  // Read the output back in memory; refuse unless it says exactly what the input said.
  SourceMap check_sources;
  Diagnostics check(check_sources, common.max_errors);
  uint32_t id = check_sources.Add(path + (to_dsl ? ".dbr" : ".yaml"), out);
  ParsedFile back =
      to_dsl ? ParseDslFile(check_sources, id, check) : ParseYamlFile(check_sources, id, check);
  std::string difference;
  if (check.has_errors() || !AstEqual(parsed, back, &difference)) {
    if (check.has_errors()) difference = "the output does not parse:\n" + check.RenderText(false);
    diags.Error(DiagCode::E1010, Loc{},
                "refusing to print " + path + " as " + to +
                    ": the output would not read back the same (" + difference + ")",
                "", "this is a bug in dobermanc; please report it with the input file");
    Print(diags, common);
    return kExitDiagnostics;
  }
  Print(diags, common);  // warnings, if any
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

int RunFmt(const FmtOptions& o, const CommonOptions& common) {
  return Translate(o.file, "dsl", common);
}

int RunConvert(const ConvertOptions& o, const CommonOptions& common) {
  if (o.to != "dsl" && o.to != "yaml") {
    std::fprintf(stderr, "dobermanc convert: --to must be dsl or yaml\n");
    return kExitUsage;
  }
  return Translate(o.file, o.to, common);
}

}  // namespace doberman::compiler
