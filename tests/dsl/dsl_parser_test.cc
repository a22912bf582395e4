// DSL front-end: every construct lands in the AST with the right values and 1-based byte Locs; the
// lexical helpers shared with the printer (escapes, regex literals, bare words) round-trip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "checker.h"
#include "dsl_ast_equal.h"
#include "dsl_frontend.h"
#include "dsl_lexical.h"
#include "dsl_printer.h"
#include "dsl_test_util.h"

namespace doberman::compiler {
namespace {

using testing::ParseText;

void ExpectText(const Text& t, const std::string& value, uint32_t line, uint32_t column,
                uint32_t length = 0) {
  EXPECT_TRUE(t.present()) << value;
  EXPECT_EQ(t.value, value);
  EXPECT_EQ(t.loc.line, line) << value;
  EXPECT_EQ(t.loc.column, column) << value;
  if (length != 0) {
    EXPECT_EQ(t.loc.length, length) << value;
  }
}

const RuleFileAst& Rules(const testing::Parsed& p) {
  EXPECT_FALSE(p.diags->has_errors()) << p.errors();
  static const RuleFileAst kEmpty;
  const auto* f = std::get_if<RuleFileAst>(&p.ast);
  EXPECT_NE(f, nullptr);
  return f != nullptr ? *f : kEmpty;
}

TEST(DslParser, RuleHeaderAndScalarFields) {
  auto p = ParseText(
      "rule destructive.rm.root : destructive {\n"
      "  scopes command, command_text\n"
      "  verdict BLOCK\n"
      "  tier 0\n"
      "  reason destructive_delete_root\n"
      "  message \"recursive \\\"x\\\"\"\n"
      "  description \"d\"\n"
      "  tags destructive, fs\n"
      "  origins typed\n"
      "  mention AUTH\n"
      "}\n");
  const RuleFileAst& f = Rules(*p);
  ASSERT_EQ(f.rules.size(), 1u);
  const RuleAst& r = f.rules[0];
  EXPECT_EQ(r.loc.line, 1u);
  EXPECT_EQ(r.loc.column, 1u);
  EXPECT_EQ(r.loc.file, p->file);
  ExpectText(r.id, "destructive.rm.root", 1, 6, 19);
  ExpectText(r.family, "destructive", 1, 28, 11);
  ASSERT_EQ(r.scopes.size(), 2u);
  ExpectText(r.scopes[0], "command", 2, 10, 7);
  ExpectText(r.scopes[1], "command_text", 2, 19, 12);
  ExpectText(r.verdict, "BLOCK", 3, 11, 5);
  ExpectText(r.tier, "0", 4, 8, 1);
  ExpectText(r.reason, "destructive_delete_root", 5, 10);
  ExpectText(r.message, "recursive \"x\"", 6, 11, 17);
  ExpectText(r.description, "d", 7, 15, 3);
  ASSERT_EQ(r.tags.size(), 2u);
  ExpectText(r.tags[1], "fs", 8, 21);
  ASSERT_EQ(r.origins.size(), 1u);
  ExpectText(r.origins[0], "typed", 9, 11);
  ExpectText(r.mention_cap, "AUTH", 10, 11);
  EXPECT_FALSE(r.when.present());
  EXPECT_FALSE(r.decode.present());
  EXPECT_FALSE(r.validators.present);
}

TEST(DslParser, PatternsWithRolesFlagsAndOffsets) {
  auto p = ParseText(
      "rule a.b : c {\n"
      "  any /^rm\\s/\n"
      "  all /a\\/b/is (som, x)\n"
      "  none \"q\\\"\" (caseless)\n"
      "  any /x/ /y/m\n"
      "}\n");
  const RuleFileAst& f = Rules(*p);
  ASSERT_EQ(f.rules.size(), 1u);
  const auto& pats = f.rules[0].patterns;
  ASSERT_EQ(pats.size(), 5u);
  EXPECT_EQ(pats[0].role, PatternRole::kAny);
  ExpectText(pats[0].regex, "^rm\\s", 2, 7, 7);
  EXPECT_EQ(pats[0].content_offset, 1u);
  EXPECT_TRUE(pats[0].flags.empty());

  EXPECT_EQ(pats[1].role, PatternRole::kAll);
  ExpectText(pats[1].regex, "a/b", 3, 7, 6);  // the escaping backslash is gone
  ASSERT_EQ(pats[1].flags.size(), 4u);
  ExpectText(pats[1].flags[0], "caseless", 3, 13, 1);
  ExpectText(pats[1].flags[1], "dotall", 3, 14, 1);
  ExpectText(pats[1].flags[2], "som", 3, 17, 3);
  ExpectText(pats[1].flags[3], "x", 3, 22, 1);

  EXPECT_EQ(pats[2].role, PatternRole::kNone);
  ExpectText(pats[2].regex, "q\"", 4, 8);
  EXPECT_EQ(pats[2].content_offset, 1u);
  ASSERT_EQ(pats[2].flags.size(), 1u);
  ExpectText(pats[2].flags[0], "caseless", 4, 15);

  ExpectText(pats[3].regex, "x", 5, 7);
  ExpectText(pats[4].regex, "y", 5, 11);
  ASSERT_EQ(pats[4].flags.size(), 1u);
  EXPECT_EQ(pats[4].flags[0].value, "multiline");
}

TEST(DslParser, EveryFlagLetter) {
  auto p = ParseText("rule a.b : c { any /x/ism8u }\n");
  const auto& flags = Rules(*p).rules.at(0).patterns.at(0).flags;
  std::vector<std::string> names;
  for (const Text& t : flags) names.push_back(t.value);
  EXPECT_THAT(names, ::testing::ElementsAre("caseless", "dotall", "multiline", "utf8", "ucp"));
}

TEST(DslParser, ValidatorsDecodeMentionMarker) {
  auto p = ParseText(
      "rule a.b : c {\n"
      "  validators { min_entropy 3.5 min_length 20 placeholder exempt hashes, identifiers }\n"
      "  decode\n"
      "  mention_marker false\n"
      "}\n");
  const RuleAst& r = Rules(*p).rules.at(0);
  ASSERT_TRUE(r.validators.present);
  EXPECT_EQ(r.validators.loc.line, 2u);
  EXPECT_EQ(r.validators.loc.column, 3u);
  ExpectText(r.validators.min_entropy, "3.5", 2, 28);
  ExpectText(r.validators.min_length, "20", 2, 43);
  ExpectText(r.validators.placeholder, "true", 2, 46, 11);  // the keyword stands for true
  ExpectText(r.validators.exempt_hashes, "true", 2, 65, 6);
  ExpectText(r.validators.exempt_identifiers, "true", 2, 73, 11);
  ExpectText(r.decode, "true", 3, 3, 6);
  ExpectText(r.mention_marker, "false", 4, 18);
}

TEST(DslParser, EmptyValidatorsBlockIsPresent) {
  auto p = ParseText("rule a.b : c { validators {} }\n");
  const RuleAst& r = Rules(*p).rules.at(0);
  EXPECT_TRUE(r.validators.present);
  EXPECT_FALSE(r.validators.placeholder.present());
}

TEST(DslParser, WhenBareAndQuoted) {
  auto p = ParseText(
      "rule a.b : c {\n"
      "  when tag:secret and not rule.other   // trailing\n"
      "}\n"
      "rule d.e : c {\n"
      "  when \"a or (b)\"\n"
      "}\n"
      "rule f.g : c { when x.y }\n");
  const RuleFileAst& f = Rules(*p);
  ASSERT_EQ(f.rules.size(), 3u);
  ExpectText(f.rules[0].when, "tag:secret and not rule.other", 2, 8, 29);
  // Quoted: the column is the first content byte, so the checker's offsets stay right.
  ExpectText(f.rules[1].when, "a or (b)", 5, 9, 8);
  ExpectText(f.rules[2].when, "x.y", 7, 21);
}

TEST(DslParser, Examples) {
  auto p = ParseText(
      "rule a.b : c {\n"
      "  match \"sudo rm -rf /\"\n"
      "  pass { tool \"Write\" path \"p\" cwd \"/\" content \"c\" url \"u\" prompt \"q\" origin "
      "\"typed\" "
      "command \"ls\" args \"a\", \"b\" }\n"
      "  match word\n"
      "}\n");
  const RuleAst& r = Rules(*p).rules.at(0);
  ASSERT_EQ(r.examples.size(), 3u);
  EXPECT_TRUE(r.examples[0].expect_match);
  ASSERT_TRUE(r.examples[0].text.has_value());
  ExpectText(*r.examples[0].text, "sudo rm -rf /", 2, 9);
  EXPECT_EQ(r.examples[0].loc.column, 9u);
  const ExampleAst& call = r.examples[1];
  EXPECT_FALSE(call.expect_match);
  EXPECT_FALSE(call.text.has_value());
  EXPECT_EQ(call.loc.line, 3u);
  EXPECT_EQ(call.loc.column, 3u);
  ExpectText(call.call.tool, "Write", 3, 15);
  EXPECT_EQ(call.call.path.value, "p");
  EXPECT_EQ(call.call.cwd.value, "/");
  EXPECT_EQ(call.call.content.value, "c");
  EXPECT_EQ(call.call.url.value, "u");
  EXPECT_EQ(call.call.prompt.value, "q");
  EXPECT_EQ(call.call.origin.value, "typed");
  EXPECT_EQ(call.call.command.value, "ls");
  ASSERT_EQ(call.call.args.size(), 2u);
  EXPECT_EQ(call.call.args[1].value, "b");
  EXPECT_EQ(r.examples[2].text->value, "word");
}

TEST(DslParser, ShellTables) {
  auto p = ParseText(
      "shell {\n"
      "  wrappers {\n"
      "    sudo value_options -u, --user\n"
      "    timeout positional 1 value_options -s\n"
      "    command\n"
      "    \"positional\"\n"
      "  }\n"
      "  shells sh, bash\n"
      "  split_flags rm\n"
      "  alias rm --recursive -> -r\n"
      "  stdin_programs python3, psql\n"
      "  runners \"uv run\", npx\n"
      "}\n");
  const RuleFileAst& f = Rules(*p);
  ASSERT_EQ(f.shell.size(), 1u);
  const ShellAst& s = f.shell[0];
  EXPECT_EQ(s.loc.line, 1u);
  ASSERT_EQ(s.wrappers.size(), 4u);
  ExpectText(s.wrappers[0].name, "sudo", 3, 5);
  ASSERT_EQ(s.wrappers[0].value_options.size(), 2u);
  ExpectText(s.wrappers[0].value_options[1], "--user", 3, 28, 6);
  ExpectText(s.wrappers[1].positional, "1", 4, 24);
  EXPECT_EQ(s.wrappers[1].value_options.at(0).value, "-s");
  EXPECT_EQ(s.wrappers[2].name.value, "command");  // keywords are names here
  EXPECT_EQ(s.wrappers[3].name.value, "positional");
  ASSERT_EQ(s.shells.size(), 2u);
  ASSERT_EQ(s.split_flags.size(), 1u);
  ASSERT_EQ(s.stdin_programs.size(), 2u);
  ExpectText(s.stdin_programs[1], "psql", 11, 27);
  ASSERT_EQ(s.runners.size(), 2u);
  EXPECT_EQ(s.runners[0].value, "uv run");
  ASSERT_EQ(s.aliases.size(), 1u);
  ExpectText(s.aliases[0].command, "rm", 10, 9);
  ExpectText(s.aliases[0].from, "--recursive", 10, 12);
  ExpectText(s.aliases[0].to, "-r", 10, 27);
}

TEST(DslParser, Manifest) {
  auto p = ParseText(
      "pack default {\n"
      "  version 1.0.0\n"
      "  revision 7\n"
      "  description \"The pack\"\n"
      "  expires \"2027-01-01T00:00:00Z\"\n"
      "  include \"../rules/\", x.dbr\n"
      "  include \"more/*.yaml\"\n"
      "  exclude_rules tmp.x\n"
      "  platforms avx2, avx512\n"
      "  limits { max_string_bytes 100000 max_depth 32 }\n"
      "}\n");
  ASSERT_FALSE(p->diags->has_errors()) << p->errors();
  const auto* m = std::get_if<ManifestAst>(&p->ast);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->loc.line, 1u);
  ExpectText(m->name, "default", 1, 6);
  ExpectText(m->version, "1.0.0", 2, 11);
  ExpectText(m->revision, "7", 3, 12);
  EXPECT_EQ(m->description.value, "The pack");
  ExpectText(m->expires, "2027-01-01T00:00:00Z", 5, 11);
  ASSERT_EQ(m->includes.size(), 3u);
  ExpectText(m->includes[1], "x.dbr", 6, 24);
  EXPECT_EQ(m->includes[2].value, "more/*.yaml");
  ASSERT_EQ(m->exclude_rules.size(), 1u);
  ASSERT_EQ(m->platforms.size(), 2u);
  ASSERT_EQ(m->limits.size(), 2u);
  ExpectText(m->limits[1].name, "max_depth", 10, 36);
  ExpectText(m->limits[1].value, "32", 10, 46);
}

TEST(DslParser, ManifestWithoutName) {
  auto p = ParseText("pack { version 1.0.0 }\n");
  ASSERT_FALSE(p->diags->has_errors()) << p->errors();
  const auto* m = std::get_if<ManifestAst>(&p->ast);
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->name.present());
}

TEST(DslParser, EmptyFileIsAnEmptyRuleFile) {
  auto p = ParseText("// nothing here\n");
  const RuleFileAst& f = Rules(*p);
  EXPECT_TRUE(f.rules.empty());
  EXPECT_TRUE(f.shell.empty());
}

TEST(DslParser, RuleWithoutIdOrFamily) {
  auto p = ParseText("rule { }\nrule : secret { }\nrule x.y { }\n");
  const RuleFileAst& f = Rules(*p);
  ASSERT_EQ(f.rules.size(), 3u);
  EXPECT_FALSE(f.rules[0].id.present());
  EXPECT_FALSE(f.rules[1].id.present());
  EXPECT_EQ(f.rules[1].family.value, "secret");
  EXPECT_FALSE(f.rules[2].family.present());
}

TEST(DslParser, StringEscapesAndBytes) {
  auto p = ParseText(
      "rule a.b : c { message \"q\\\" b\\\\ n\\n t\\t r\\r z\\0 x\\x41\\xff u\\u{1F436}\\u{e9}\" "
      "}\n");
  const RuleAst& r = Rules(*p).rules.at(0);
  EXPECT_EQ(r.message.value, std::string("q\" b\\ n\n t\t r\r z") + std::string(1, '\0') +
                                 " xA\xff u\xF0\x9F\x90\xB6\xC3\xA9");
}

TEST(DslParser, RawUtf8AndInvalidBytesInStringsAndColumnsAreBytes) {
  // "é" is two bytes: the column of the value after it counts bytes, not characters.
  auto p = ParseText("rule a.b : c { message \"é\xff\" tags x }\n");
  const RuleAst& r = Rules(*p).rules.at(0);
  EXPECT_EQ(r.message.value, "é\xff");
  ExpectText(r.tags.at(0), "x", 1, 35);
}

TEST(DslParser, CrLfLineEndings) {
  auto p = ParseText("rule a.b : c {\r\n  verdict AUTH\r\n  when x.y\r\n}\r\n");
  const RuleAst& r = Rules(*p).rules.at(0);
  ExpectText(r.verdict, "AUTH", 2, 11);
  ExpectText(r.when, "x.y", 3, 8, 3);
}

TEST(DslParser, KeywordsAreValuesInLists) {
  auto p = ParseText("rule rule : when { scopes command, path, any tags \"when\" }\n");
  ASSERT_TRUE(p->diags->has_errors());  // `when` cannot be a bare value: it starts an expression
  auto q = ParseText("rule rule : \"when\" { scopes command, path, any tags \"when\", match }\n");
  const RuleAst& r = Rules(*q).rules.at(0);
  EXPECT_EQ(r.id.value, "rule");
  EXPECT_EQ(r.family.value, "when");
  ASSERT_EQ(r.scopes.size(), 3u);
  EXPECT_EQ(r.scopes[2].value, "any");
  ASSERT_EQ(r.tags.size(), 2u);
  EXPECT_EQ(r.tags[1].value, "match");
}

TEST(DslParser, BlockCommentsAndLineComments) {
  auto p = ParseText("/* a\n b */ rule a.b /* x */ : c { // y\n tier 1 }\n");
  const RuleAst& r = Rules(*p).rules.at(0);
  ExpectText(r.family, "c", 2, 26);
  ExpectText(r.tier, "1", 3, 7);
  SourceMap sources;
  uint32_t id = sources.Add("c.dbr", "// one\nrule a.b : c { } /* two\nthree */\n");
  auto comments = DslComments(sources, id);
  ASSERT_EQ(comments.size(), 3u);
  EXPECT_EQ(comments[0].line, 1u);
  EXPECT_EQ(comments[0].text, " one");
  EXPECT_EQ(comments[1].line, 2u);
  EXPECT_EQ(comments[1].text, " two");
  EXPECT_EQ(comments[2].line, 3u);
  EXPECT_EQ(comments[2].text, "three ");
}

// ---- errors the front-end itself reports (the golden tests render them) ---------------------

std::vector<std::string> Codes(const testing::Parsed& p) {
  std::vector<std::string> out;
  for (const Diagnostic& d : p.diags->all()) out.push_back(d.code);
  return out;
}

TEST(DslParserErrors, DuplicateScalarFieldIsE1009ListsAppend) {
  auto p = ParseText(
      "rule a.b : c {\n verdict AUTH\n tags x\n verdict BLOCK\n tags y\n any /a/\n any /b/\n}\n");
  EXPECT_THAT(Codes(*p), ::testing::ElementsAre("E1009"));
  const Diagnostic& d = p->diags->all().at(0);
  EXPECT_EQ(d.loc.line, 4u);
  EXPECT_EQ(d.loc.column, 2u);
  const RuleAst& r = std::get<RuleFileAst>(p->ast).rules.at(0);
  EXPECT_EQ(r.verdict.value, "AUTH");  // the first value stays
  EXPECT_EQ(r.tags.size(), 2u);
  EXPECT_EQ(r.patterns.size(), 2u);
}

TEST(DslParserErrors, ManifestMixedWithRulesAndTwoShells) {
  auto p = ParseText("pack p { }\nrule a.b : c { }\n");
  EXPECT_THAT(Codes(*p), ::testing::ElementsAre("E1009"));
  EXPECT_TRUE(std::holds_alternative<ManifestAst>(p->ast));
  auto q = ParseText("shell { }\nshell { }\n");
  EXPECT_THAT(Codes(*q), ::testing::ElementsAre("E1009"));
}

TEST(DslParserErrors, UnknownFlagLetterAndExemption) {
  auto p = ParseText("rule a.b : c { any /x/iq validators { exempt hashes, nope } }\n");
  EXPECT_THAT(Codes(*p), ::testing::ElementsAre("E1008", "E2103"));
  EXPECT_EQ(p->diags->all()[0].loc.column, 24u);
  EXPECT_EQ(p->diags->all()[1].loc.column, 54u);
}

TEST(DslParserErrors, BadEscapesPointAtTheEscape) {
  auto p = ParseText("rule a.b : c { message \"ok \\q \\x4 \\u{110000} \\u{} \\u1\" }\n");
  EXPECT_THAT(Codes(*p), ::testing::ElementsAre("E1007", "E1007", "E1007", "E1007", "E1007"));
  EXPECT_EQ(p->diags->all()[0].loc.column, 28u);
  EXPECT_EQ(p->diags->all()[0].loc.length, 2u);
  EXPECT_EQ(p->diags->all()[1].loc.column, 31u);
}

TEST(DslParserErrors, LexicalErrors) {
  auto p = ParseText("rule a.b : c { tags x ; }\n# yaml habit\nrule 'x' { }\n");
  EXPECT_THAT(Codes(*p), ::testing::Contains("E1006"));
  auto q = ParseText("rule a.b : c { message \"open\n}\n");
  EXPECT_THAT(Codes(*q),
              ::testing::ElementsAre("E1006"));  // reported once, not again by the parser
  auto r = ParseText("rule a.b : c { any /open\n}\n");
  EXPECT_THAT(Codes(*r), ::testing::ElementsAre("E1006"));
  auto s = ParseText("rule a.b : c { } /* open\n");
  EXPECT_THAT(Codes(*s), ::testing::ElementsAre("E1006"));
  auto t = ParseText("rule a.b : c { tags \xff }\n");
  EXPECT_THAT(Codes(*t), ::testing::ElementsAre("E1006", "E1003"));
}

TEST(DslParserErrors, SyntaxErrorsRecoverAndKeepGoing) {
  auto p = ParseText(
      "rule a.b : c {\n  verdit BLOCK\n  tier 1\n}\nrule d.e : c {\n  scopes\n}\nrule f.g : c { "
      "tier 2 }\n");
  EXPECT_THAT(Codes(*p), ::testing::ElementsAre("E1003", "E1003"));
  const auto& f = std::get<RuleFileAst>(p->ast);
  ASSERT_EQ(f.rules.size(), 3u);
  EXPECT_EQ(f.rules[0].tier.value, "1");  // the field after the typo survived
  EXPECT_EQ(f.rules[2].tier.value, "2");
  EXPECT_EQ(p->diags->all()[0].help, "did you mean 'verdict'?");
}

TEST(DslParserErrors, ErrorCapBoundsGarbage) {
  std::string garbage(200000, '@');
  auto p = ParseText(garbage, "g.dbr", 20);
  EXPECT_TRUE(p->diags->has_errors());
  EXPECT_LE(p->diags->all().size(), 20u);
}

// ---- checker diagnostics point into .dbr files ------------------------------------------------

TEST(DslParser, CheckerLocationsPointIntoDsl) {
  auto p = ParseText(
      "rule a.b : secrte {\n  scopes command\n  verdict BLOKC\n  when rule.nope\n  any /x/\n}\n");
  ASSERT_FALSE(p->diags->has_errors()) << p->errors();
  IrPack ir;
  EXPECT_FALSE(CheckRules(p->sources, {std::get<RuleFileAst>(p->ast)}, *p->diags, &ir));
  std::vector<std::pair<uint32_t, uint32_t>> at;
  for (const Diagnostic& d : p->diags->all()) at.push_back({d.loc.line, d.loc.column});
  EXPECT_THAT(at, ::testing::IsSupersetOf({std::pair<uint32_t, uint32_t>{1, 12},
                                           std::pair<uint32_t, uint32_t>{3, 11},
                                           std::pair<uint32_t, uint32_t>{4, 8}}));
}

// ---- lexical helpers ------------------------------------------------------------------------

TEST(DslLexical, QuoteStringRoundTripsEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  std::mt19937 rng(7);
  std::vector<std::string> samples = {"", "plain", all, "é😀\u202E\u200B\U000E0041", "\\\"\n\t\r"};
  for (int i = 0; i < 500; ++i) {
    std::string s;
    size_t n = rng() % 12;
    for (size_t k = 0; k < n; ++k) s.push_back(static_cast<char>(rng() % 256));
    samples.push_back(s);
  }
  for (const std::string& s : samples) {
    std::string q = dsl::QuoteString(s);
    ASSERT_GE(q.size(), 2u);
    std::vector<dsl::EscapeProblem> problems;
    EXPECT_EQ(dsl::DecodeString(std::string_view(q).substr(1, q.size() - 2), &problems), s);
    EXPECT_TRUE(problems.empty());
    // Printed strings are plain ASCII or valid UTF-8 without invisible characters.
    for (unsigned char c : q) EXPECT_FALSE(c < 0x20 || c == 0x7F);
  }
  EXPECT_EQ(dsl::QuoteString("a\u202Eb"), "\"a\\u{202E}b\"");
  EXPECT_EQ(dsl::QuoteString(std::string("\xff\x01", 2)), "\"\\xFF\\x01\"");
}

TEST(DslLexical, RegexLiteralBodies) {
  std::string body;
  ASSERT_TRUE(dsl::EncodeRegexBody("a/b\\d", &body));
  EXPECT_EQ(body, "a\\/b\\d");
  EXPECT_EQ(dsl::DecodeRegexBody(body), "a/b\\d");
  ASSERT_TRUE(dsl::EncodeRegexBody("\\\\/", &body));
  EXPECT_EQ(dsl::DecodeRegexBody(body), "\\\\/");
  for (const char* bad : {"", "*x", "a\\/b", "a\\", "a\nb", "\x01", "\xff"}) {
    EXPECT_FALSE(dsl::EncodeRegexBody(bad, &body)) << bad;
  }
}

TEST(DslLexical, KeywordsMatchTheGrammar) {
  // ParseDslFile checks dsl::Keywords() against the generated vocabulary; a mismatch fails every
  // parse, so one successful parse proves them equal.
  auto p = ParseText("rule a.b : c { }\n");
  EXPECT_FALSE(p->diags->has_errors()) << p->errors();
  EXPECT_EQ(dsl::Keywords().size(), 51u);
}

// Every keyword, in every position a value can take, prints so that it reads back the same.
TEST(DslPrinter, KeywordsInEveryPositionRoundTrip) {
  for (const std::string& k : dsl::Keywords()) {
    RuleFileAst f;
    RuleAst r;
    Loc loc{1, 1, 1, 1};
    r.loc = loc;
    r.id = {k, loc};
    r.family = {k, loc};
    r.tags = {{k, loc}};
    r.decode = {k, loc};
    r.mention_marker = {k, loc};
    r.verdict = {k, loc};
    r.when = {k, loc};
    r.validators.present = true;
    r.validators.placeholder = {k, loc};
    PatternAst pat;
    pat.regex = {k, loc};
    pat.flags = {{"caseless", loc}, {k, loc}};
    r.patterns.push_back(pat);
    f.rules.push_back(r);
    ShellAst s;
    s.loc = loc;
    WrapperAst w;
    w.name = {k, loc};
    w.positional = {k, loc};
    w.value_options = {{k, loc}};
    s.wrappers.push_back(w);
    s.aliases.push_back({{k, loc}, {k, loc}, {k, loc}});
    f.shell.push_back(s);
    std::string out;
    PrintError e;
    ASSERT_TRUE(PrintDsl(ParsedFile(f), {}, &out, &e)) << e.message;
    auto back = ParseText(out);
    ASSERT_FALSE(back->diags->has_errors()) << k << "\n" << out << back->errors();
    std::string diff;
    EXPECT_TRUE(AstEqual(ParsedFile(f), back->ast, &diff)) << k << ": " << diff << "\n" << out;
  }
}

}  // namespace
}  // namespace doberman::compiler
