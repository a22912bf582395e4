#!/usr/bin/env python3
"""The egress broker with a real Squid (Debian's squid, installed by scripts/install-deps): Squid
runs examples/squid/squid.conf.in filled in, with `doberman-guard squid-acl` as its external ACL
helper, in front of a local web server. An allowlisted host is fetched; an IP literal, a host off the
allowlist, a URL carrying a secret and a URL with credentials are refused by Squid (403) and never
reach the server; the helper answers unreadable lines with ERR. Skipped (and says why) when Squid is
not installed or the test does not run as root (Squid drops to the `proxy` user)."""
import http.server
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

GUARD = os.environ.get("DOBERMAN_GUARD", "doberman-guard")
PACKS = os.environ.get("DOBERMAN_TEST_PACKS", "test-packs")
PACK = os.path.join(PACKS, "default", "default.dpack")
PUB = os.path.join(PACKS, "test.pub")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATE = os.path.join(ROOT, "examples", "squid", "squid.conf.in")
SQUID = shutil.which("squid") or "/usr/sbin/squid"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Helper(unittest.TestCase):
    """The helper protocol alone (no Squid needed)."""

    def test_answers_per_channel_and_refuses_what_it_cannot_read(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("localhost\n*.example.com\n")
        lines = ["7 http://localhost:8080/ GET localhost 8080",
                 "8 http://a.example.com/%3Ft%3Dghp_R7d9Qm2LxZ8vT4nB6kW1pY3cJ5fH0sA9eU2g GET a.example.com 80",
                 "9 http://10.0.0.1/ GET 10.0.0.1 80",
                 "10 garbage"]
        r = subprocess.run([GUARD, "squid-acl", "--pack", PACK, "--pubkey", PUB, "--allow", f.name],
                           input=("\n".join(lines) + "\n").encode(), capture_output=True, timeout=30)
        out = r.stdout.decode().splitlines()
        self.assertEqual(out[0], "7 OK")
        for line, channel in zip(out[1:], ("8", "9", "10")):
            self.assertTrue(line.startswith(channel + " ERR message="), line)
        self.assertNotIn("ghp_", r.stdout.decode())  # a matched secret is never echoed

    def test_an_unreadable_allowlist_stops_the_helper(self):
        r = subprocess.run([GUARD, "squid-acl", "--pack", PACK, "--pubkey", PUB, "--allow",
                            "/nonexistent/allow.txt"], input=b"1 http://x/ GET x 80\n",
                           capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 3)
        self.assertEqual(r.stdout, b"")


@unittest.skipUnless(os.path.exists(SQUID), "squid is not installed (scripts/install-deps installs it)")
@unittest.skipUnless(os.geteuid() == 0, "Squid runs as the proxy user: the test needs root")
class RealSquid(unittest.TestCase):
    def setUp(self):
        self.start()

    def start(self, helper=None, helper_args=""):
        """Squid with the template's configuration; `helper` replaces the guard in the
        external_acl_type line, `helper_args` is appended to the helper's arguments."""
        self.dir = tempfile.mkdtemp(prefix="doberman-squid-")
        os.chmod(self.dir, 0o755)
        # Squid runs its helper as `proxy`: give it its own copies it can read.
        for src in (GUARD, PACK, PUB):
            shutil.copy(src, self.dir)
        with open(os.path.join(self.dir, "allow.txt"), "w") as f:
            f.write("localhost\n")
        with open(os.path.join(self.dir, "page.txt"), "w") as f:
            f.write("hello through the broker\n")
        shutil.chown(self.dir, "proxy", "proxy")
        for name in os.listdir(self.dir):
            shutil.chown(os.path.join(self.dir, name), "proxy", "proxy")
        if not hasattr(self, "hits"):
            self.hits = []
        directory = self.dir
        hits = self.hits

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **k):
                super().__init__(*a, directory=directory, **k)

            def log_message(self, *a):
                hits.append(self.path)

        self.web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.web_port = self.web.server_address[1]
        threading.Thread(target=self.web.serve_forever, daemon=True).start()
        self.port = free_port()
        values = {"@GUARD@": helper or os.path.join(self.dir, "doberman-guard"),
                  "@PACK@": os.path.join(self.dir, os.path.basename(PACK)),
                  "@PUBKEY@": os.path.join(self.dir, os.path.basename(PUB)),
                  "@PORT@": str(self.port), "@ALLOW@": os.path.join(self.dir, "allow.txt"),
                  "@RUNDIR@": self.dir}
        conf = open(TEMPLATE).read()
        conf = conf.replace("--allow @ALLOW@", "--allow @ALLOW@" + helper_args)
        for k, v in values.items():
            conf = conf.replace(k, v)
        self.conf = os.path.join(self.dir, "squid.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.squid = subprocess.Popen([SQUID, "-N", "-f", self.conf], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.squid.poll() is not None:
                    break  # Squid exited: its log says why; waiting longer cannot help
                time.sleep(0.2)
        self.fail("squid did not start (exit status %s); the end of its cache.log:\n%s"
                  % (self.squid.poll(), self.cache_log_tail()))

    def cache_log_tail(self, lines=40):
        """The end of Squid's own log, kept in the failure message (the directory is removed)."""
        try:
            with open(os.path.join(self.dir, "cache.log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError as e:
            return "(no cache.log: %s)" % e

    def stop_squid(self):
        self.squid.terminate()
        try:
            self.squid.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.squid.kill()

    def tearDown(self):
        self.stop_squid()
        self.web.shutdown()
        shutil.rmtree(self.dir, ignore_errors=True)

    def restart(self, **kwargs):
        self.tearDown()
        self.hits.clear()
        self.start(**kwargs)

    def fetch(self, url):
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({"http": "http://127.0.0.1:%d" % self.port}))
        try:
            with opener.open(url, timeout=20) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, b""

    def test_allowlisted_host_is_fetched(self):
        status, body = self.fetch("http://localhost:%d/page.txt" % self.web_port)
        self.assertEqual(status, 200)
        self.assertEqual(body, b"hello through the broker\n")
        self.assertEqual(self.hits, ["/page.txt"])

    def raw_status(self, request_url):
        """The proxy's status for a request line sent as written (urllib would move credentials
        out of the URL into a header)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=20) as s:
            s.sendall(("GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                       % request_url).encode())
            return int(s.recv(64).split()[1])

    def test_refused_requests_never_reach_the_server(self):
        for url in ("http://127.0.0.1:%d/page.txt" % self.web_port,          # an IP literal
                    "http://localhost:%d/page.txt?k=ghp_R7d9Qm2LxZ8vT4nB6kW1pY3cJ5fH0sA9eU2g"
                    % self.web_port,                                            # a secret
                    "http://example.org/"):                                     # off the list
            status, _ = self.fetch(url)
            self.assertEqual(status, 403, url)
        status = self.raw_status("http://u:pw@localhost:%d/page.txt" % self.web_port)
        self.assertEqual(status, 403, "credentials in the URL")
        self.assertEqual(self.hits, [])

    def test_a_crashing_helper_refuses(self):
        # Outside self.dir: restart() removes that directory, and a helper that does not exist
        # fails at Squid's start instead of on the request this test is about.
        helper_dir = tempfile.mkdtemp(prefix="doberman-squid-helper-")
        self.addCleanup(shutil.rmtree, helper_dir, True)
        os.chmod(helper_dir, 0o755)
        crash = os.path.join(helper_dir, "crashing-helper")
        with open(crash, "w") as f:
            f.write("#!/bin/sh\nread line\nkill -SEGV $$\n")
        os.chmod(crash, 0o755)
        shutil.chown(crash, "proxy", "proxy")
        self.restart(helper=crash)
        url = "http://localhost:%d/page.txt" % self.web_port
        for _ in range(3):
            try:
                status, _ = self.fetch(url)
            except (urllib.error.URLError, ConnectionError, OSError):
                status = "no connection"  # Squid gave up on its helpers and stopped: refused too
            self.assertNotEqual(status, 200)
        self.assertEqual(self.hits, [], "a request reached the server without the helper's OK")

    def test_the_ledger_and_the_connection_history_through_squid(self):
        # The helper shares its state directory with the hooks (all run as `proxy` here).
        state = os.path.join(self.dir, "state")
        self.restart(helper_args=" --state-dir " + state)
        as_proxy = ["setpriv", "--reuid=proxy", "--regid=proxy", "--clear-groups", "--",
                    os.path.join(self.dir, "doberman-guard")]
        keys = ["--pack", os.path.join(self.dir, os.path.basename(PACK)),
                "--pubkey", os.path.join(self.dir, os.path.basename(PUB)), "--state-dir", state]

        def check(payload, extra=()):
            r = subprocess.run(as_proxy + ["check"] + keys + list(extra),
                               input=json.dumps(payload) + "\n", capture_output=True, text=True,
                               check=True)
            return json.loads(r.stdout)

        # A password with no shape of its own, shown to an agent session by a file it read.
        password = "Zq8mT2vLp9xR4wK7e"
        check({"session_id": "agent-1", "hook_event_name": "PostToolUse", "tool_name": "Read",
               "tool_input": {"file_path": "/w/.env"},
               "tool_response": {"type": "text",
                                 "file": {"content": "DB_PASSWORD=" + password + "\n"}}})
        port = self.web_port
        self.assertEqual(self.fetch("http://localhost:%d/page.txt?q=%s" % (port, password))[0], 403)
        self.assertEqual(self.fetch("http://localhost:%d/page.txt?q=fine" % port)[0], 200)
        self.assertEqual(self.hits, ["/page.txt?q=fine"])
        # What Squid saw raises the next decision of a hook that names the broker: a refused
        # connection (the history keeps a host's worst record: both fetches were to localhost),
        # then a fetch of a host no judged action named. Each once.
        broker = os.path.join(self.dir, "broker.conf")
        with open(broker, "w") as f:
            f.write("proxy 127.0.0.1:%d\nallow %s\nenforced namespace\n"
                    % (self.port, os.path.join(self.dir, "allow.txt")))
        shutil.chown(broker, "proxy", "proxy")
        ls = {"session_id": "agent-1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
              "tool_input": {"command": "ls -la"}}
        first = check(ls, ["--broker", broker])
        self.assertEqual((first["verdict"], first["reasons"]), ("AUTH", ["broker_refused_connection"]))
        self.assertEqual(check(ls, ["--broker", broker])["verdict"], "PASS")
        self.assertEqual(self.fetch("http://localhost:%d/page.txt?q=again" % port)[0], 200)
        second = check(ls, ["--broker", broker])
        self.assertEqual((second["verdict"], second["reasons"]),
                         ("AUTH", ["broker_unnamed_destination"]))
        # A fetch the agent's own command named: nothing to say.
        named = dict(ls, tool_input={"command": "curl -s http://localhost:%d/page.txt" % port})
        check(named, ["--broker", broker])
        self.assertEqual(self.fetch("http://localhost:%d/page.txt?q=named" % port)[0], 200)
        self.assertEqual(check(ls, ["--broker", broker])["verdict"], "PASS")

    def test_a_thousand_requests_with_the_decision_log(self):
        state = os.path.join(self.dir, "state")
        self.restart(helper_args=" --state-dir " + state)
        port = self.web_port
        jobs = []
        for i in range(1000):
            if i % 4 != 3:
                jobs.append(("http://localhost:%d/page.txt?n=%d" % (port, i), True))
            else:
                jobs.append(([
                    # (each URL distinct: Squid merges concurrent lookups of the same one)
                    "http://localhost:%d/page.txt?n=%d&k=ghp_R7d9Qm2LxZ8vT4nB6kW1pY3cJ5fH0sA9eU2g"
                    % (port, i),
                    "http://example.org/%d" % i,
                    "http://127.0.0.1:%d/page.txt?n=%d" % (port, i)][(i // 4) % 3], False))
        results = [None] * len(jobs)

        def worker(start):
            for k in range(start, len(jobs), 8):
                try:
                    results[k] = self.fetch(jobs[k][0])
                except Exception as e:  # noqa: BLE001 - recorded, asserted below
                    results[k] = (repr(e), b"")

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wrong = [(url, r[0]) for (url, ok), r in zip(jobs, results)
                 if (r != (200, b"hello through the broker\n") if ok else r[0] != 403)]
        self.assertEqual(wrong, [], "%d of 1000 answers lost or wrong" % len(wrong))
        allowed = sum(1 for _, ok in jobs if ok)
        self.assertEqual(len(self.hits), allowed)
        self.assertTrue(all("ghp_" not in h for h in self.hits))
        # Every helper answer is a row of the decision log, and no URL or secret is stored.
        # (The state directory is the helper's, owned by `proxy`: read it as that user.)
        as_proxy = ["setpriv", "--reuid=proxy", "--regid=proxy", "--clear-groups", "--",
                    os.path.join(self.dir, "doberman-guard")]

        def rows():
            log = subprocess.run(as_proxy + ["log", "--state-dir", state, "--json"],
                                 capture_output=True, text=True, check=True).stdout.splitlines()
            return [json.loads(line) for line in log]

        # A helper writes its row just after its answer: on a loaded machine the last rows may
        # trail the last response by a moment, so wait for them before stopping Squid.
        deadline = time.time() + 30
        while len(rows()) < 1000 and time.time() < deadline:
            time.sleep(0.5)
        self.stop_squid()
        rows = rows()
        self.assertEqual({r["host"] for r in rows}, {"squid"})
        self.assertEqual(sum(1 for r in rows if r["verdict"] == "PASS"), allowed)
        self.assertEqual(sum(1 for r in rows if r["verdict"] != "PASS"), 1000 - allowed)
        self.assertEqual(subprocess.run(as_proxy + ["log", "--state-dir", state, "--verify"],
                                        capture_output=True).returncode, 0)
        for root, _, files in os.walk(state):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    data = f.read()
                self.assertNotIn(b"ghp_R7d9Qm2LxZ8vT4nB6kW1pY3cJ5fH0sA9eU2g", data, name)
                self.assertNotIn(b"example.org", data, name)


if __name__ == "__main__":
    unittest.main()
