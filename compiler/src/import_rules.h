// `dobermanc import noseyparker|gitleaks`: a user's rule sets in other scanners' formats (their
// files, their licence) converted into Doberman rule files, one per source file, with ids,
// provenance and, on request, the source's own examples. Every rule written is checked by the same
// pipeline `dobermanc build` runs (checker and Hyperscan); a rule it cannot take is left out with a
// warning naming the source rule and the reason, so the output always builds.
#ifndef DOBERMAN_COMPILER_IMPORT_RULES_H_
#define DOBERMAN_COMPILER_IMPORT_RULES_H_

#include <string>
#include <vector>

namespace doberman::compiler {

struct ImportOptions {
  std::string format;  // "noseyparker" or "gitleaks"
  std::string source;  // a rules folder or file (Nosey Parker), a .toml file (gitleaks)
  std::string out_dir;
  bool with_examples = false;  // carry the source's examples as match:/pass: examples
  std::string verdict = "AUTH";
};

// One source rule, translated.
struct ImportedRule {
  std::string source_file, source_id, name;
  std::string id;  // imported.<format>.<source id>
  std::vector<std::string> patterns;
  bool caseless = false;
  std::string min_entropy;  // gitleaks entropy, when given
  std::vector<std::string> examples, negative_examples;
};

// Reads the source rules; false with `error` (naming the file and, where known, the line).
bool ReadNoseyParker(const std::string& source, std::vector<ImportedRule>* out,
                     std::vector<std::string>* skipped, std::string* error);
bool ReadGitleaks(const std::string& path, std::vector<ImportedRule>* out,
                  std::vector<std::string>* skipped, std::string* error);

// The regex rewritten for Hyperscan: named groups made plain, Go/Rust-only escapes spelled the
// Hyperscan way. False (with `why`) for what has no Hyperscan form (lookaround, backreferences).
bool TranslateRegex(const std::string& in, std::string* out, std::string* why);

// The rule as Doberman YAML (a `- id: ...` list item), indented for a `rules:` list.
std::string RuleYaml(const ImportedRule& r, const ImportOptions& o);

// Exit codes as the other commands: 0 done, 1 nothing importable, 2 usage, 3 I/O.
int RunImport(const ImportOptions& o);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_IMPORT_RULES_H_
