// Fragment expansion (compiler/src/fragments.h), white-box: what counts as a reference, what a
// pattern becomes, where carets land, and the diagnostics for names.
#include "fragments.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace doberman::compiler {
namespace {

PatternAst Pattern(std::string regex) {
  PatternAst p;
  p.regex.value = std::move(regex);
  p.regex.loc = Loc{1, 3, 10, 1};
  p.content_offset = 1;
  return p;
}

FragmentAst Define(std::string name, std::string regex, uint32_t line = 1) {
  FragmentAst f;
  f.name.value = std::move(name);
  f.name.loc = Loc{1, line, 8, 1};
  f.pattern = Pattern(std::move(regex));
  return f;
}

std::vector<std::string> Codes(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const Diagnostic& x : d.all()) out.push_back(x.code);
  return out;
}

class Fragments : public ::testing::Test {
 protected:
  SourceMap sources_;
  Diagnostics diags_{sources_};
};

TEST_F(Fragments, AReferenceBecomesANonCapturingGroupOfTheFragment) {
  FragmentTable t({Define("verbs", "(ignore|skip)")}, diags_);
  std::vector<FragmentUse> uses;
  EXPECT_EQ(t.Expand(Pattern(R"(\b(?&verbs) all)"), &uses), R"(\b(?:(ignore|skip)) all)");
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].source_at, 2u);
  EXPECT_EQ(uses[0].source_length, 9u);  // (?&verbs)
  EXPECT_EQ(uses[0].expanded_at, 2u);
  EXPECT_EQ(uses[0].expanded_length, 17u);  // (?:(ignore|skip))
  EXPECT_TRUE(diags_.all().empty());
}

TEST_F(Fragments, OnlySyntaxIsAReference) {
  FragmentTable t({Define("x", "a")}, diags_);
  std::vector<FragmentUse> uses;
  // escaped parenthesis, a class, quoted text: literal bytes, left as written
  EXPECT_EQ(t.Expand(Pattern(R"(\(?&x))"), &uses), R"(\(?&x))");
  EXPECT_EQ(t.Expand(Pattern("[(?&x)]"), &uses), "[(?&x)]");
  EXPECT_EQ(t.Expand(Pattern(R"(\Q(?&x)\E)"), &uses), R"(\Q(?&x)\E)");
  EXPECT_TRUE(uses.empty());
  // a ']' first in a class is a member: the class ends later, the reference after it is syntax
  EXPECT_EQ(t.Expand(Pattern("[]](?&x)"), &uses), "[]](?:a)");
  EXPECT_EQ(t.Expand(Pattern("(?&x)(?&x)"), &uses), "(?:a)(?:a)");
  EXPECT_TRUE(diags_.all().empty());
}

TEST_F(Fragments, AFragmentUsesOnlyTheOnesBeforeIt) {
  FragmentTable t(
      {Define("a", "1"), Define("b", "(?&a)2", 2), Define("c", "(?&d)", 3), Define("d", "4", 4)},
      diags_);
  EXPECT_EQ(t.Expand(Pattern("(?&b)"), nullptr), "(?:(?:1)2)");
  EXPECT_EQ(Codes(diags_), std::vector<std::string>{"E3020"});  // c uses d, defined after it
}

TEST_F(Fragments, NamesAreCheckedAndUnusedOnesReported) {
  FragmentTable t(
      {Define("ok", "1"), Define("ok", "2", 2), Define("Bad", "3", 3), Define("spare", "4", 4)},
      diags_);
  EXPECT_EQ(t.Expand(Pattern("(?&ok)(?&Bad)(?&nope)"), nullptr), "(?:1)(?&Bad)(?&nope)");
  t.ReportUnused();
  EXPECT_EQ(Codes(diags_), (std::vector<std::string>{"E3021", "E2103", "E3020", "E3020", "W3022"}));
  // the unknown reference is pointed at: pattern column 10, content offset 1, byte 6
  EXPECT_EQ(diags_.all()[2].loc.column, 17u);
  EXPECT_EQ(diags_.all()[2].loc.length, 7u);  // (?&Bad)
}

TEST_F(Fragments, FlagsOnAFragmentAreRefused) {
  FragmentAst f = Define("x", "a");
  f.pattern.flags.push_back(Text{"caseless", Loc{1, 1, 12, 1}});
  FragmentTable t({f}, diags_);
  EXPECT_EQ(Codes(diags_), std::vector<std::string>{"E2103"});
}

TEST_F(Fragments, AFileUsesThePacksFragmentsAndItsOwn) {
  FragmentTable pack({Define("logins", "auth|creds")}, diags_);
  FragmentTable file({Define("tail", "(?&logins)$", 2)}, diags_, &pack);
  EXPECT_EQ(file.Expand(Pattern("/(?&tail)"), nullptr), "/(?:(?:auth|creds)$)");
  EXPECT_EQ(file.Expand(Pattern("(?&logins)"), nullptr), "(?:auth|creds)");
  file.ReportUnused();
  pack.ReportUnused();
  EXPECT_TRUE(diags_.all().empty());
}

TEST_F(Fragments, APackFragmentUsedByNoFileIsReportedOnce) {
  FragmentTable pack({Define("used", "u"), Define("spare", "s", 2)}, diags_);
  for (int i = 0; i < 2; ++i) {
    FragmentTable file({}, diags_, &pack);
    file.Expand(Pattern("(?&used)"), nullptr);
    file.ReportUnused();
  }
  pack.ReportUnused();
  ASSERT_EQ(Codes(diags_), std::vector<std::string>{"W3022"});
  EXPECT_EQ(diags_.all()[0].loc.line, 2u);  // spare
}

TEST_F(Fragments, AFileMayNotRedefineAPackFragment) {
  FragmentTable pack({Define("logins", "auth")}, diags_);
  FragmentTable file({Define("logins", "other", 5)}, diags_, &pack);
  // refused, not shadowed: the pack's meaning holds
  EXPECT_EQ(file.Expand(Pattern("(?&logins)"), nullptr), "(?:auth)");
  ASSERT_EQ(Codes(diags_), std::vector<std::string>{"E3021"});
  EXPECT_EQ(diags_.all()[0].loc.line, 5u);
}

TEST_F(Fragments, AnotherFilesFragmentsAreUnknown) {
  FragmentTable pack({}, diags_);
  {
    FragmentTable first({Define("mine", "m")}, diags_, &pack);
    first.Expand(Pattern("(?&mine)"), nullptr);
  }
  FragmentTable second({}, diags_, &pack);
  EXPECT_EQ(second.Expand(Pattern("(?&mine)"), nullptr), "(?&mine)");
  ASSERT_EQ(Codes(diags_), std::vector<std::string>{"E3020"});
  EXPECT_NE(diags_.all()[0].label.find("pack manifest"), std::string::npos);
}

TEST(FragmentSourceOffset, MapsExpandedBytesBackToWhatWasWritten) {
  // Written: "a" + a 6-byte reference + "bcd" + a 20-byte reference + "e...". Expanded: "a" + 10
  // bytes + "bcd" + 5 bytes + "e...".
  const std::vector<FragmentUse> uses = {{1, 10, 1, 6}, {14, 5, 10, 20}};
  EXPECT_EQ(SourceOffset(uses, 0), 0u);  // before: unchanged
  EXPECT_EQ(SourceOffset(uses, 1), 1u);  // inside the first expansion: its reference
  EXPECT_EQ(SourceOffset(uses, 10), 1u);
  EXPECT_EQ(SourceOffset(uses, 11), 7u);  // after it: shifted back by 4
  EXPECT_EQ(SourceOffset(uses, 13), 9u);
  EXPECT_EQ(SourceOffset(uses, 16), 10u);  // inside the second: its reference
  EXPECT_EQ(SourceOffset(uses, 19), 30u);  // after a shorter expansion: shifted forward
  EXPECT_EQ(SourceOffset({}, 42), 42u);
}

}  // namespace
}  // namespace doberman::compiler
