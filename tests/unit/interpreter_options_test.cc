// The option tables that tell where a shell's or interpreter's program is named
// (runtime/src/interpreter_options.h), read word by word.
#include "interpreter_options.h"

#include <gtest/gtest.h>

#include <string_view>

namespace doberman::internal {
namespace {

OptionEffect Read(std::string_view argv0, std::string_view option, bool shell = false) {
  std::string_view glued;
  return ReadInterpreterOption(argv0, shell, option, &glued);
}

TEST(InterpreterOptionsTest, InlineCodeEndsTheSearchForAProgramFile) {
  EXPECT_EQ(Read("python3", "-c"), OptionEffect::kInlineCode);
  EXPECT_EQ(Read("python3.12", "-Bc"), OptionEffect::kInlineCode);
  EXPECT_EQ(Read("python3", "-m"), OptionEffect::kInlineCode);
  EXPECT_EQ(Read("perl", "-lne"), OptionEffect::kInlineCode);
  EXPECT_EQ(Read("node", "-pe"), OptionEffect::kInlineCode);
  EXPECT_EQ(Read("node", "--eval"), OptionEffect::kInlineCode);
  EXPECT_EQ(Read("php", "-r"), OptionEffect::kInlineCode);
  EXPECT_EQ(Read("bash", "-c", true), OptionEffect::kInlineCode);
  EXPECT_EQ(Read("bash", "-ec", true), OptionEffect::kInlineCode);
}

TEST(InterpreterOptionsTest, OptionsTakingAValueTakeTheNextWordOnlyWhenAlone) {
  EXPECT_EQ(Read("python3", "-W"), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("python3", "-Wignore"), OptionEffect::kFlag);
  // A value glued on is not read as letters: `-Wdefault` holds no -c.
  EXPECT_EQ(Read("python3", "-Wdefault"), OptionEffect::kFlag);
  EXPECT_EQ(Read("python3", "-X"), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("node", "-r"), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("node", "--require"), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("node", "--require=dotenv/config"), OptionEffect::kFlag);
  EXPECT_EQ(Read("ruby", "-r"), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("ruby", "-rjson"), OptionEffect::kFlag);
  EXPECT_EQ(Read("perl", "-I"), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("perl", "-MFile::Temp"), OptionEffect::kFlag);  // holds an `e`, not -e
  EXPECT_EQ(Read("awk", "-v"), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("awk", "-F:"), OptionEffect::kFlag);
  EXPECT_EQ(Read("bash", "-o", true), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("bash", "+O", true), OptionEffect::kTakesValue);
  EXPECT_EQ(Read("bash", "--rcfile", true), OptionEffect::kTakesValue);
  // Letters another family gives a meaning to are flags here: python's -u, perl's -p, node's -m.
  EXPECT_EQ(Read("python3", "-u"), OptionEffect::kFlag);
  EXPECT_EQ(Read("perl", "-p"), OptionEffect::kFlag);
  EXPECT_EQ(Read("node", "-m"), OptionEffect::kFlag);
  EXPECT_EQ(Read("bash", "-x", true), OptionEffect::kFlag);
}

TEST(InterpreterOptionsTest, ProgramFileOptionsNameTheFile) {
  std::string_view glued;
  EXPECT_EQ(Read("awk", "-f"), OptionEffect::kProgramNext);
  EXPECT_EQ(ReadInterpreterOption("awk", false, "-fprog.awk", &glued), OptionEffect::kProgramGlued);
  EXPECT_EQ(glued, "prog.awk");
  EXPECT_EQ(ReadInterpreterOption("gawk", false, "--file=p.awk", &glued),
            OptionEffect::kProgramGlued);
  EXPECT_EQ(glued, "p.awk");
  EXPECT_EQ(Read("php", "-f"), OptionEffect::kProgramNext);
  EXPECT_EQ(Read("python3", "-f"), OptionEffect::kFlag);
}

TEST(InterpreterOptionsTest, OperandsThatAreNotTheProgramFile) {
  EXPECT_TRUE(FirstOperandIsProgramText("awk"));
  EXPECT_TRUE(FirstOperandIsProgramText("gawk"));
  EXPECT_FALSE(FirstOperandIsProgramText("python3"));
  EXPECT_TRUE(IsRunSubcommand("deno", "run"));
  EXPECT_TRUE(IsRunSubcommand("bun", "run"));
  EXPECT_FALSE(IsRunSubcommand("node", "run"));
}

}  // namespace
}  // namespace doberman::internal
