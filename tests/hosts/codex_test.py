#!/usr/bin/env python3
"""Real-client test of Doberman under OpenAI Codex CLI (`codex exec`, 0.171.0).

Codex runs against fake_openai.FakeOpenAI, a local stand-in for the Responses API that answers the
first turn with ONE tool call (a shell command through `exec_command`, or an `apply_patch`) and then
a short final message. The hooks come from tests/hosts/codex-hooks.json.in (the single source of the
snippet in docs/hosts/codex.md), with @GUARD@ @PACK@ @PUBKEY@ filled in. Every scenario checks what
REALLY happened on disk (marker files), not what Codex printed.

Environment:
  DOBERMAN_HOSTS_DIR    where `npm install @openai/codex` ran (default /root/.cache/doberman-hosts)
  DOBERMAN_GUARD        doberman-guard binary
  DOBERMAN_TEST_PACK    a pack compiled from packs/ (dobermanc build packs --key K --out D)
  DOBERMAN_TEST_PUBKEY  its public key
  DOBERMAN_COMPILER     optional: dobermanc; used to build the pack when DOBERMAN_TEST_PACK is unset
  DOBERMAN_CODEX_BYPASS_HOOK_TRUST=1  pass --dangerously-bypass-hook-trust instead of writing
                        [hooks.state] trust entries (use if a Codex update changes the trust hash)

Notes on how Codex is driven (see docs/hosts/codex-protocol-notes.md):
  * hooks live in $CODEX_HOME/hooks.json; user hooks only run once TRUSTED. `codex exec` silently
    skips untrusted hooks, so the test writes `[hooks.state."<hooks.json>:<event>:<g>:<h>"]
    trusted_hash = "sha256:..."` into config.toml, exactly what Codex persists after a review, and
    asserts in every run that the PreToolUse hook really ran.
  * `--dangerously-bypass-approvals-and-sandbox` (approval: never, sandbox: danger-full-access), so a
    benign command really runs and only the hook stands between the model and the machine.
  * model "gpt-5.5": Codex has bundled metadata for it and then advertises `exec_command` and the
    freeform (custom) `apply_patch` tool.
"""
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from fake_openai import FakeOpenAI  # noqa: E402

TEMPLATE = os.path.join(HERE, "codex-hooks.json.in")
HOSTS_DIR = os.environ.get("DOBERMAN_HOSTS_DIR", os.path.expanduser("~/.cache/doberman-hosts"))
MODEL = "gpt-5.5"
RUN_TIMEOUT = 120
EVENT_LABELS = {"PreToolUse": "pre_tool_use", "PermissionRequest": "permission_request",
                "PostToolUse": "post_tool_use", "PreCompact": "pre_compact",
                "PostCompact": "post_compact", "SessionStart": "session_start",
                "UserPromptSubmit": "user_prompt_submit", "Stop": "stop"}
EVENTS_WITH_MATCHER = {"PreToolUse", "PermissionRequest", "PostToolUse", "SessionStart"}
OWNER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOwnerKeyOnlyForTheDobermanTest owner@laptop"
ATTACKER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDobermanTestAttackerKeyOnly attacker@evil"


def find_codex():
    pats = [os.path.join(HOSTS_DIR, "node_modules", "@openai", "codex-*", "vendor", "*", "bin",
                         "codex"),
            os.path.join(HOSTS_DIR, "node_modules", "@openai", "codex", "vendor", "*", "codex",
                         "codex")]
    for pat in pats:
        for path in sorted(glob.glob(pat)):
            if os.access(path, os.X_OK):
                return path
    wrapper = os.path.join(HOSTS_DIR, "node_modules", ".bin", "codex")
    return wrapper if os.access(wrapper, os.X_OK) else None


def trust_hash(event, matcher, handler):
    """Codex's hook trust hash (codex-rs/hooks/src/engine/discovery.rs command_hook_hash +
    codex-rs/config/src/fingerprint.rs version_for_toml): sha256 over the compact, key-sorted JSON
    of {event_name, matcher, hooks: [normalized handler]}, None fields dropped."""
    norm = {"type": "command", "command": handler["command"],
            "timeout": max(1, handler.get("timeout", 600)), "async": bool(handler.get("async"))}
    if handler.get("statusMessage") is not None:
        norm["statusMessage"] = handler["statusMessage"]
    ident = {"event_name": EVENT_LABELS[event], "hooks": [norm]}
    if matcher is not None and event in EVENTS_WITH_MATCHER:
        ident["matcher"] = matcher
    data = json.dumps(ident, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def trust_state_toml(hooks_path, hooks):
    lines = []
    for event, groups in hooks["hooks"].items():
        for gi, group in enumerate(groups):
            for hi, handler in enumerate(group["hooks"]):
                key = "%s:%s:%d:%d" % (hooks_path, EVENT_LABELS[event], gi, hi)
                lines.append('[hooks.state.%s]' % json.dumps(key))
                lines.append('trusted_hash = "%s"' % trust_hash(event, group.get("matcher"),
                                                                handler))
    return "\n".join(lines) + "\n"


def render_template(guard, pack, pubkey, pre_tool_guard=None):
    """The template with placeholders filled in. pre_tool_guard replaces @GUARD@ in PreToolUse only
    (a broken guard must be caught at the tool call, not earlier at UserPromptSubmit)."""
    with open(TEMPLATE) as f:
        hooks = json.load(f)
    for event, groups in hooks["hooks"].items():
        g = pre_tool_guard if (pre_tool_guard and event == "PreToolUse") else guard
        for group in groups:
            for handler in group["hooks"]:
                handler["command"] = (handler["command"].replace("@GUARD@", shlex.quote(g))
                                      .replace("@PACK@", shlex.quote(pack))
                                      .replace("@PUBKEY@", shlex.quote(pubkey)))
    return hooks


class Run:
    """One `codex exec` against a FakeOpenAI scenario, in its own temp HOME/CODEX_HOME/workdir."""

    def __init__(self, proc, api, root, elapsed):
        self.proc, self.api, self.root, self.elapsed = proc, api, root, elapsed
        self.home = os.path.join(root, "home")
        self.work = os.path.join(root, "work")

    @property
    def pre_tool_status(self):
        m = re.findall(r"^hook: PreToolUse (\w+)", self.proc.stderr, re.M)
        return m[-1] if m else None

    def describe(self):
        tail = "\n".join(self.proc.stderr.splitlines()[-25:])
        return ("codex rc=%s in %.1fs, PreToolUse=%s\ncall=%s\noutputs=%s\nerrors=%s\nstderr "
                "tail:\n%s" % (self.proc.returncode, self.elapsed, self.pre_tool_status,
                               self.api.tool_call, self.api.tool_outputs, self.api.errors, tail))


@unittest.skipUnless(find_codex(), "codex CLI not found under %s (npm install --prefix %s "
                     "@openai/codex@0.171.0, or set DOBERMAN_HOSTS_DIR)" % (HOSTS_DIR, HOSTS_DIR))
class CodexHooks(unittest.TestCase):
    codex = None
    guard = pack = pubkey = None
    _tmp = None

    @classmethod
    def setUpClass(cls):
        cls.codex = find_codex()
        cls._tmp = tempfile.mkdtemp(prefix="doberman-codex-")
        try:
            cls._set_up()
        except BaseException:
            shutil.rmtree(cls._tmp, ignore_errors=True)
            raise

    @classmethod
    def _set_up(cls):
        cls.guard = os.environ.get("DOBERMAN_GUARD") or shutil.which("doberman-guard")
        if not cls.guard or not os.access(cls.guard, os.X_OK):
            raise unittest.SkipTest("doberman-guard not found (set DOBERMAN_GUARD)")
        cls.pack = os.environ.get("DOBERMAN_TEST_PACK")
        cls.pubkey = os.environ.get("DOBERMAN_TEST_PUBKEY")
        if not cls.pack:
            cls.pack, cls.pubkey = cls._build_pack()
        if not (cls.pack and cls.pubkey and os.path.exists(cls.pack)
                and os.path.exists(cls.pubkey)):
            raise unittest.SkipTest("no test pack: set DOBERMAN_TEST_PACK and DOBERMAN_TEST_PUBKEY "
                                    "(dobermanc keygen --out D/k; dobermanc build packs --key "
                                    "D/k.key --out D)")
        # Stub guards for the failure scenarios.
        cls.stub_exit1 = cls._stub("guard-exit1", "#!/bin/sh\ncat >/dev/null\nexit 1\n")
        cls.stub_hang = cls._stub("guard-hang", "#!/bin/sh\ncat >/dev/null\nexec sleep 600\n")

    @classmethod
    def tearDownClass(cls):
        if cls._tmp:
            shutil.rmtree(cls._tmp, ignore_errors=True)

    @classmethod
    def _stub(cls, name, text):
        path = os.path.join(cls._tmp, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
        return path

    @classmethod
    def _build_pack(cls):
        compiler = os.environ.get("DOBERMAN_COMPILER") or os.path.join(
            os.path.dirname(cls.guard), "dobermanc")
        if not os.access(compiler, os.X_OK):
            return None, None
        d = os.path.join(cls._tmp, "pack")
        os.makedirs(d)
        subprocess.run([compiler, "keygen", "--out", os.path.join(d, "k")], check=True,
                       capture_output=True, timeout=60)
        subprocess.run([compiler, "build", os.path.join(ROOT, "packs"), "--key",
                        os.path.join(d, "k.key"), "--out", d], check=True, capture_output=True,
                       timeout=300)
        packs = glob.glob(os.path.join(d, "*.dpack"))
        pubs = glob.glob(os.path.join(d, "*.pub"))
        return (packs[0] if packs else None), (pubs[0] if pubs else None)

    # ---- driver -------------------------------------------------------------------------------
    def run_codex(self, scenario, hooks=None, pre_tool_guard=None):
        """scenario: a FakeOpenAI scenario, or a callable(home) returning one."""
        root = tempfile.mkdtemp(prefix="run-", dir=self._tmp)
        home, codex_home, work = (os.path.join(root, p) for p in ("home", "codex", "work"))
        for p in (home, codex_home, work):
            os.makedirs(p)
        ssh = os.path.join(home, ".ssh")
        os.makedirs(ssh, mode=0o700)
        with open(os.path.join(ssh, "authorized_keys"), "w") as f:
            f.write(OWNER_KEY + "\n")
        if hooks is None:
            hooks = render_template(self.guard, self.pack, self.pubkey, pre_tool_guard)
        hooks_path = os.path.join(codex_home, "hooks.json")
        with open(hooks_path, "w") as f:
            json.dump(hooks, f, indent=2)
        bypass = os.environ.get("DOBERMAN_CODEX_BYPASS_HOOK_TRUST") == "1"
        if callable(scenario):
            scenario = scenario(home)
        api = FakeOpenAI(scenario).start()
        try:
            with open(os.path.join(codex_home, "config.toml"), "w") as f:
                f.write('model = "%s"\nmodel_provider = "fake"\n\n' % MODEL)
                f.write('[model_providers.fake]\nname = "fake"\nbase_url = "%s"\n'
                        'wire_api = "responses"\nenv_key = "FAKE_OPENAI_KEY"\n'
                        'request_max_retries = 0\nstream_max_retries = 0\n\n' % api.base_url)
                if not bypass:
                    f.write(trust_state_toml(hooks_path, hooks))
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
                   "CODEX_HOME": codex_home, "FAKE_OPENAI_KEY": "sk-fake", "LANG": "C.UTF-8",
                   "TMPDIR": os.path.join(root)}
            args = [self.codex, "exec", "--skip-git-repo-check", "--color", "never",
                    "--dangerously-bypass-approvals-and-sandbox"]
            if bypass:
                args.append("--dangerously-bypass-hook-trust")
            args.append("Do what the task needs.")
            t0 = time.monotonic()
            proc = subprocess.run(args, cwd=work, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=RUN_TIMEOUT)
            elapsed = time.monotonic() - t0
        finally:
            api.stop()
        run = Run(proc, api, root, elapsed)
        self.assertEqual(api.errors, [], run.describe())
        self.assertIsNotNone(api.tool_call, "the fake model never got to make its call\n" +
                             run.describe())
        self.assertIsNotNone(run.pre_tool_status,
                             "the PreToolUse hook never ran (untrusted? trust hash changed?)\n" +
                             run.describe())
        return run

    def assert_not_ran(self, run, *paths):
        for p in paths:
            self.assertFalse(os.path.exists(p), "%s exists: the call RAN\n%s" % (p, run.describe()))
        self.assertEqual(run.pre_tool_status, "Blocked", run.describe())

    # ---- scenarios ----------------------------------------------------------------------------
    def test_a_benign_command_runs(self):
        run = self.run_codex(FakeOpenAI.shell("echo benign > a.marker"))
        marker = os.path.join(run.work, "a.marker")
        self.assertTrue(os.path.exists(marker), "benign command did not run\n" + run.describe())
        self.assertEqual(run.pre_tool_status, "Completed", run.describe())
        self.assertEqual(len(run.api.tool_outputs), 1, run.describe())
        self.assertIn("exited with code 0", run.api.tool_outputs[0])

    def test_b_blocked_command_does_not_run(self):
        # BLOCK in the default pack (path.write.shell_startup via a shell redirection). HOME is the
        # run's temp dir, so even a failure only touches the test's own files.
        run = self.run_codex(FakeOpenAI.shell("touch b.marker; echo 'exit 0' >> ~/.bashrc"))
        self.assert_not_ran(run, os.path.join(run.work, "b.marker"),
                            os.path.join(run.home, ".bashrc"))
        self.assertIn("Doberman", " ".join(run.api.tool_outputs), run.describe())

    def test_c_auth_command_does_not_run(self):
        # AUTH in the default pack. Codex has no "ask" from a hook (permissionDecision:ask is
        # "unsupported" and the call runs), so the guard must answer deny for Codex.
        run = self.run_codex(FakeOpenAI.shell(
            "touch c.marker; find ~ -name '*.tmp' -delete"))
        self.assert_not_ran(run, os.path.join(run.work, "c.marker"))

    # ---- through the warm service and doberman-hook, the recommended command ------------------
    def service_hooks(self, sock):
        """The template with `doberman-hook codex` (service at `sock`, the one-shot guard as its
        fallback) in place of `doberman-guard hook codex`."""
        hooks = render_template(self.guard, self.pack, self.pubkey)
        client = os.path.join(os.path.dirname(self.guard), "doberman-hook")
        prefix = "env DOBERMAN_SOCKET=%s DOBERMAN_PACK=%s DOBERMAN_PUBKEY=%s DOBERMAN_GUARD=%s %s codex" % (
            shlex.quote(sock), shlex.quote(self.pack), shlex.quote(self.pubkey),
            shlex.quote(self.guard), shlex.quote(client))
        one_shot = "%s hook codex --pack %s --pubkey %s" % (
            shlex.quote(self.guard), shlex.quote(self.pack), shlex.quote(self.pubkey))
        for groups in hooks["hooks"].values():
            for group in groups:
                for handler in group["hooks"]:
                    assert one_shot in handler["command"], handler["command"]
                    handler["command"] = handler["command"].replace(one_shot, prefix)
        return hooks

    def test_j_service_client_passes_and_blocks(self):
        sock = os.path.join(self._tmp, "svc-%d.sock" % os.getpid())
        log = open(os.path.join(self._tmp, "serve.log"), "w")
        proc = subprocess.Popen([self.guard, "serve", "--socket", sock, "--pack", self.pack,
                                 "--pubkey", self.pubkey], stderr=log)
        try:
            deadline = time.time() + 20
            while not os.path.exists(sock) and time.time() < deadline:
                time.sleep(0.02)
            run = self.run_codex(FakeOpenAI.shell("echo benign > j.marker"), hooks=self.service_hooks(sock))
            self.assertTrue(os.path.exists(os.path.join(run.work, "j.marker")), run.describe())
            run = self.run_codex(FakeOpenAI.shell("touch j2.marker; echo 'exit 0' >> ~/.bashrc"),
                                 hooks=self.service_hooks(sock))
            self.assert_not_ran(run, os.path.join(run.work, "j2.marker"),
                                os.path.join(run.home, ".bashrc"))
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            log.close()

    def test_j2_service_gone_client_falls_back_closed(self):
        sock = os.path.join(self._tmp, "never-started.sock")
        run = self.run_codex(FakeOpenAI.shell("touch j3.marker; echo 'exit 0' >> ~/.bashrc"),
                             hooks=self.service_hooks(sock))
        self.assert_not_ran(run, os.path.join(run.work, "j3.marker"), os.path.join(run.home, ".bashrc"))

    def test_d_missing_guard_fails_closed(self):
        run = self.run_codex(FakeOpenAI.shell("echo x > d.marker"),
                             pre_tool_guard=os.path.join(self._tmp, "no-such-doberman-guard"))
        self.assert_not_ran(run, os.path.join(run.work, "d.marker"))

    def test_e_guard_exit_1_fails_closed(self):
        run = self.run_codex(FakeOpenAI.shell("echo x > e.marker"), pre_tool_guard=self.stub_exit1)
        self.assert_not_ran(run, os.path.join(run.work, "e.marker"))

    def test_f_hanging_guard_fails_closed(self):
        # Codex itself fails OPEN when a hook exceeds its "timeout"; the template's `timeout 10`
        # kills the guard first and turns that into exit 2 (block).
        run = self.run_codex(FakeOpenAI.shell("echo x > f.marker"), pre_tool_guard=self.stub_hang)
        self.assert_not_ran(run, os.path.join(run.work, "f.marker"))
        self.assertLess(run.elapsed, 60, run.describe())

    def ak_patch(self, home):
        ak = os.path.join(home, ".ssh", "authorized_keys")
        return ("*** Begin Patch\n*** Update File: %s\n@@\n %s\n+%s\n*** End Patch"
                % (ak, OWNER_KEY, ATTACKER_KEY))

    def assert_authorized_keys_untouched(self, run):
        with open(os.path.join(run.home, ".ssh", "authorized_keys")) as f:
            self.assertEqual(f.read(), OWNER_KEY + "\n",
                             "authorized_keys was patched\n" + run.describe())
        self.assertEqual(run.pre_tool_status, "Blocked", run.describe())

    def test_g_apply_patch_to_authorized_keys_is_not_applied(self):
        # The freeform apply_patch tool; the hook sees tool_name "apply_patch" and the patch text
        # in tool_input.command.
        run = self.run_codex(lambda home: FakeOpenAI.apply_patch(self.ak_patch(home)))
        self.assertEqual(run.api.tool_call.get("name"), "apply_patch", run.describe())
        self.assert_authorized_keys_untouched(run)

    def test_g2_heredoc_apply_patch_through_shell_is_not_applied(self):
        # The same edit as the classic `apply_patch <<'EOF'` heredoc through exec_command: Codex
        # intercepts it and applies the patch itself, but the hook sees only tool_name "Bash" with
        # the whole heredoc as tool_input.command (no second, apply_patch-shaped PreToolUse).
        run = self.run_codex(lambda home: FakeOpenAI.shell(
            "apply_patch <<'EOF'\n%s\nEOF\n" % self.ak_patch(home)))
        self.assertEqual(run.api.tool_call.get("name"), "exec_command", run.describe())
        self.assert_authorized_keys_untouched(run)

    def test_i_command_typed_into_interactive_session_does_not_run(self):
        # Codex 0.171.0 runs PreToolUse for exec_command only: `write_stdin` (typing into a running
        # tty session) has NO hook. So `exec_command {"cmd": START, "tty": true}` followed by
        # write_stdin reaches an interpreter with nothing reviewed but START. The only point the
        # guard sees is the start (tool_input.command == START; `tty` is not in the payload), so
        # that is where it has to refuse any program that runs code typed on its stdin.
        shell_line = "touch i.marker; echo 'exit 0' >> ~/.bashrc\n"
        py_line = "import os; os.system(%r)\n" % shell_line.strip()
        for start, line in (("bash", shell_line),
                            ("bash --norc --noprofile", shell_line),
                            ("script -q /dev/null", shell_line),
                            ("python3 -i", py_line)):
            with self.subTest(start=start):
                def type_it(prev_output, line=line):
                    m = re.search(r"session ID (\d+)", prev_output)
                    return {"session_id": int(m.group(1)) if m else 0, "yield_time_ms": 1500,
                            "chars": line}
                run = self.run_codex(FakeOpenAI.calls(
                    ("exec_command", {"cmd": start, "tty": True, "yield_time_ms": 700}),
                    ("write_stdin", type_it)))
                time.sleep(0.3)
                for p in (os.path.join(run.work, "i.marker"), os.path.join(run.home, ".bashrc")):
                    self.assertFalse(os.path.exists(p), "%s exists: the typed command RAN\n%s"
                                     % (p, run.describe()))

    # ---- host behaviour the template works around (documents Codex, not Doberman) -------------
    def test_h_codex_fails_open_on_bare_hook_failure(self):
        """Without the template's `|| exit 2` wrapper a failing hook does NOT stop the call: Codex
        0.171.0 treats exit 1, 127, timeouts and `permissionDecision: ask` as a failed hook and
        runs the tool. If this starts failing, Codex changed and the notes need updating."""
        ask = ('echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
               '"permissionDecision":"ask","permissionDecisionReason":"x"}}\'')
        for name, command in (("exit1", "cat >/dev/null; exit 1"), ("ask", ask)):
            hooks = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": command, "timeout": 5}]}]}}
            run = self.run_codex(FakeOpenAI.shell("echo x > h.marker"), hooks=hooks)
            self.assertTrue(os.path.exists(os.path.join(run.work, "h.marker")),
                            name + ": expected Codex to fail open\n" + run.describe())
            self.assertEqual(run.pre_tool_status, "Failed", run.describe())


if __name__ == "__main__":
    from host_test_main import main
    main()
