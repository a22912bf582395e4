// Unit tests for units.h: telling a shell script being written by its name or its #! line, and the
// command lines of Makefiles (Dockerfiles are not read).
#include "units.h"

#include <gtest/gtest.h>

namespace doberman::internal {
namespace {

TEST(IsShellScript, ByExtension) {
  EXPECT_TRUE(IsShellScript("scripts/deploy.sh", "echo hi\n"));
  EXPECT_TRUE(IsShellScript("/home/dev/.local/bin/SETUP.BASH", ""));
  EXPECT_TRUE(IsShellScript("tools/x.zsh", "x"));
  EXPECT_TRUE(IsShellScript("Start.command", "x"));
  EXPECT_FALSE(IsShellScript("src/app.py", "import os\n"));
  EXPECT_FALSE(IsShellScript("docs/bash.md", "x"));
  EXPECT_FALSE(IsShellScript("shell", "x"));
}

TEST(IsShellScript, ByInterpreterLine) {
  EXPECT_TRUE(IsShellScript(".git/hooks/pre-commit", "#!/bin/sh\nmake test\n"));
  EXPECT_TRUE(IsShellScript("run", "#! /usr/bin/bash -eu\n"));
  EXPECT_TRUE(IsShellScript("run", "#!/usr/bin/env bash\n"));
  EXPECT_TRUE(IsShellScript("run", "#!/usr/bin/env -S bash -e\n"));
  EXPECT_TRUE(IsShellScript("run", "#!/bin/dash"));
  EXPECT_FALSE(IsShellScript("run", "#!/usr/bin/env python3\nimport os\n"));
  EXPECT_FALSE(IsShellScript("run", "#!/usr/bin/perl -w\n"));
  EXPECT_FALSE(IsShellScript("run", "# !/bin/sh\n"));
  EXPECT_FALSE(IsShellScript("run", "echo '#!/bin/sh'\n"));
  EXPECT_FALSE(IsShellScript("run", "#!"));
  EXPECT_FALSE(IsShellScript("run", "#!/usr/bin/bashful\n"));
}

TEST(ScriptCommands, ShellScriptIsItsOwnText) {
  std::string buffer;
  const std::string_view text = "#!/bin/sh\nrm -rf build\n";
  EXPECT_EQ(ScriptCommands("hook", text, &buffer), text);
  EXPECT_TRUE(ScriptCommands("notes.txt", "rm -rf build\n", &buffer).empty());
}

TEST(ScriptCommands, MakefileRecipes) {
  std::string buffer;
  const std::string make =
      "CC = gcc\nclean:\n\t@rm -rf build\n\t-echo $$HOME \\\n\t  done\n# \tnot a recipe\nall: x\n";
  EXPECT_EQ(ScriptCommands("sub/Makefile", make, &buffer), "rm -rf build\necho $HOME \\\ndone\n");
  EXPECT_EQ(ScriptCommands("rules.mk", make, &buffer), "rm -rf build\necho $HOME \\\ndone\n");
  EXPECT_TRUE(ScriptCommands("Makefile.md", make, &buffer).empty());
}

TEST(ScriptCommands, SourceFilesGiveTheLiteralsTheyRun) {
  std::string buffer;
  EXPECT_EQ(ScriptCommands("src/clean.py", "import os\nos.system(\"rm -rf /home\")\n", &buffer),
            "rm -rf /home\n");
  EXPECT_EQ(
      ScriptCommands("a.PY", "import subprocess\nsubprocess.run('ls -la', shell=True)\n", &buffer),
      "ls -la\n");
  EXPECT_EQ(
      ScriptCommands("x.js", "const cp = require('child_process'); cp.execSync(\"id\");", &buffer),
      "id\n");
  // Backticks run commands in Ruby, Perl and PHP; in JavaScript they are template strings.
  EXPECT_EQ(ScriptCommands("x.rb", "out = `whoami`\nsystem('date')\n", &buffer), "whoami\ndate\n");
  EXPECT_TRUE(
      ScriptCommands("x.js", "require('child_process');\nconst s = `rm -rf ${d}`;\n", &buffer)
          .empty());
  // A file that names no way to run a command is not walked, whatever its calls are named.
  EXPECT_TRUE(ScriptCommands("app.py", "app.run('0.0.0.0')\ncall('x')\n", &buffer).empty());
  EXPECT_TRUE(ScriptCommands("notes.md", "os.system('rm -rf /')\n", &buffer).empty());
}

TEST(ScriptCommands, DockerfilesAreNotRead) {
  // RUN lines run inside the image being built, not on this machine.
  std::string buffer;
  EXPECT_TRUE(
      ScriptCommands("Dockerfile", "FROM x\nRUN rm -rf / --no-preserve-root\n", &buffer).empty());
}

}  // namespace
}  // namespace doberman::internal
