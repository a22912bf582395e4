// Golden tests of rendered diagnostics: every file (or manifest folder) under tests/golden/yaml is
// compiled and its rendered text compared byte for byte with the .expected file beside it. Set
// DOBERMAN_UPDATE_GOLDEN=1 to rewrite the .expected files after an intended change, then review the
// diff.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "diagnostics.h"
#include "pack_builder.h"
#include "signing.h"
#include "source_loader.h"
#include "yaml_frontend.h"

namespace fs = std::filesystem;
using namespace doberman::compiler;

namespace {

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compiles `rel` (relative to the source dir, so paths in diagnostics are stable) and renders.
std::string Compile(const std::string& rel, bool json = false) {
  SourceMap sources;
  Diagnostics diags(sources);
  SigningKey key;
  EphemeralKey(&key);
  BuiltPack built;
  if (fs::is_directory(rel)) {
    PackSources src;
    if (LoadPackSources(rel + "/pack.yaml", sources, diags, &src)) {
      BuildPack(sources, &src.manifest, src.files, key, 0, diags, &built);
    }
  } else {
    std::vector<RuleFileAst> files;
    if (LoadRuleFiles({rel}, sources, diags, &files)) {
      BuildPack(sources, nullptr, files, key, 0, diags, &built);
    }
  }
  return json ? diags.RenderJson() : diags.RenderText();
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MatchesExpected) {
  ASSERT_EQ(chdir(DOBERMAN_SOURCE_DIR), 0);
  const std::string rel = "tests/golden/yaml/" + GetParam();
  const std::string actual = Compile(rel);
  ASSERT_FALSE(actual.empty()) << rel << " compiled without diagnostics";
  const fs::path expected_path = fs::path(rel).replace_extension("").string() + ".expected";
  if (std::getenv("DOBERMAN_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(expected_path) << actual;
  }
  EXPECT_EQ(actual, Read(expected_path)) << "golden mismatch for " << rel;
}

std::vector<std::string> GoldenInputs() {
  std::vector<std::string> out;
  for (const auto& e :
       fs::directory_iterator(fs::path(DOBERMAN_SOURCE_DIR) / "tests/golden/yaml")) {
    if (e.is_directory() || e.path().extension() == ".yaml")
      out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Yaml, GoldenTest, ::testing::ValuesIn(GoldenInputs()),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(DiagnosticsJson, CarriesCodeAndPlace) {
  ASSERT_EQ(chdir(DOBERMAN_SOURCE_DIR), 0);
  std::string json = Compile("tests/golden/yaml/unknown_field.yaml", true);
  EXPECT_NE(json.find("\"code\":\"E2104\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"file\":\"tests/golden/yaml/unknown_field.yaml\""), std::string::npos);
  EXPECT_NE(json.find("\"line\":6,\"column\":5"), std::string::npos) << json;
  EXPECT_NE(json.find("did you mean 'verdict'"), std::string::npos);
}

TEST(DiagnosticsCap, StopsKeepingErrorsAtTheCap) {
  SourceMap sources;
  Diagnostics diags(sources, 3);
  for (int i = 0; i < 10; ++i) diags.Error(DiagCode::E3001, Loc{}, "error " + std::to_string(i));
  EXPECT_EQ(diags.error_count(), 10u);
  EXPECT_EQ(diags.all().size(), 3u);
  EXPECT_TRUE(diags.capped());
  EXPECT_NE(diags.RenderText().find("7 more errors not shown"), std::string::npos);
}

TEST(ClosestMatch, SuggestsOnlyCloseWords) {
  EXPECT_EQ(ClosestMatch("verdcit", {"verdict", "reason", "tier"}), "verdict");
  EXPECT_EQ(ClosestMatch("xyzzy", {"verdict", "reason", "tier"}), "");
}

}  // namespace

namespace {

TEST(YamlFrontEnd, SinglePatternScalarOrMappingIsAListOfOne) {
  SourceMap sources;
  Diagnostics diags(sources);
  uint32_t file = sources.Add("inline.yaml", R"(rules:
  - id: demo.one
    family: egress
    scopes: [command]
    patterns: '^curl\s'
    all: {regex: 'https?://', flags: [caseless]}
    verdict: AUTH
    reason: egress
    message: network
    examples: {match: ['curl https://x'], pass: ['curl ftp://x']}
)");
  ParsedFile parsed = ParseYamlFile(sources, file, diags);
  ASSERT_TRUE(std::holds_alternative<RuleFileAst>(parsed)) << diags.RenderText();
  EXPECT_FALSE(diags.has_errors()) << diags.RenderText();
  const RuleAst& rule = std::get<RuleFileAst>(parsed).rules.at(0);
  ASSERT_EQ(rule.patterns.size(), 2u);
  EXPECT_EQ(rule.patterns[0].regex.value, "^curl\\s");
  EXPECT_EQ(rule.patterns[1].role, PatternRole::kAll);
  EXPECT_EQ(rule.patterns[1].flags.at(0).value, "caseless");
  SigningKey key;
  EphemeralKey(&key);
  BuiltPack built;
  EXPECT_TRUE(BuildPack(sources, nullptr, {std::get<RuleFileAst>(parsed)}, key, 0, diags, &built))
      << diags.RenderText();
}

TEST(YamlFrontEnd, DuplicateFieldWarnsAndNulPatternIsRefused) {
  SourceMap sources;
  Diagnostics diags(sources);
  std::string text =
      "rules:\n  - id: demo.dup\n    family: egress\n    family: egress\n    scopes: [command]\n"
      "    patterns: [\"a\\0b\"]\n    verdict: AUTH\n    reason: r\n    message: m\n";
  uint32_t file = sources.Add("dup.yaml", text);
  ParsedFile parsed = ParseYamlFile(sources, file, diags);
  SigningKey key;
  EphemeralKey(&key);
  BuiltPack built;
  EXPECT_FALSE(BuildPack(sources, nullptr, {std::get<RuleFileAst>(parsed)}, key, 0, diags, &built));
  std::string rendered = diags.RenderText();
  EXPECT_NE(rendered.find("warning[W2105]"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("error[E4005]"), std::string::npos) << rendered;
}

TEST(Diagnostics, LongLinesAreCutAroundTheCaret) {
  SourceMap sources;
  std::string line(5000, 'a');
  uint32_t file = sources.Add("long.yaml", line + "\n");
  Diagnostics diags(sources);
  diags.Error(DiagCode::E3001, Loc{file, 1, 4000, 3}, "here");
  std::string out = diags.RenderText();
  EXPECT_LT(out.size(), 600u);
  EXPECT_NE(out.find("long.yaml:1:4000"), std::string::npos);
  EXPECT_NE(out.find("^^^"), std::string::npos);
}

}  // namespace
