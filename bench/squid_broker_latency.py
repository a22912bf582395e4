#!/usr/bin/env python3
"""Cost of the egress broker's helper: the same client times HTTP requests through two Squid 5
instances started side by side from examples/squid/squid.conf.in, one with `doberman-guard squid-acl`
as its external ACL (the broker) and one with the external ACL lines removed (Squid alone), to one
local web server, interleaved in one run. Prints p50 and p99 per request (sequential, a new
connection each) and requests per second with 8 concurrent clients. Needs root (Squid runs as
`proxy`).

    bench/squid_broker_latency.py --guard build/bin/doberman-guard --pack P --pubkey K [--requests 2000]
"""
import argparse
import http.server
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(ROOT, "examples", "squid", "squid.conf.in")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_squid(workdir, guard, pack, pub, with_helper):
    run = os.path.join(workdir, "with" if with_helper else "without")
    os.makedirs(run)
    port = free_port()
    conf = open(TEMPLATE).read()
    if not with_helper:
        conf = "\n".join(line for line in conf.splitlines()
                         if "external" not in line and "doberman_allows" not in line)
    for k, v in {"@GUARD@": guard, "@PACK@": pack, "@PUBKEY@": pub, "@PORT@": str(port),
                 "@ALLOW@": os.path.join(workdir, "allow.txt"), "@RUNDIR@": run}.items():
        conf = conf.replace(k, v)
    path = os.path.join(run, "squid.conf")
    with open(path, "w") as f:
        f.write(conf)
    shutil.chown(run, "proxy", "proxy")
    proc = subprocess.Popen(["squid", "-N", "-f", path], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.2)
    raise SystemExit("squid did not start (see %s/cache.log)" % run)


def opener(port):
    return urllib.request.build_opener(urllib.request.ProxyHandler(
        {"http": "http://127.0.0.1:%d" % port}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--guard", required=True)
    ap.add_argument("--pack", required=True)
    ap.add_argument("--pubkey", required=True)
    ap.add_argument("--requests", type=int, default=2000)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="doberman-squid-bench-")
    os.chmod(work, 0o755)
    for src in (a.guard, a.pack, a.pubkey):
        shutil.copy(src, work)
    guard, pack, pub = (os.path.join(work, os.path.basename(p)) for p in (a.guard, a.pack, a.pubkey))
    with open(os.path.join(work, "allow.txt"), "w") as f:
        f.write("localhost\n")
    with open(os.path.join(work, "page.txt"), "w") as f:
        f.write("x" * 1024)
    for name in os.listdir(work):
        shutil.chown(os.path.join(work, name), "proxy", "proxy")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=work, **kwargs)

        def log_message(self, *args):
            pass

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    squids = {}
    try:
        for label, helper in (("broker (Squid + squid-acl)", True), ("Squid alone", False)):
            squids[label] = start_squid(work, guard, pack, pub, helper)
        url = "http://localhost:%d/page.txt?n=%%d" % web.server_address[1]
        times = {label: [] for label in squids}
        for label, (_, port) in squids.items():  # warm up helpers and connections
            for i in range(20):
                opener(port).open(url % i, timeout=20).read()
        for i in range(a.requests):  # interleaved, sequential
            for label, (_, port) in squids.items():
                t = time.perf_counter()
                body = opener(port).open(url % i, timeout=20).read()
                times[label].append(time.perf_counter() - t)
                assert len(body) == 1024
        rates = {}
        for label, (_, port) in squids.items():
            done = [0]

            def client(k, port=port, done=done):
                o = opener(port)
                for i in range(k, a.requests, 8):
                    o.open(url % (100000 + i), timeout=20).read()
                    done[0] += 1

            t = time.perf_counter()
            threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            rates[label] = done[0] / (time.perf_counter() - t)
        print("| | p50 per request | p99 | requests/s, 8 clients |\n|---|---|---|---|")
        for label, ts in times.items():
            ts.sort()
            print("| %s | %.0f µs | %.0f µs | %.0f |" % (
                label, statistics.median(ts) * 1e6, ts[int(len(ts) * 0.99)] * 1e6, rates[label]))
        b, s = (sorted(times[k]) for k in squids)
        print("| added by the helper | %.0f µs | %.0f µs | %.2fx |" % (
            (statistics.median(b) - statistics.median(s)) * 1e6,
            (b[int(len(b) * 0.99)] - s[int(len(s) * 0.99)]) * 1e6,
            rates[list(squids)[0]] / rates[list(squids)[1]]))
    finally:
        for proc, _ in squids.values():
            proc.terminate()
            proc.wait(timeout=20)
        web.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
