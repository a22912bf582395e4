// What echo and printf print (shell_printf.h): printf's directives, the escapes of its format, of
// %b and of echo -e, the cases where the output is not worked out, and the normalizer reading
// what they pipe to a shell.
#include "shell_printf.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "shell_normalizer_fixture.h"

namespace doberman::internal::shell_printf {
namespace {

// What printf FORMAT ARGS prints, or "<unknown>" when it is not worked out.
std::string Printf(std::string_view format, std::vector<std::string_view> args = {},
                   size_t max_bytes = 4096) {
  std::string out;
  return FormatPrintf(format, args, max_bytes, &out) ? out : "<unknown>";
}

std::string Echo(std::string_view text, bool* stop = nullptr) {
  std::string out;
  return AppendEscaped(text, Escapes::kEcho, &out, stop) ? out : "<unknown>";
}

TEST(ShellPrintfTest, DirectivesTakeTheArgumentsInTurnAndTheFormatIsReused) {
  EXPECT_EQ(Printf("rm -rf %s\\n", {"/"}), "rm -rf /\n");
  EXPECT_EQ(Printf("%s\\n", {"a", "b", "c"}), "a\nb\nc\n");
  EXPECT_EQ(Printf("%s=%d;", {"x", "1", "y"}), "x=1;y=;");  // a missing argument prints empty
  EXPECT_EQ(Printf("%s%s", {"r", "m"}), "rm");
  EXPECT_EQ(Printf("%c%c", {"rust", "mango"}), "rm");
  EXPECT_EQ(Printf("100%%"), "100%");
  EXPECT_EQ(Printf("plain", {"ignored", "too"}), "plain");  // no directive: printed once
  EXPECT_EQ(Printf("%b", {"ls\\nrm -rf ~"}), "ls\nrm -rf ~");
  EXPECT_EQ(Printf("%s", {"ls\\nrm"}), "ls\\nrm");  // %s prints its argument as it is
  EXPECT_EQ(Printf("%b|%s", {"a\\cb", "x"}), "a");  // \c in %b ends all output
}

TEST(ShellPrintfTest, FormatEscapesAreTheCharactersTheyName) {
  EXPECT_EQ(Printf("\\x72\\x6d -rf ~"), "rm -rf ~");
  EXPECT_EQ(Printf("\\162\\155"), "rm");            // octal, up to three digits
  EXPECT_EQ(Printf("\\0101"), std::string("\b1"));  // \010 then 1
  EXPECT_EQ(Printf("a\\tb\\\\c\\\"d\\'e"), "a\tb\\c\"d'e");
  EXPECT_EQ(Printf("\\u00e9"), "\xc3\xa9");
  EXPECT_EQ(Printf("end\\"), "end\\");  // a lone trailing backslash prints as itself
}

TEST(ShellPrintfTest, WhatIsNotWorkedOutSaysSo) {
  EXPECT_EQ(Printf("%x", {"47"}), "<unknown>");
  EXPECT_EQ(Printf("%-10s", {"a"}), "<unknown>");
  EXPECT_EQ(Printf("%"), "<unknown>");
  EXPECT_EQ(Printf("\\q"), "<unknown>");
  EXPECT_EQ(Printf("\\xZZ"), "<unknown>");
  EXPECT_EQ(Printf("\\U00110000"), "<unknown>");  // past U+10FFFF
  // Bounded: an output past max_bytes is not worked out (the format reused over many arguments).
  std::vector<std::string_view> many(100, "abcdefgh");
  EXPECT_EQ(Printf("%s\\n", many, 4096).size(), 900u);
  EXPECT_EQ(Printf("%s\\n", many, 899), "<unknown>");
}

TEST(ShellPrintfTest, EchoEscapesReadOctalAfterAZeroAndStopAtC) {
  EXPECT_EQ(Echo("ls\\nrm -rf ~"), "ls\nrm -rf ~");
  EXPECT_EQ(Echo("\\0162\\0155"), "rm");
  EXPECT_EQ(Echo("\\162"), "<unknown>");  // echo's octal needs its leading 0
  bool stop = false;
  EXPECT_EQ(Echo("a\\cb", &stop), "a");
  EXPECT_TRUE(stop);
}

}  // namespace
}  // namespace doberman::internal::shell_printf

namespace doberman::internal {
namespace {

TEST_F(ShellNormalizerTest, WhatEchoOrPrintfPipesToAShellIsWhatTheyPrint) {
  // What the command prints, not its words: printf's format over its arguments, echo -e's escapes
  // (shell_printf.h). Read as words, `printf 'rm -rf %s\n' /` was `/` and `rm -rf /\n` was `/n`.
  const auto piped = [&](std::string_view command) { return Norm(command).at(1); };
  EXPECT_EQ(piped("printf 'rm -rf %s\\n' / | sh"), "rm -r -f /");
  EXPECT_EQ(piped("printf 'rm -rf /\\n' | sh"), "rm -r -f /");
  EXPECT_EQ(piped("printf '\\x72\\x6d -rf ~' | sh"), "rm -r -f ~");
  EXPECT_EQ(Norm("echo -e 'ls\\nrm -rf ~' | sh"),
            (Segments{"echo -e 'ls\\nrm -rf ~'", "ls", "rm -r -f ~", "sh"}));
  // Without -e bash's echo prints the backslash, which the shell then drops: one word, `lsnrm`.
  EXPECT_EQ(piped("echo 'ls\\nrm -rf ~' | sh"), "lsnrm -rf ~");
  // A directive not worked out (%x, a width): the words after the format, as before.
  EXPECT_EQ(piped("printf '%-4s' rm -rf ~ | sh"), "rm -r -f ~");
}

}  // namespace
}  // namespace doberman::internal
