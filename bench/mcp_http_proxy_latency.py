#!/usr/bin/env python3
"""Added latency of the streamable-HTTP MCP proxy (`doberman-guard mcp-proxy --upstream URL --listen
ADDR`): one raw HTTP client (one kept-alive connection, as MCP clients keep theirs) times N
`tools/call` round trips (the `echo` tool, a short text) against the SDK-based test server
(tests/guard/mcp/http_server.cjs, answering with event streams) directly and through the proxy,
interleaved, in one run; then 20 results of 190 KB (the `lorem` tool). Prints p50 and p99 per round
trip and the result throughput. Needs node and the MCP SDK (scripts/install-deps --hosts).

    bench/mcp_http_proxy_latency.py --guard build/bin/doberman-guard --pack P --pubkey K [--calls 2000]
"""
import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "tests", "guard", "mcp", "http_server.cjs")
NODE_MODULES = os.path.join(os.environ.get("DOBERMAN_HOSTS_DIR",
                                           os.path.expanduser("~/.cache/doberman-hosts")),
                            "node_modules")


class Session:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.session = None
        self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "1"}}})
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, msg):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "MCP-Protocol-Version": "2025-06-18"}
        if self.session:
            h["Mcp-Session-Id"] = self.session
        self.conn.request("POST", "/mcp", body=json.dumps(msg).encode(), headers=h)
        r = self.conn.getresponse()
        data = r.read()
        self.session = self.session or r.getheader("Mcp-Session-Id")
        if "id" in msg:
            assert r.status == 200 and b'"result"' in data, (r.status, data[:300])
        return len(data)

    def call(self, rid, name, arguments):
        return self.post({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                          "params": {"name": name, "arguments": arguments}})


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--guard", required=True)
    ap.add_argument("--pack", required=True)
    ap.add_argument("--pubkey", required=True)
    ap.add_argument("--calls", type=int, default=2000)
    a = ap.parse_args()
    env = dict(os.environ, NODE_PATH=NODE_MODULES)
    server = subprocess.Popen(["node", SERVER], stdout=subprocess.PIPE, env=env)
    port = int(server.stdout.readline())
    proxy = subprocess.Popen([a.guard, "mcp-proxy", "--name", "b", "--pack", a.pack, "--pubkey",
                              a.pubkey, "--upstream", "http://127.0.0.1:%d/mcp" % port, "--listen",
                              "127.0.0.1:0"], stderr=subprocess.PIPE)
    line = proxy.stderr.readline().decode()
    proxy_port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
    try:
        paths = {"direct": Session(port), "proxy": Session(proxy_port)}
        times = {k: [] for k in paths}
        for i in range(a.calls + 50):
            for name, s in paths.items():
                t = time.perf_counter()
                s.call(i + 1, "echo", {"text": "hello %d" % i})
                if i >= 50:  # warm-up
                    times[name].append(time.perf_counter() - t)
        big = {}
        for name, s in paths.items():
            t = time.perf_counter()
            n = sum(s.call(10**6 + j, "lorem", {"size": 190000}) for j in range(20))
            big[name] = n / (time.perf_counter() - t) / 1e6
        for name in paths:
            print("%-7s p50 %8.1f us  p99 %8.1f us  190 KB results %6.1f MB/s" % (
                name, statistics.median(times[name]) * 1e6, pct(times[name], 0.99) * 1e6,
                big[name]))
        print("added   p50 %8.1f us  p99 %8.1f us  throughput %.2fx" % (
            (statistics.median(times["proxy"]) - statistics.median(times["direct"])) * 1e6,
            (pct(times["proxy"], 0.99) - pct(times["direct"], 0.99)) * 1e6,
            big["proxy"] / big["direct"]))
    finally:
        proxy.send_signal(signal.SIGTERM)
        proxy.wait(timeout=20)
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
