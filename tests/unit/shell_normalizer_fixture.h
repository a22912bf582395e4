// The shell normalizer tests' shared fixture: tables shaped like the ones the shipped pack carries,
// and Norm(), which returns a command's segments and checks its status.
#ifndef DOBERMAN_TESTS_UNIT_SHELL_NORMALIZER_FIXTURE_H_
#define DOBERMAN_TESTS_UNIT_SHELL_NORMALIZER_FIXTURE_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "shell_normalizer.h"

namespace doberman::internal {

using Segments = std::vector<std::string>;

// Tables shaped like the ones the shipped pack carries.
inline ShellTables RealisticTables() {
  ShellTables t;
  t.wrappers = {
      {"sudo",
       {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "--user", "--group", "--host"},
       0},
      {"doas", {"-u", "-C"}, 0},
      {"env", {"-u", "--unset", "-C", "--chdir"}, 0},
      {"nice", {"-n", "--adjustment"}, 0},
      {"ionice", {"-c", "-n", "-p", "--class", "--classdata"}, 0},
      {"nohup", {}, 0},
      {"timeout", {"-s", "--signal", "-k", "--kill-after"}, 1},
      {"xargs", {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs"}, 0},
      {"stdbuf", {"-i", "-o", "-e"}, 0},
      {"chroot", {"--userspec", "--groups"}, 1},
      {"command", {}, 0},
      {"builtin", {}, 0},
      {"exec", {"-a"}, 0},
      {"time", {"-f", "-o", "--format", "--output"}, 0},
      {"setsid", {}, 0},
  };
  t.shells = {"sh", "bash", "zsh", "dash", "ksh", "su"};
  t.split_flag_commands = {"rm", "cp", "mv", "chmod", "chown", "chgrp", "ln", "shred"};
  t.stdin_programs = {"python3", "perl", "node", "psql"};
  t.runners = {"uv run", "poetry run", "npx", "aws-vault exec"};
  t.aliases = {
      {"rm", "--recursive", "-r"},    {"rm", "-R", "-r"},
      {"rm", "--force", "-f"},        {"chmod", "--recursive", "-R"},
      {"chown", "--recursive", "-R"},
  };
  return t;
}

// Whether `seg` is one of the segments.
inline bool Has(const Segments& s, std::string_view seg) {
  return std::find(s.begin(), s.end(), seg) != s.end();
}

class ShellNormalizerTest : public ::testing::Test {
 protected:
  ShellNormalizerTest() : norm_(RealisticTables(), ShellLimits{}) {}

  Segments Norm(std::string_view command, ShellStatus expected = ShellStatus::kOk) {
    SegmentList out;
    const ShellStatus status = norm_.Normalize(command, &out);
    EXPECT_EQ(status, expected) << "command: " << command;
    return Segments(out.segments.begin(),
                    out.segments.begin() + static_cast<std::ptrdiff_t>(out.count));
  }

  ShellNormalizer norm_;
};

}  // namespace doberman::internal

#endif  // DOBERMAN_TESTS_UNIT_SHELL_NORMALIZER_FIXTURE_H_
