"""Both tools' --help, bash and zsh completions and man pages, generated from the definitions their
parsers use: each must be well-formed, complete, and complete what the parser accepts.

Arguments: DOBERMAN_GUARD DOBERMANC SHARE_DIR (the build's generated share/)."""
import os
import re
import shutil
import subprocess
import sys
import unittest

GUARD, DOBERMANC, SHARE = sys.argv[1:4]
del sys.argv[1:4]


def out(*args):
    return subprocess.run(list(args), capture_output=True, text=True, check=True).stdout


def bash_complete(tool, words):
    """COMPREPLY for the command line `words` (the last word is the one being completed)."""
    script = os.path.join(SHARE, "bash-completion", "completions", os.path.basename(tool))
    fn = "_" + os.path.basename(tool).replace("-", "_")
    arr = " ".join("'%s'" % w for w in [os.path.basename(tool)] + words)
    code = 'source "%s"; COMP_WORDS=(%s); COMP_CWORD=%d; %s; printf "%%s\\n" "${COMPREPLY[@]}"' % (
        script, arr, len(words), fn)
    return set(filter(None, out("bash", "-c", code).splitlines()))


class GeneratedFilesTest(unittest.TestCase):
    def test_files_match_the_tools(self):
        for tool in (GUARD, DOBERMANC):
            name = os.path.basename(tool)
            for args, path in ((["completion", "bash"], "bash-completion/completions/" + name),
                               (["completion", "zsh"], "zsh/vendor-completions/_" + name),
                               (["man"], "man/man1/%s.1" % name)):
                with open(os.path.join(SHARE, path)) as f:
                    self.assertEqual(f.read(), out(tool, *args), path)

    def test_man_pages_render_without_warnings(self):
        for tool in (GUARD, DOBERMANC):
            page = os.path.join(SHARE, "man", "man1", os.path.basename(tool) + ".1")
            r = subprocess.run(["groff", "-man", "-ww", "-z", page], capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stderr), (0, ""), page)

    def test_shell_syntax(self):
        for tool in (GUARD, DOBERMANC):
            name = os.path.basename(tool)
            subprocess.run(["bash", "-n", os.path.join(SHARE, "bash-completion", "completions",
                                                       name)], check=True)
            if shutil.which("zsh"):
                subprocess.run(["zsh", "-n", os.path.join(SHARE, "zsh", "vendor-completions",
                                                          "_" + name)], check=True)


class GuardTest(unittest.TestCase):
    def synopses(self):
        """(command, operand, [(option, value)]) from the --help synopsis lines."""
        text = out(GUARD, "--help")
        lines = re.sub(r"\n    ", " ", text.split("\n\nCommands:")[0]).splitlines()[2:]
        result = []
        for line in lines:
            words = line.split()
            command = words[1]
            operand = words[2] if len(words) > 2 and words[2] in ("HOST", "SHELL") else None
            options = re.findall(r"\[(--[a-z-]+)(?: ([A-Z]+))?\]", line)
            result.append((command, operand, options))
        return result

    def test_every_documented_option_is_accepted_and_others_refused(self):
        values = {"MODE": "block", "V": "AUTH", "N": "7", "AGE": "10m"}
        synopses = self.synopses()
        self.assertGreaterEqual(len(synopses), 13)
        all_options = {o for _, _, opts in synopses for o, _ in opts}
        for command, operand, options in synopses:
            base = [command] + ({"HOST": ["codex"], "SHELL": ["bash"]}[operand] if operand else [])
            for option, value in options:
                args = base + [option] + ([values.get(value, "x")] if value else []) + ["--help"]
                r = subprocess.run([GUARD] + args, capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, "%s refused: %s" % (args, r.stderr[:200]))
            for foreign in sorted(all_options - {o for o, _ in options}):
                r = subprocess.run([GUARD] + base + [foreign, "x", "--help"], capture_output=True,
                                   text=True)
                self.assertEqual(r.returncode, 2, "%s %s accepted" % (command, foreign))
            # Documented in the man page and offered by bash completion.
            man = out(GUARD, "man")
            self.assertIn(".B " + command.replace("-", "\\-"), man)
            offered = bash_complete(GUARD, base + ["--"])
            for option, _ in options:
                self.assertIn(option, offered, command)
                self.assertIn(option.replace("-", "\\-"), man)

    def test_bash_completes(self):
        self.assertTrue({"check", "hook", "install", "doctor", "mcp-proxy"} <=
                        bash_complete(GUARD, [""]))
        self.assertEqual(bash_complete(GUARD, ["hook", ""]), {"claude-code", "codex", "cursor"})
        self.assertEqual(bash_complete(GUARD, ["doctor", "c"]), {"claude-code", "codex", "cursor"})
        self.assertEqual(bash_complete(GUARD, ["log", "--verdict", ""]), {"PASS", "AUTH", "BLOCK"})
        self.assertEqual(bash_complete(GUARD, ["hook", "codex", "--turn-auth", "b"]), {"block"})
        self.assertIn("--no-trust", bash_complete(GUARD, ["install", "codex", "--n"]))


class CompilerTest(unittest.TestCase):
    def test_bash_completes(self):
        self.assertEqual(bash_complete(DOBERMANC, ["bu"]), {"build"})
        self.assertTrue({"--key", "--out", "--no-compress", "--diagnostics"} <=
                        bash_complete(DOBERMANC, ["build", "--"]))
        self.assertEqual(bash_complete(DOBERMANC, ["convert", "x.yaml", "--to", ""]),
                         {"dsl", "yaml"})
        self.assertEqual(bash_complete(DOBERMANC, ["--diagnostics", ""]), {"text", "json"})
        self.assertEqual(bash_complete(DOBERMANC, ["completion", ""]), {"bash", "zsh"})

    def test_every_subcommand_and_option_in_the_man_page(self):
        man = out(DOBERMANC, "man")
        help_all = out(DOBERMANC, "--help-all")
        for flag in set(re.findall(r"(--[a-z][a-z-]+)", help_all)) - {"--help", "--help-all"}:
            self.assertIn(flag.replace("-", "\\-"), man, flag)
        for sub in re.findall(r"^  (\w+)  ", out(DOBERMANC, "--help"), re.M):
            self.assertIn(".B " + sub, man, sub)


if __name__ == "__main__":
    unittest.main()
