"""`doberman-guard install | uninstall | doctor` on real settings files, as an operator would run them.

install must merge the same fail-closed hooks the real-client tests run (tests/hosts/*.json.in)
into whatever a settings file already holds, keep a backup, change nothing the second time, refuse
a file it cannot parse or a pack that does not verify; uninstall must take out only ours. doctor must
pass a correctly wired host (run as an unprivileged user, as an agent would be) and name each
problem planted in a broken one.

Environment: DOBERMAN_GUARD, DOBERMAN_TEST_PACKS."""
import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

GUARD = os.environ["DOBERMAN_GUARD"]
PACKS = os.environ["DOBERMAN_TEST_PACKS"]
PACK = os.path.join(PACKS, "default", "default.dpack")
PUB = os.path.join(PACKS, "test.pub")
HOSTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hosts")
sys.path.insert(0, HOSTS)
import codex_test  # noqa: E402  (its trust-hash functions: what the real Codex test writes)

TEMPLATES = {"claude-code": "claude-settings.json.in", "codex": "codex-hooks.json.in",
             "cursor": "cursor-hooks.json.in"}


def run(args, env, cwd=None, user=None):
    cmd = [GUARD] + args
    if user is not None:
        cmd = ["setpriv", "--reuid=" + user, "--regid=nogroup", "--clear-groups", "--"] + cmd
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def handlers(host, settings):
    """{event: [(matcher, words of the command, the other fields)]} of every handler."""
    out = {}
    for event, entries in settings.get("hooks", {}).items():
        for entry in entries:
            group = entry.get("hooks", [entry]) if host != "cursor" else [entry]
            for h in group:
                fields = {k: v for k, v in h.items() if k != "command"}
                out.setdefault(event, []).append(
                    (entry.get("matcher") if host != "cursor" else None,
                     shlex.split(h["command"]), fields))
    return out


def template(host, guard, pack, pub):
    with open(os.path.join(HOSTS, TEMPLATES[host])) as f:
        text = f.read()
    text = text.replace("@GUARD@", guard).replace("@PACK@", pack).replace("@PUBKEY@", pub)
    return json.loads(text)


class InstallTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        self.env = dict(os.environ, HOME=self.home, CODEX_HOME=os.path.join(self.home, ".codex"))
        self.guard = os.path.realpath(GUARD)
        self.pack, self.pub = os.path.realpath(PACK), os.path.realpath(PUB)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def install(self, host, *extra, expect=0):
        r = run(["install", host, "--pack", PACK, "--pubkey", PUB] + list(extra), self.env,
                cwd=self.tmp)
        self.assertEqual(r.returncode, expect, r.stdout + r.stderr)
        return r

    def test_claude_code_merge_idempotent_backup_uninstall(self):
        path = os.path.join(self.home, ".claude", "settings.json")
        os.makedirs(os.path.dirname(path))
        mine = {"permissions": {"allow": ["Bash(ls:*)"]}, "model": "opus",
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "my-audit-hook"}]}],
                          "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}
        original = json.dumps(mine)
        with open(path, "w") as f:
            f.write(original)
        self.install("claude-code")
        with open(path) as f:
            merged = json.load(f)
        self.assertEqual(merged["permissions"], mine["permissions"])
        self.assertEqual(merged["model"], "opus")
        self.assertEqual(merged["hooks"]["Stop"], mine["hooks"]["Stop"])
        self.assertEqual(merged["hooks"]["PreToolUse"][0], mine["hooks"]["PreToolUse"][0])
        got, want = handlers("claude-code", merged), handlers(
            "claude-code", template("claude-code", self.guard, self.pack, self.pub))
        for event, expected in want.items():
            ours = [h for h in got[event] if h[1][0] == self.guard]
            self.assertEqual(ours, expected, event)
        backups = glob.glob(path + ".doberman-backup-*")
        self.assertEqual(len(backups), 1)
        with open(backups[0]) as f:
            self.assertEqual(f.read(), original)
        # Again: nothing changes, no new backup.
        with open(path, "rb") as f:
            before = f.read()
        r = self.install("claude-code")
        self.assertIn("nothing to change", r.stdout)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), before)
        self.assertEqual(len(glob.glob(path + ".doberman-backup-*")), 1)
        # Uninstall takes out ours only.
        r = run(["uninstall", "claude-code"], self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path) as f:
            after = json.load(f)
        self.assertEqual(after, mine)
        r = run(["uninstall", "claude-code"], self.env)
        self.assertIn("no Doberman hooks", r.stdout)

    def test_weakened_entry_is_replaced_in_place(self):
        path = os.path.join(self.home, ".claude", "settings.json")
        os.makedirs(os.path.dirname(path))
        weak = {"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "doberman-guard hook "
                                           "claude-code --pack /old.dpack --pubkey /old.pub"}]},
            {"matcher": "Write", "hooks": [{"type": "command", "command": "mine"}]}]}}
        with open(path, "w") as f:
            json.dump(weak, f)
        self.install("claude-code")
        with open(path) as f:
            pre = json.load(f)["hooks"]["PreToolUse"]
        self.assertEqual(len(pre), 2)
        self.assertEqual(pre[0]["matcher"], "*")
        self.assertEqual(pre[0]["hooks"][0]["onFailure"], "block")
        self.assertIn(self.pack, pre[0]["hooks"][0]["command"])
        self.assertEqual(pre[1], weak["hooks"]["PreToolUse"][1])

    def test_refusals_change_nothing(self):
        path = os.path.join(self.home, ".claude", "settings.json")
        os.makedirs(os.path.dirname(path))
        for bad in ('{"hooks": {}, }', '{"a": 1, "a": 2}', '{"hooks": []}', '[1]'):
            with open(path, "w") as f:
                f.write(bad)
            r = self.install("claude-code", expect=1)
            self.assertIn("nothing was changed", r.stderr)
            with open(path) as f:
                self.assertEqual(f.read(), bad)
        self.assertEqual(glob.glob(path + ".doberman-backup-*"), [])
        # A pack that does not verify with the key is not wired in.
        os.remove(path)
        r = run(["install", "claude-code", "--pack", PACK, "--pubkey",
                 os.path.join(PACKS, "other.pub")], self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("refused", r.stderr)
        self.assertFalse(os.path.exists(path))

    def test_dry_run(self):
        r = self.install("claude-code", "--dry-run")
        self.assertEqual(json.loads(r.stdout)["hooks"]["PreToolUse"][0]["matcher"], "*")
        self.assertFalse(os.path.exists(os.path.join(self.home, ".claude")))

    def test_codex_hooks_and_trust(self):
        codex_home = os.path.join(self.home, ".codex")
        os.makedirs(codex_home)
        config = os.path.join(codex_home, "config.toml")
        with open(config, "w") as f:
            f.write('model = "gpt-5.5"\n\n[features]\nhooks = true\n')
        self.install("codex")
        hooks_path = os.path.join(codex_home, "hooks.json")
        with open(hooks_path) as f:
            hooks = json.load(f)
        self.assertEqual(handlers("codex", hooks), handlers(
            "codex", template("codex", self.guard, self.pack, self.pub)))
        with open(config) as f:
            toml = f.read()
        self.assertTrue(toml.startswith('model = "gpt-5.5"\n\n[features]\nhooks = true\n'))
        # The same trust entries the real-client test writes (and Codex then honours).
        self.assertIn(codex_test.trust_state_toml(hooks_path, hooks), toml)
        before = toml
        r = self.install("codex")
        self.assertEqual(r.stdout.count("nothing to change"), 2, r.stdout)
        with open(config) as f:
            self.assertEqual(f.read(), before)

    def test_cursor_project(self):
        project = os.path.join(self.tmp, "repo")
        os.makedirs(project)
        r = run(["install", "cursor", "--project", "--pack", PACK, "--pubkey", PUB], self.env,
                cwd=project)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(project, ".cursor", "hooks.json")) as f:
            hooks = json.load(f)
        self.assertEqual(hooks["version"], 1)
        self.assertEqual(handlers("cursor", hooks), handlers(
            "cursor", template("cursor", self.guard, self.pack, self.pub)))
        self.assertFalse(os.path.exists(os.path.join(self.home, ".cursor")))


class DoctorTest(unittest.TestCase):
    """Doctor as an agent's user would see it: the guard, pack and key root-owned and read-only to
    that user (copies in a 0755 directory), the settings in that user's home."""

    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to run the doctor as an unprivileged user")
        self.tmp = tempfile.mkdtemp()
        os.chmod(self.tmp, 0o755)
        self.etc = os.path.join(self.tmp, "etc")
        os.makedirs(self.etc)
        self.guard = shutil.copy(GUARD, os.path.join(self.etc, "doberman-guard"))
        self.pack = shutil.copy(PACK, os.path.join(self.etc, "default.dpack"))
        self.pub = shutil.copy(PUB, os.path.join(self.etc, "release.pub"))
        for p in (self.pack, self.pub):
            os.chmod(p, 0o644)
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        os.chown(self.home, 65534, 65534)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home,
                    "CODEX_HOME": os.path.join(self.home, ".codex")}

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def wire(self, host):
        r = run(["install", host, "--guard", self.guard, "--pack", self.pack, "--pubkey", self.pub],
                self.env, user="nobody")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def doctor(self, host, user="nobody"):
        return run(["doctor", host], self.env, user=user)

    def settings(self, host):
        return {"claude-code": os.path.join(self.home, ".claude", "settings.json"),
                "codex": os.path.join(self.home, ".codex", "hooks.json"),
                "cursor": os.path.join(self.home, ".cursor", "hooks.json")}[host]

    def edit(self, host, change):
        path = self.settings(host)
        with open(path) as f:
            s = json.load(f)
        change(s)
        with open(path, "w") as f:
            json.dump(s, f)

    def test_wired_hosts_pass(self):
        for host in ("claude-code", "codex", "cursor"):
            self.wire(host)
            r = self.doctor(host)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("all checks passed", r.stdout)
            self.assertIn("canary: a Bash `rm -rf /` sent through the hook command came back deny",
                          r.stdout)
            self.assertIn("signature verified", r.stdout)

    def test_problems_are_named(self):
        self.assertIn("no settings file", self.doctor("claude-code").stdout)
        self.wire("claude-code")

        def weaken(s):
            del s["hooks"]["PostToolUse"][0]["hooks"][0]["onFailure"]
            s["hooks"]["PreToolUse"][0]["matcher"] = "Bash"
            del s["hooks"]["UserPromptSubmit"]
            s["disableAllHooks"] = True
        self.edit("claude-code", weaken)
        r = self.doctor("claude-code")
        self.assertEqual(r.returncode, 1)
        for needle in ("PostToolUse: onFailure is not \"block\"",
                       "PreToolUse: matcher \"Bash\" leaves every other tool unjudged",
                       "UserPromptSubmit: no Doberman hook", "\"disableAllHooks\": true"):
            self.assertIn(needle, r.stdout)
        self.assertIn("4 problems", r.stdout)

        self.wire("cursor")
        self.edit("cursor", lambda s: s["hooks"]["beforeReadFile"][0].update(failClosed=False))
        self.assertIn("beforeReadFile: failClosed is not true", self.doctor("cursor").stdout)

        # Codex without trust entries: codex exec would skip the hooks.
        r = run(["install", "codex", "--no-trust", "--guard", self.guard, "--pack", self.pack,
                 "--pubkey", self.pub], self.env, user="nobody")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("not trusted in config.toml", self.doctor("codex").stdout)

        # A pack that no longer verifies, and a guard that is gone: the canary is not refused by
        # the pack but by the failure, which doctor names.
        with open(self.pack, "r+b") as f:
            f.seek(200)
            f.write(b"\xff\xff")
        os.rename(self.guard, self.guard + ".gone")
        r = self.doctor("cursor")
        self.assertIn("PROBLEM  pack " + self.pack + " refused", r.stdout)
        self.assertIn("is not an executable file", r.stdout)
        self.assertIn("PROBLEM  canary", r.stdout)

    def test_files_in_the_agents_reach(self):
        # Root running the agent can write the key, and the pack only asks (AUTH) for that.
        self.wire("claude-code")
        r = self.doctor("claude-code", user=None)
        self.assertIn("PROBLEM  key " + self.pub + " is within the agent's reach", r.stdout)
        self.assertIn("running as root", r.stdout)
        # A key the agent's user owns is in its reach too.
        os.chown(self.pub, 65534, 65534)
        self.assertIn("PROBLEM  key", self.doctor("claude-code").stdout)


if __name__ == "__main__":
    unittest.main()
