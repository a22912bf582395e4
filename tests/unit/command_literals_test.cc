// The command lines a program's source passes to the calls that run them
// (runtime/src/command_literals.h), read from the source text alone.
#include "command_literals.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace doberman::internal {
namespace {

std::string Lines(std::string_view code, bool backticks = true) {
  std::string out;
  AppendCommandLiterals(code, backticks, &out);
  return out;
}

TEST(CommandLiteralsTest, CommandLinesAndArgumentLists) {
  EXPECT_EQ(Lines("os.system('rm -rf /')"), "rm -rf /\n");
  EXPECT_EQ(Lines("subprocess.run(['rm', '-rf', path])"), "'rm' '-rf' \"$ARG\"\n");
  EXPECT_EQ(Lines("execFileSync('rm', ['-rf', '/'])"), "'rm' '-rf' '/'\n");
  EXPECT_EQ(Lines("print('rm -rf /')"), "");
}

// Ruby's and Perl's system(PROGRAM, ARGS...): a program's name, then its arguments as words. A
// command line given with other arguments (popen's mode, shell=True) is that command line alone.
TEST(CommandLiteralsTest, ProgramNameThenSeparateArguments) {
  EXPECT_EQ(Lines("system(\"rm\", \"-rf\", Dir.home)"), "'rm' '-rf' \"$ARG\"\n");
  EXPECT_EQ(Lines("system('/bin/rm', '-rf', '/')"), "'/bin/rm' '-rf' '/'\n");
  EXPECT_EQ(Lines("IO.popen(\"rm -rf /\", \"r\")"), "rm -rf /\n");
  EXPECT_EQ(Lines("subprocess.run('rm -rf /;ls', shell=True)"), "rm -rf /;ls\n");
  // Not a program's name (shell syntax in it): the literal stands as a command line.
  EXPECT_EQ(Lines("subprocess.run('a;b', shell=True)"), "a;b\n");
}

}  // namespace
}  // namespace doberman::internal
