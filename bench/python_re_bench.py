#!/usr/bin/python3
"""The Python `re` loop, the way the original Doberman decides: for every unit of a call, re.search with every
pattern of the unit's scope, one after the other. Same per-scope pattern sets (export_patterns.py) and the
same (scope, text) units Doberman scans (exported by doberman-corpus-bench --export-units). Run it with
/usr/bin/python3.

usage: python_re_bench.py --patterns P.json --units U.json --json OUT.json [--seconds S]
                          [--seconds-for NAME=S] [--min-samples N] [--corpus NAME]...
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyre  # noqa: E402


def summarize(samples):
    v = sorted(samples)
    n = len(v)

    def pct(q):
        rank = max(1, min(n, int(-(-q * n // 1))))
        return v[rank - 1]

    total = sum(v)
    return {"samples": n, "calls_per_s": 1e9 * n / total if total else 0, "mean_ns": total / n,
            "p50_ns": pct(0.5), "p90_ns": pct(0.9), "p99_ns": pct(0.99), "p999_ns": pct(0.999),
            "min_ns": v[0], "max_ns": v[-1]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--patterns", required=True)
    ap.add_argument("--units", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--seconds-for", action="append", default=[])
    ap.add_argument("--min-samples", type=int, default=3)
    ap.add_argument("--corpus", action="append", default=[])
    a = ap.parse_args()
    per = dict((kv.split("=")[0], float(kv.split("=")[1])) for kv in a.seconds_for)

    with open(a.patterns) as f:
        patterns = json.load(f)
    t0 = time.perf_counter()
    sets, total, ok, failures = pyre.compile_sets(patterns)
    build_ms = (time.perf_counter() - t0) * 1e3
    print("python-re built in %.1f ms: %d/%d patterns" % (build_ms, ok, total), file=sys.stderr)
    with open(a.units) as f:
        units = json.load(f)["corpora"]

    result = {"engine": {"build_ms": build_ms, "patterns_total": total, "patterns_compiled": ok,
                         "failures": failures},
              "python": sys.version.split()[0], "corpora": {}}
    for name, payloads in units.items():
        if a.corpus and name not in a.corpus:
            continue
        calls = []
        for p in payloads:
            calls.append([(sets.get(scope, []),
                           text.encode("latin-1").decode("utf-8", "surrogateescape"))
                          for scope, text in p["units"]])

        def run(call):
            matched = 0
            for compiled, text in call:
                hit = False
                for rx in compiled:
                    if rx.search(text):
                        hit = True
                matched += hit
            return matched

        matched_units = sum(run(c) for c in calls)  # agreement check, untimed
        budget = per.get(name, a.seconds)
        # Warm-up: up to one pass or 0.3 s.
        w0 = time.perf_counter()
        for c in calls:
            run(c)
            if time.perf_counter() - w0 > 0.3:
                break
        samples, i = [], 0
        start = time.perf_counter()
        clock = time.perf_counter_ns
        while time.perf_counter() - start < budget or len(samples) < a.min_samples:
            c = calls[i]
            i = (i + 1) % len(calls)
            s = clock()
            run(c)
            samples.append(clock() - s)
        summ = summarize(samples)
        result["corpora"][name] = {"summary": summ, "matched_units": matched_units}
        print("  python-re %-10s p50 %10.1f us  p99 %10.1f us  (%d samples)"
              % (name, summ["p50_ns"] / 1e3, summ["p99_ns"] / 1e3, summ["samples"]), file=sys.stderr)
    with open(a.json, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
