#!/usr/bin/env python3
"""Added latency of `doberman-guard mcp-proxy`: the same scripted client times N `tools/call`
round trips (an `echo` tool answering a short text), then 20 results of 190 KB (the `lorem` tool; the default pack bounds a prompt segment at 200,000 bytes, and a longer result is withheld) against the stdio test
server (tests/guard/mcp/stdio_server.py) directly and through the proxy, in one run, interleaved.
Prints p50 and p99 per round trip and the result throughput.

    bench/mcp_proxy_latency.py --guard build/bin/doberman-guard --pack P --pubkey K [--calls 2000]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "tests", "guard", "mcp", "stdio_server.py")


def session(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rpc(p, 0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "bench", "version": "1"}})
    return p


def rpc(p, rid, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
                  .encode() + b"\n")
    p.stdin.flush()
    line = p.stdout.readline()
    answer = json.loads(line)
    assert answer.get("id") == rid and "result" in answer, answer
    return len(line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--guard", required=True)
    ap.add_argument("--pack", required=True)
    ap.add_argument("--pubkey", required=True)
    ap.add_argument("--calls", type=int, default=2000)
    a = ap.parse_args()
    direct = session([sys.executable, SERVER])
    proxied = session([a.guard, "mcp-proxy", "--name", "b", "--pack", a.pack, "--pubkey", a.pubkey,
                       "--", sys.executable, SERVER])
    times = {"direct": [], "proxy": []}
    for i in range(1, a.calls + 1):
        for name, p in (("direct", direct), ("proxy", proxied)):
            t = time.perf_counter()
            rpc(p, i, "tools/call", {"name": "echo", "arguments": {"text": "hello %d" % i}})
            times[name].append(time.perf_counter() - t)
    mb = {}
    for name, p in (("direct", direct), ("proxy", proxied)):
        t = time.perf_counter()
        n = 0
        for i in range(20):
            n += rpc(p, 10 ** 6 + i, "tools/call", {"name": "lorem", "arguments": {"size": 190000}})
        mb[name] = n / (time.perf_counter() - t) / 1e6
    for p in (direct, proxied):
        p.stdin.close()
        p.wait()
    q = lambda xs, f: sorted(xs)[int(f * (len(xs) - 1))] * 1e6
    for name in ("direct", "proxy"):
        xs = times[name]
        print(f"{name:7s} p50 {q(xs, 0.5):8.1f} us  p99 {q(xs, 0.99):8.1f} us  "
              f"190 KB results {mb[name]:6.1f} MB/s")
    print(f"added   p50 {q(times['proxy'], 0.5) - q(times['direct'], 0.5):8.1f} us  "
          f"p99 {q(times['proxy'], 0.99) - q(times['direct'], 0.99):8.1f} us")


if __name__ == "__main__":
    main()
