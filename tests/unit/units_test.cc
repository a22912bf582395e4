// Unit tests for units.h: telling a shell script being written by its name or its #! line.
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

}  // namespace
}  // namespace doberman::internal
