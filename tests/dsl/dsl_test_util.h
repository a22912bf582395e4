// Helpers for the DSL tests: parse text in memory, read files, list shipped rule files.
#ifndef DOBERMAN_TESTS_DSL_DSL_TEST_UTIL_H_
#define DOBERMAN_TESTS_DSL_DSL_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "source_map.h"
#include "yaml_frontend.h"

namespace doberman::compiler::testing {

// One file parsed in memory, with the sources and diagnostics that go with it.
struct Parsed {
  SourceMap sources;
  std::unique_ptr<Diagnostics> diags;
  uint32_t file = 0;
  ParsedFile ast;
  std::string errors() const { return diags->RenderText(false); }
};

// Parses `text` as DSL (path ending in .dbr) or YAML (anything else).
std::unique_ptr<Parsed> ParseText(const std::string& text, const std::string& path = "t.dbr",
                                  size_t max_errors = 50);
std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& text);
// Files under `dir` (recursively) whose name ends with `suffix`, sorted.
std::vector<std::string> FilesUnder(const std::string& dir, const std::string& suffix);
std::string SourceDir();

// Prints `ast` as DSL or YAML with the comments of `p`; fails the test when printing fails.
std::string ToDsl(const Parsed& p);
std::string ToYaml(const Parsed& p);

}  // namespace doberman::compiler::testing

#endif  // DOBERMAN_TESTS_DSL_DSL_TEST_UTIL_H_
