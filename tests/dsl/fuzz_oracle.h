// Shared body of the DSL and YAML fuzz targets: parse, render diagnostics, and when the input
// parses run the checker and both printers. The printers are checked against the front-ends:
// whatever a printer accepts must parse back to an equal AST (and DSL printing must be idempotent);
// a difference aborts, so the fuzzer reports it. Never writes files.
#ifndef DOBERMAN_TESTS_DSL_FUZZ_ORACLE_H_
#define DOBERMAN_TESTS_DSL_FUZZ_ORACLE_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "checker.h"
#include "dsl_ast_equal.h"
#include "dsl_frontend.h"
#include "dsl_printer.h"
#include "yaml_frontend.h"
#include "yaml_printer.h"

namespace doberman::compiler::fuzz {

// Inputs above this are ignored: the front-ends are linear, and bigger inputs only slow the fuzzer.
inline constexpr size_t kMaxInput = 64 * 1024;

[[noreturn]] inline void Die(const char* what, const std::string& detail, const std::string& text) {
  std::fprintf(stderr, "fuzz oracle: %s: %s\n--- printed ---\n%s\n", what, detail.c_str(),
               text.c_str());
  std::abort();
}

inline ParsedFile Reparse(const std::string& text, bool dsl, std::string* errors) {
  SourceMap sources;
  Diagnostics diags(sources, 50);
  uint32_t id = sources.Add(dsl ? "printed.dbr" : "printed.yaml", text);
  ParsedFile out = dsl ? ParseDslFile(sources, id, diags) : ParseYamlFile(sources, id, diags);
  if (diags.has_errors()) *errors = diags.RenderText(false);
  return out;
}

inline void CheckPrinters(const ParsedFile& ast, const std::vector<SourceComment>& comments) {
  std::string dsl;
  PrintError error;
  if (PrintDsl(ast, comments, &dsl, &error)) {
    std::string errors, diff;
    ParsedFile back = Reparse(dsl, true, &errors);
    if (!errors.empty()) Die("printed DSL does not parse", errors, dsl);
    if (!AstEqual(ast, back, &diff)) Die("printed DSL reads back differently", diff, dsl);
    SourceMap sources;
    uint32_t id = sources.Add("printed.dbr", dsl);
    std::string again;
    if (!PrintDsl(back, DslComments(sources, id), &again, &error))
      Die("fmt fails on fmt output", error.message, dsl);
    if (again != dsl) Die("fmt is not idempotent", again, dsl);
  }
  std::string yaml;
  if (PrintYaml(ast, comments, &yaml, &error)) {
    std::string errors, diff;
    ParsedFile back = Reparse(yaml, false, &errors);
    if (!errors.empty()) Die("printed YAML does not parse", errors, yaml);
    if (!AstEqual(ast, back, &diff)) Die("printed YAML reads back differently", diff, yaml);
  }
}

inline void RunOne(const uint8_t* data, size_t size, bool dsl) {
  if (size > kMaxInput) return;
  SourceMap sources;
  Diagnostics diags(sources, 50);
  uint32_t id = sources.Add(dsl ? "fuzz.dbr" : "fuzz.yaml",
                            std::string(reinterpret_cast<const char*>(data), size));
  ParsedFile ast = dsl ? ParseDslFile(sources, id, diags) : ParseYamlFile(sources, id, diags);
  (void)diags.RenderText(false);
  (void)diags.RenderJson();
  if (diags.has_errors()) return;
  std::vector<SourceComment> comments =
      dsl ? DslComments(sources, id) : YamlComments(sources.Text(id));
  Diagnostics check(sources, 50);
  IrPack ir;
  if (const auto* f = std::get_if<RuleFileAst>(&ast)) {
    (void)CheckRules(sources, {*f}, check, &ir);
  } else if (const auto* m = std::get_if<ManifestAst>(&ast)) {
    (void)CheckPack(sources, *m, {}, check, &ir);
  }
  (void)check.RenderText(false);
  CheckPrinters(ast, comments);
}

}  // namespace doberman::compiler::fuzz

#endif  // DOBERMAN_TESTS_DSL_FUZZ_ORACLE_H_
