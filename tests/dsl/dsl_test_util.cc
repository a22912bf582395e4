#include "dsl_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dsl_frontend.h"
#include "dsl_printer.h"
#include "yaml_printer.h"

namespace doberman::compiler::testing {

namespace fs = std::filesystem;

std::unique_ptr<Parsed> ParseText(const std::string& text, const std::string& path,
                                  size_t max_errors) {
  auto p = std::make_unique<Parsed>();
  p->diags = std::make_unique<Diagnostics>(p->sources, max_errors);
  p->file = p->sources.Add(path, text);
  bool dsl = path.size() >= 4 && path.compare(path.size() - 4, 4, ".dbr") == 0;
  p->ast = dsl ? ParseDslFile(p->sources, p->file, *p->diags)
               : ParseYamlFile(p->sources, p->file, *p->diags);
  return p;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::vector<std::string> FilesUnder(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string p = e.path().string();
    if (e.is_regular_file() && p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string SourceDir() { return DOBERMAN_SOURCE_DIR; }

namespace {
std::vector<SourceComment> CommentsOf(const Parsed& p) {
  const std::string& path = p.sources.Path(p.file);
  bool dsl = path.size() >= 4 && path.compare(path.size() - 4, 4, ".dbr") == 0;
  return dsl ? DslComments(p.sources, p.file) : YamlComments(p.sources.Text(p.file));
}
}  // namespace

std::string ToDsl(const Parsed& p) {
  std::string out;
  PrintError e;
  EXPECT_TRUE(PrintDsl(p.ast, CommentsOf(p), &out, &e)) << e.message;
  return out;
}

std::string ToYaml(const Parsed& p) {
  std::string out;
  PrintError e;
  EXPECT_TRUE(PrintYaml(p.ast, CommentsOf(p), &out, &e)) << e.message;
  return out;
}

}  // namespace doberman::compiler::testing
