// White-box tests of the Latin skeleton view (runtime/src/confusables.h).
#include "confusables.h"

#include <gtest/gtest.h>

#include <string>

namespace doberman::internal {
namespace {

std::string Skeleton(const std::string& folded) {
  std::string out = "stale";
  return LatinSkeleton(folded, &out) ? out : std::string("(none)");
}

TEST(ConfusablesTest, LookAlikeLettersBecomeTheirLatinSkeleton) {
  // Cyrillic і, о, е, а and Greek ν among ASCII letters.
  EXPECT_EQ(Skeleton("\xD1\x96gn\xD0\xBEr\xD0\xB5 \xD0\xB0ll"), "ignore all");
  EXPECT_EQ(Skeleton("\xCE\xBD"), "v");
}

TEST(ConfusablesTest, TextWithoutLookAlikesIsNotRewritten) {
  EXPECT_EQ(Skeleton("plain ascii text"), "(none)");
  EXPECT_EQ(Skeleton(""), "(none)");
  // Non-ASCII letters with no ASCII skeleton (CJK) are kept, and nothing is replaced.
  EXPECT_EQ(Skeleton("\xE6\x97\xA5\xE6\x9C\xAC"), "(none)");
}

TEST(ConfusablesTest, InvalidUtf8IsCopiedThrough) {
  EXPECT_EQ(Skeleton("a\xFF\xD0\xBE"), "a\xFFo");
  EXPECT_EQ(Skeleton("\xD0"), "(none)");
}

}  // namespace
}  // namespace doberman::internal
