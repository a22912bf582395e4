// The option tables that tell where a shell's or interpreter's program is named
// (runtime/src/interpreter_options.h), read word by word.
#include "interpreter_options.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>

namespace doberman::internal {
namespace {

struct OptionCase {
  std::string_view argv0, option;
  bool shell;
  OptionEffect effect;
};

void ExpectEffects(std::initializer_list<OptionCase> cases) {
  for (const OptionCase& c : cases) {
    std::string_view glued;
    EXPECT_EQ(ReadInterpreterOption(c.argv0, c.shell, c.option, &glued), c.effect)
        << c.argv0 << " " << c.option;
  }
}

TEST(InterpreterOptionsTest, InlineCodeEndsTheSearchForAProgramFile) {
  ExpectEffects({
      {"python3", "-c", false, OptionEffect::kInlineCode},
      {"python3.12", "-Bc", false, OptionEffect::kInlineCode},
      {"python3", "-m", false, OptionEffect::kInlineCode},
      {"perl", "-lne", false, OptionEffect::kInlineCode},
      {"node", "-pe", false, OptionEffect::kInlineCode},
      {"node", "--eval", false, OptionEffect::kInlineCode},
      {"php", "-r", false, OptionEffect::kInlineCode},
      {"bash", "-c", true, OptionEffect::kInlineCode},
      {"bash", "-ec", true, OptionEffect::kInlineCode},
  });
}

TEST(InterpreterOptionsTest, OptionsTakingAValueTakeTheNextWordOnlyWhenAlone) {
  ExpectEffects({
      {"python3", "-W", false, OptionEffect::kTakesValue},
      {"python3", "-Wignore", false, OptionEffect::kFlag},
      // A value glued on is not read as letters: `-Wdefault` holds no -c.
      {"python3", "-Wdefault", false, OptionEffect::kFlag},
      {"python3", "-X", false, OptionEffect::kTakesValue},
      {"node", "-r", false, OptionEffect::kTakesValue},
      {"node", "--require", false, OptionEffect::kTakesValue},
      {"node", "--require=dotenv/config", false, OptionEffect::kFlag},
      {"ruby", "-r", false, OptionEffect::kTakesValue},
      {"ruby", "-rjson", false, OptionEffect::kFlag},
      {"perl", "-I", false, OptionEffect::kTakesValue},
      {"perl", "-MFile::Temp", false, OptionEffect::kFlag},  // holds an `e`, not -e
      {"awk", "-v", false, OptionEffect::kTakesValue},
      {"awk", "-F:", false, OptionEffect::kFlag},
      {"bash", "-o", true, OptionEffect::kTakesValue},
      {"bash", "+O", true, OptionEffect::kTakesValue},
      {"bash", "--rcfile", true, OptionEffect::kTakesValue},
      // Letters another family gives a meaning to are flags here: python's -u, perl's -p, node's
      // -m, bash's -x.
      {"python3", "-u", false, OptionEffect::kFlag},
      {"perl", "-p", false, OptionEffect::kFlag},
      {"node", "-m", false, OptionEffect::kFlag},
      {"bash", "-x", true, OptionEffect::kFlag},
  });
}

TEST(InterpreterOptionsTest, ProgramFileOptionsNameTheFile) {
  std::string_view glued;
  ExpectEffects({{"awk", "-f", false, OptionEffect::kProgramNext},
                 {"php", "-f", false, OptionEffect::kProgramNext},
                 {"python3", "-f", false, OptionEffect::kFlag}});
  EXPECT_EQ(ReadInterpreterOption("awk", false, "-fprog.awk", &glued), OptionEffect::kProgramGlued);
  EXPECT_EQ(glued, "prog.awk");
  EXPECT_EQ(ReadInterpreterOption("gawk", false, "--file=p.awk", &glued),
            OptionEffect::kProgramGlued);
  EXPECT_EQ(glued, "p.awk");
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
