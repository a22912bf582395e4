// Golden tests for rendered DSL diagnostics: every tests/golden/dsl/*.dbr is parsed (and, when it
// parses, checked and built, so that checker, Hyperscan and example diagnostics show they point
// into the .dbr file); the rendered text must equal the *.expected file byte for byte.
// DOBERMAN_UPDATE_GOLDEN=1 rewrites the expected files instead.
#include <gtest/gtest.h>
#include <sodium.h>

#include <cstdlib>
#include <filesystem>

#include "dsl_frontend.h"
#include "dsl_test_util.h"
#include "pack_builder.h"
#include "signing.h"

namespace doberman::compiler {
namespace {

namespace fs = std::filesystem;
using testing::FilesUnder;
using testing::ReadFile;
using testing::SourceDir;
using testing::WriteFile;

bool Updating() {
  const char* v = std::getenv("DOBERMAN_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

// Diagnostics for one golden file, with its path shown relative to the source tree.
std::string Render(const std::string& path, bool json) {
  std::string shown = fs::relative(path, SourceDir()).string();
  SourceMap sources;
  Diagnostics diags(sources, 50);
  uint32_t id = sources.Add(shown, ReadFile(path));
  ParsedFile ast = ParseDslFile(sources, id, diags);
  if (!diags.has_errors() && std::holds_alternative<RuleFileAst>(ast)) {
    SigningKey key;
    EphemeralKey(&key);
    BuiltPack built;
    (void)BuildPack(sources, nullptr, {std::get<RuleFileAst>(ast)}, key, 0, diags, &built);
  }
  return json ? diags.RenderJson() : diags.RenderText(false);
}

void Compare(const std::string& path, const std::string& expected_path, bool json) {
  SCOPED_TRACE(path);
  std::string got = Render(path, json);
  if (Updating()) {
    WriteFile(expected_path, got);
    return;
  }
  ASSERT_TRUE(fs::exists(expected_path))
      << "missing " << expected_path << " (run with DOBERMAN_UPDATE_GOLDEN=1)\n"
      << got;
  EXPECT_EQ(got, ReadFile(expected_path));
}

class DslGolden : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(DslGolden, RenderedDiagnosticsMatch) {
  std::vector<std::string> files = FilesUnder(SourceDir() + "/tests/golden/dsl", ".dbr");
  ASSERT_GE(files.size(), 8u);
  for (const std::string& f : files) {
    Compare(f, f.substr(0, f.size() - 4) + ".expected", false);
  }
}

TEST_F(DslGolden, JsonDiagnosticsMatch) {
  const std::string f = SourceDir() + "/tests/golden/dsl/recovery.dbr";
  Compare(f, SourceDir() + "/tests/golden/dsl/recovery.expected.json", true);
}

TEST_F(DslGolden, RecoveryReportsSeveralErrorsInOneRun) {
  std::string text = Render(SourceDir() + "/tests/golden/dsl/recovery.dbr", false);
  size_t errors = 0;
  for (size_t at = text.find("error[E10"); at != std::string::npos;
       at = text.find("error[E10", at + 1)) {
    ++errors;
  }
  EXPECT_GE(errors, 3u) << text;
}

}  // namespace
}  // namespace doberman::compiler
