// Finds and reads pack sources: manifests in a folder, the rule files a manifest includes (files,
// folders, `*` globs in the last component), dispatching each file to its front-end by extension
// (.yaml/.yml -> YAML, .dbr -> DSL).
#ifndef DOBERMAN_COMPILER_SOURCE_LOADER_H_
#define DOBERMAN_COMPILER_SOURCE_LOADER_H_

#include <string>
#include <vector>

#include "ast.h"
#include "diagnostics.h"
#include "yaml_frontend.h"

namespace doberman::compiler {

struct PackSources {
  ManifestAst manifest;
  std::vector<RuleFileAst> files;
};

// Reads one file into `sources` and parses it with the right front-end. Reports E1001 when
// unreadable.
ParsedFile LoadSourceFile(const std::string& path, SourceMap& sources, Diagnostics& diags);

// Manifest files under `path` (a manifest itself, or a folder searched non-recursively). Rule files
// in the folder are not manifests and are skipped. Reports E1001 when `path` does not exist.
std::vector<std::string> FindManifests(const std::string& path, SourceMap& sources,
                                       Diagnostics& diags);

// Loads a manifest and every rule file it includes. Returns false only when the manifest itself
// could not be parsed; problems in included files are reported and the files that parsed are kept,
// so that the checker can report everything in one run.
bool LoadPackSources(const std::string& manifest_path, SourceMap& sources, Diagnostics& diags,
                     PackSources* out);

// Loads loose rule files (or folders of them) without a manifest. Returns false when none parsed.
bool LoadRuleFiles(const std::vector<std::string>& paths, SourceMap& sources, Diagnostics& diags,
                   std::vector<RuleFileAst>* out);

bool IsRuleSourcePath(const std::string& path);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_SOURCE_LOADER_H_
