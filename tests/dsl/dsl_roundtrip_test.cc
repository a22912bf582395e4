// YAML <-> DSL equivalence: every shipped rule file (whatever rules/**/*.yaml holds when the test
// runs; none skipped) converts to DSL and back to an equal AST, and a pack built from the YAML and
// one built from its DSL conversion have the identical rule table (`inspect --json` "rules").
// Also: fmt is idempotent, printers refuse what the other language cannot say, fmt/convert exit
// codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sodium.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.h"
#include "dsl_ast_equal.h"
#include "dsl_frontend.h"
#include "dsl_printer.h"
#include "dsl_test_util.h"
#include "inspect.h"
#include "pack_builder.h"
#include "signing.h"
#include "source_loader.h"
#include "yaml_printer.h"

namespace doberman::compiler {
namespace {

namespace fs = std::filesystem;
using testing::FilesUnder;
using testing::ParseText;
using testing::ReadFile;
using testing::SourceDir;

std::vector<std::string> ShippedYaml() {
  std::vector<std::string> files = FilesUnder(SourceDir() + "/rules", ".yaml");
  for (const std::string& f : FilesUnder(SourceDir() + "/rules", ".yml")) files.push_back(f);
  return files;
}

std::vector<std::string> AllYamlInputs() {
  std::vector<std::string> files = ShippedYaml();
  for (const std::string& f : FilesUnder(SourceDir() + "/packs", ".yaml")) files.push_back(f);
  for (const std::string& f : FilesUnder(SourceDir() + "/tests/dsl/data", ".yaml"))
    files.push_back(f);
  return files;
}

std::string Fmt(const std::string& text, const std::string& path) {
  auto p = ParseText(text, path);
  EXPECT_FALSE(p->diags->has_errors()) << path << "\n" << p->errors();
  return testing::ToDsl(*p);
}

void ExpectEqual(const ParsedFile& a, const ParsedFile& b, const std::string& what) {
  std::string diff;
  EXPECT_TRUE(AstEqual(a, b, &diff)) << what << ": " << diff;
}

class DslRoundTrip : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(DslRoundTrip, EverythingDslSaysWhatEverythingYamlSays) {
  for (const char* name : {"everything", "manifest"}) {
    std::string dir = SourceDir() + "/tests/dsl/data/";
    auto d = ParseText(ReadFile(dir + name + ".dbr"), std::string(name) + ".dbr");
    auto y = ParseText(ReadFile(dir + name + ".yaml"), std::string(name) + ".yaml");
    ASSERT_FALSE(d->diags->has_errors()) << d->errors();
    ASSERT_FALSE(y->diags->has_errors()) << y->errors();
    ExpectEqual(d->ast, y->ast, name);
  }
}

TEST_F(DslRoundTrip, YamlToDslToYamlKeepsTheAst) {
  std::vector<std::string> files = AllYamlInputs();
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    auto y = ParseText(ReadFile(f), f);
    ASSERT_FALSE(y->diags->has_errors()) << y->errors();
    std::string dsl = testing::ToDsl(*y);
    auto d = ParseText(dsl, f + ".dbr");
    ASSERT_FALSE(d->diags->has_errors()) << d->errors() << dsl;
    ExpectEqual(y->ast, d->ast, "yaml -> dsl");
    std::string yaml = testing::ToYaml(*d);
    auto y2 = ParseText(yaml, f + ".again.yaml");
    ASSERT_FALSE(y2->diags->has_errors()) << y2->errors() << yaml;
    ExpectEqual(y->ast, y2->ast, "yaml -> dsl -> yaml");
  }
}

TEST_F(DslRoundTrip, FmtIsIdempotent) {
  std::vector<std::pair<std::string, std::string>> inputs;  // text, path
  for (const std::string& f : AllYamlInputs()) inputs.push_back({ReadFile(f), f});
  for (const std::string& f : FilesUnder(SourceDir() + "/tests/dsl/data", ".dbr"))
    inputs.push_back({ReadFile(f), f});
  for (const std::string& f : FilesUnder(SourceDir() + "/rules", ".dbr"))
    inputs.push_back({ReadFile(f), f});
  inputs.push_back({"// only a comment\n", "c.dbr"});
  inputs.push_back(
      {"rule a.b : c { any /x/ all /y/ any /z/ pass \"p\" match \"m\" pass \"q\" } // end\n",
       "i.dbr"});
  for (const auto& [text, path] : inputs) {
    SCOPED_TRACE(path);
    std::string once = Fmt(text, path);
    std::string twice = Fmt(once, "once.dbr");
    EXPECT_EQ(once, twice);
  }
}

TEST_F(DslRoundTrip, CommentsSurviveFmtAndConversion) {
  auto d = ParseText(
      "// head\nrule a.b : c { // why\n  verdict AUTH\n  /* block */ tier 1 // after\n}\n// "
      "tail\n");
  std::string out = testing::ToDsl(*d);
  EXPECT_THAT(out, ::testing::HasSubstr("// head\nrule a.b : c {\n"));
  EXPECT_THAT(out, ::testing::HasSubstr("  // why\n  verdict AUTH\n"));
  EXPECT_THAT(out, ::testing::HasSubstr("  // block\n  tier 1\n}\n// after\n"));
  EXPECT_THAT(out, ::testing::EndsWith("}\n// after\n// tail\n"));
  std::string yaml = testing::ToYaml(*d);
  EXPECT_THAT(yaml, ::testing::HasSubstr("# head\n"));
  auto y = ParseText("# top\nrules:\n  # first\n  - id: a.b\n", "c.yaml");
  EXPECT_THAT(testing::ToDsl(*y), ::testing::StartsWith("// top\n// first\nrule a.b {\n"));
}

TEST_F(DslRoundTrip, YamlPrinterRefusesWhatYamlCannotSay) {
  for (const char* text : {"rule a.b : c { any /x/ all /y/ any /z/ }\n",
                           "rule a.b : c { pass \"p\" match \"m\" pass \"q\" }\n",
                           "rule a.b : c { none /x/ any /y/ none /z/ }\n"}) {
    auto d = ParseText(text);
    ASSERT_FALSE(d->diags->has_errors()) << d->errors();
    std::string out;
    PrintError e;
    EXPECT_FALSE(PrintYaml(d->ast, {}, &out, &e)) << text;
    EXPECT_THAT(e.message, ::testing::HasSubstr("interleaves"));
    EXPECT_EQ(e.loc.line, 1u);
  }
  // Contiguous runs in any order are fine.
  auto ok = ParseText("rule a.b : c { all /y/ any /x/ none /z/ pass \"p\" match \"m\" }\n");
  std::string yaml = testing::ToYaml(*ok);
  auto back = ParseText(yaml, "b.yaml");
  ExpectEqual(ok->ast, back->ast, "contiguous roles");
}

TEST_F(DslRoundTrip, DslPrinterRefusesWhatTheDslCannotSay) {
  auto y = ParseText(
      "shell:\n  wrappers:\n    - {positional: 1}\n  aliases:\n    - {command: rm}\n", "s.yaml");
  std::string out;
  PrintError e;
  EXPECT_FALSE(PrintDsl(y->ast, {}, &out, &e));
  EXPECT_THAT(e.message, ::testing::HasSubstr("wrapper has no name"));
}

TEST_F(DslRoundTrip, YamlQuoteRoundTripsOddStrings) {
  std::string all;
  for (int b = 1; b < 256; ++b) all.push_back(static_cast<char>(b));
  for (const std::string& s :
       {std::string(""), std::string(" lead"), std::string("trail "), std::string("it's"),
        std::string("a: b # c"), std::string("null"), std::string("~"), std::string("- x"),
        std::string("\t\n\r"), std::string("\u202E\U000E0041é"), std::string(1, '\0'), all}) {
    auto y = ParseText("rules:\n  - id: " + YamlQuote(s) + "\n", "q.yaml");
    ASSERT_FALSE(y->diags->has_errors()) << y->errors();
    EXPECT_EQ(std::get<RuleFileAst>(y->ast).rules.at(0).id.value, s);
  }
}

// ---- the shipped rule table, built both ways ------------------------------------------------

// The "rules" array of `dobermanc inspect --json` for `bytes`.
std::string RulesJson(const std::vector<uint8_t>& bytes) {
  std::string out, error;
  EXPECT_TRUE(RenderPack(bytes, true, false, &out, &error)) << error;
  size_t at = out.find("},\"rules\":[");
  EXPECT_NE(at, std::string::npos);
  return at == std::string::npos ? "" : out.substr(at + 2);
}

std::vector<std::string> ErrorCodes(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const Diagnostic& x : d.all()) {
    if (x.severity == Severity::kError) out.push_back(x.code);
  }
  return out;
}

struct Side {
  SourceMap sources;
  std::unique_ptr<Diagnostics> diags = std::make_unique<Diagnostics>(sources, 1000);
  std::vector<RuleFileAst> files;
  std::optional<ManifestAst> manifest;
  BuiltPack built;
  bool ok = false;
};

// Converts every file of `yaml` to DSL text, parses it back (as .dbr) into `dsl`.
void ConvertSide(const Side& yaml, Side* dsl) {
  auto convert = [&](const ParsedFile& ast, const std::string& path) -> ParsedFile {
    std::string text;
    PrintError e;
    EXPECT_TRUE(PrintDsl(ast, {}, &text, &e)) << path << ": " << e.message;
    uint32_t id = dsl->sources.Add(path + ".dbr", text);
    ParsedFile back = ParseDslFile(dsl->sources, id, *dsl->diags);
    EXPECT_FALSE(dsl->diags->has_errors()) << dsl->diags->RenderText(false) << text;
    ExpectEqual(ast, back, path);
    return back;
  };
  for (const RuleFileAst& f : yaml.files) {
    ParsedFile back = convert(ParsedFile(f), yaml.sources.Path(f.file));
    if (auto* r = std::get_if<RuleFileAst>(&back)) dsl->files.push_back(std::move(*r));
  }
  if (yaml.manifest) {
    ParsedFile back = convert(ParsedFile(*yaml.manifest), yaml.sources.Path(yaml.manifest->file));
    if (auto* m = std::get_if<ManifestAst>(&back)) dsl->manifest = std::move(*m);
  }
}

void BuildSide(Side* s, const SigningKey& key) {
  s->ok = BuildPack(s->sources, s->manifest ? &*s->manifest : nullptr, s->files, key, 1700000000,
                    *s->diags, &s->built);
}

void ExpectSameTable(const Side& yaml, const Side& dsl) {
  ASSERT_EQ(yaml.ok, dsl.ok) << "YAML:\n"
                             << yaml.diags->RenderText(false) << "DSL:\n"
                             << dsl.diags->RenderText(false);
  EXPECT_EQ(ErrorCodes(*yaml.diags), ErrorCodes(*dsl.diags));
  EXPECT_EQ(yaml.built.examples.run, dsl.built.examples.run);
  EXPECT_EQ(yaml.built.examples.failed, dsl.built.examples.failed);
  if (!yaml.ok) return;
  EXPECT_EQ(RulesJson(yaml.built.bytes), RulesJson(dsl.built.bytes));
  EXPECT_EQ(yaml.built.ir.name, dsl.built.ir.name);
  EXPECT_EQ(yaml.built.ir.version, dsl.built.ir.version);
  EXPECT_EQ(yaml.built.ir.revision, dsl.built.ir.revision);
  EXPECT_EQ(yaml.built.ir.expires_unix, dsl.built.ir.expires_unix);
  EXPECT_EQ(yaml.built.ir.patterns.size(), dsl.built.ir.patterns.size());
}

TEST_F(DslRoundTrip, EveryShippedRuleFileBuildsTheSameRuleTableFromItsDsl) {
  std::vector<std::string> files = ShippedYaml();
  ASSERT_FALSE(files.empty()) << "no rules/**/*.yaml";
  SigningKey key;
  EphemeralKey(&key);
  Side yaml;
  for (const std::string& f : files) {
    ParsedFile pf = LoadSourceFile(f, yaml.sources, *yaml.diags);
    ASSERT_TRUE(std::holds_alternative<RuleFileAst>(pf)) << f << "\n"
                                                         << yaml.diags->RenderText(false);
    yaml.files.push_back(std::get<RuleFileAst>(std::move(pf)));
  }
  Side dsl;
  ConvertSide(yaml, &dsl);
  BuildSide(&yaml, key);
  BuildSide(&dsl, key);
  ExpectSameTable(yaml, dsl);
  std::cerr << "[ info ] " << files.size() << " shipped rule files, " << yaml.built.ir.rules.size()
            << " rules, " << yaml.built.examples.run << " examples, equal both ways\n";
}

TEST_F(DslRoundTrip, EveryShippedPackBuildsTheSameFromItsDsl) {
  std::vector<std::string> manifests = FilesUnder(SourceDir() + "/packs", ".yaml");
  SigningKey key;
  EphemeralKey(&key);
  for (const std::string& m : manifests) {
    SCOPED_TRACE(m);
    Side yaml;
    PackSources src;
    bool loaded = LoadPackSources(m, yaml.sources, *yaml.diags, &src);
    ASSERT_TRUE(loaded || yaml.diags->has_errors());
    if (!loaded) {
      ADD_FAILURE() << "the shipped pack does not load:\n" << yaml.diags->RenderText(false);
      continue;
    }
    yaml.manifest = src.manifest;
    yaml.files = src.files;
    Side dsl;
    ConvertSide(yaml, &dsl);
    BuildSide(&yaml, key);
    BuildSide(&dsl, key);
    ExpectSameTable(yaml, dsl);
  }
}

// A DSL manifest includes a folder where .dbr and .yaml rule files sit side by side.
TEST_F(DslRoundTrip, MixedLanguagesInOnePack) {
  fs::path dir = fs::temp_directory_path() / ("dsl_mixed_" + std::to_string(::getpid()));
  fs::create_directories(dir / "rules");
  // the manifest's fragment, used by a rule file in either language
  testing::WriteFile((dir / "pack.dbr").string(),
                     "define word /aaa/\n"
                     "pack mixed {\n  version 1.0.0\n  revision 1\n  include \"rules/\"\n}\n");
  testing::WriteFile((dir / "rules" / "a.dbr").string(),
                     "rule destructive.a : destructive {\n  scopes command\n  verdict BLOCK\n"
                     "  reason destructive_a\n  message \"a\"\n  tags t\n  any /^(?&word)(\\s|$)/\n"
                     "  match \"aaa\"\n  pass \"bbb\"\n}\n");
  testing::WriteFile(
      (dir / "rules" / "b.yaml").string(),
      "rules:\n  - id: signal.b\n    family: signal\n    verdict: AUTH\n    reason: b\n"
      "    message: b\n    when: tag:t and destructive.a\n");
  SourceMap sources;
  Diagnostics diags(sources);
  std::vector<std::string> manifests = FindManifests(dir.string(), sources, diags);
  ASSERT_EQ(manifests.size(), 1u) << diags.RenderText(false);
  PackSources src;
  ASSERT_TRUE(LoadPackSources(manifests[0], sources, diags, &src)) << diags.RenderText(false);
  ASSERT_EQ(src.files.size(), 2u);
  ASSERT_EQ(src.manifest.fragments.size(), 1u);
  SigningKey key;
  EphemeralKey(&key);
  BuiltPack built;
  EXPECT_TRUE(BuildPack(sources, &src.manifest, src.files, key, 1700000000, diags, &built))
      << diags.RenderText(false);
  EXPECT_EQ(built.ir.name, "mixed");
  EXPECT_EQ(built.ir.rules.size(), 2u);
  EXPECT_EQ(built.examples.run, 2u);
  EXPECT_EQ(built.examples.failed, 0u);
  fs::remove_all(dir);
}

// ---- the commands -----------------------------------------------------------------------------

TEST_F(DslRoundTrip, CommandExitCodes) {
  fs::path dir = fs::temp_directory_path() / ("dsl_cmd_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    testing::WriteFile((dir / name).string(), text);
    return (dir / name).string();
  };
  CommonOptions common;
  std::string good = write("good.dbr", "rule a.b : c { tier 1 }\n");
  std::string bad = write("bad.dbr", "rule a.b : c { tier }\n");
  std::string mixed = write("mixed.dbr", "rule a.b : c { any /x/ all /y/ any /z/ }\n");
  std::string yaml = write("y.yaml", "rules:\n  - id: a.b\n");
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunFmt({good}, common), kExitOk);
  EXPECT_EQ(RunFmt({bad}, common), kExitDiagnostics);
  EXPECT_EQ(RunFmt({(dir / "missing.dbr").string()}, common), kExitIo);
  EXPECT_EQ(RunConvert({mixed, "yaml"}, common), kExitDiagnostics);
  EXPECT_EQ(RunConvert({mixed, "dsl"}, common), kExitOk);
  EXPECT_EQ(RunConvert({yaml, "dsl"}, common), kExitOk);
  EXPECT_EQ(RunConvert({good, "yaml"}, common), kExitOk);
  std::string out = ::testing::internal::GetCapturedStdout();
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(out, ::testing::HasSubstr("rule a.b : c {\n  tier 1\n}\n"));
  EXPECT_THAT(out, ::testing::HasSubstr("rules:\n  - id: 'a.b'\n"));
  EXPECT_THAT(err, ::testing::HasSubstr("error[E1010]"));
  EXPECT_THAT(err, ::testing::HasSubstr("error[E1003]"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace doberman::compiler
