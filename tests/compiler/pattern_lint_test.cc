// The pattern lint's two byte-level findings (compiler/src/pattern_lint.h), white-box: where the
// walk sees a class, an escape or quoted text, and the offsets it reports.
#include "pattern_lint.h"

#include <gtest/gtest.h>

#include <string_view>

namespace doberman::compiler {
namespace {

constexpr size_t kNone = std::string_view::npos;

TEST(PatternLint, MultiByteClassMembersAreFoundOnlyInsideClasses) {
  EXPECT_EQ(FindMultiByteClassMember("sin restricci[oó]n"), 15u);  // the first byte of ó
  EXPECT_EQ(FindMultiByteClassMember("[^。.]"), 2u);
  EXPECT_EQ(FindMultiByteClassMember("sin restricción"), kNone);  // outside a class
  EXPECT_EQ(FindMultiByteClassMember("(o|ó)"), kNone);
  EXPECT_EQ(FindMultiByteClassMember("l\\[ó\\]"), kNone);      // escaped brackets: no class
  EXPECT_EQ(FindMultiByteClassMember("\\Q[ó]\\E"), kNone);     // quoted text
  EXPECT_EQ(FindMultiByteClassMember("[]ó]"), 2u);             // ']' first is a member
  EXPECT_EQ(FindMultiByteClassMember("[[:alpha:]]ó"), kNone);  // the class ended before ó
  EXPECT_EQ(FindMultiByteClassMember("[[:alpha:]ó]"), 10u);
  EXPECT_EQ(FindMultiByteClassMember("\\Q[ó"), kNone);  // unterminated \Q: no finding
}

TEST(PatternLint, QuantifiersAfterAMultiByteCharacterAreFound) {
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("你的?安全"), 6u);  // the '?' after 的
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("é+"), 2u);
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("é*x"), 2u);
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("é{2}"), 2u);
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("é{x"), kNone);    // '{' not a repeat count
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("(的)?"), kNone);  // grouped
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("ab?c"), kNone);
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("[é]?"), kNone);  // a class (W4006's business)
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("\\Qé?\\E"), kNone);
  EXPECT_EQ(FindQuantifiedMultiByteCharacter("ééé"), kNone);
}

}  // namespace
}  // namespace doberman::compiler
