#!/usr/bin/env python3
"""Run the Doberman evidence corpus against a guard binary.

Usage:
  run_cases.py --guard PATH --pack PACK --pubkey PUB [--report-json FILE] [--timeout S] [--only SUBSTR] FILES...
  run_cases.py --list-ids FILES...

FILES are JSON-lines case files (or directories holding *.jsonl); with none given, every *.jsonl next to this
script is used. Each case line is
  {"id": "...", "min": "PASS|AUTH|BLOCK", "max": "PASS|AUTH|BLOCK", "why": "...", "input": {hook payload}}

Every case's input, with "id" added as a top-level field, is written as one JSON line to the stdin of a single
`PATH check --pack PACK --pubkey PUB` process. The guard must answer with one JSON line per input line, in the
same order: {"id": ..., "verdict": "PASS|AUTH|BLOCK", "reasons": [...], "rules": [...]}. A case passes when
min <= verdict <= max (PASS < AUTH < BLOCK).

Exit status: 0 when every case passed; 1 when any case failed or the guard output was malformed, short, out of
order or the guard timed out; 2 on usage errors or an invalid case file.
Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys

VERDICTS = ("PASS", "AUTH", "BLOCK")
RANK = {v: i for i, v in enumerate(VERDICTS)}
REQUIRED = ("id", "min", "max", "input")


class Case:
    __slots__ = ("file", "line", "id", "min", "max", "why", "input")

    def __init__(self, file, line, obj):
        self.file = file
        self.line = line
        self.id = obj["id"]
        self.min = obj["min"]
        self.max = obj["max"]
        self.why = obj.get("why", "")
        self.input = obj["input"]


def expand_files(args_files):
    here = os.path.dirname(os.path.abspath(__file__))
    if not args_files:
        args_files = [here]
    out = []
    for f in args_files:
        if os.path.isdir(f):
            out.extend(sorted(os.path.join(f, n) for n in os.listdir(f) if n.endswith(".jsonl")))
        else:
            out.append(f)
    return out


def load_cases(files):
    """Returns (cases, errors, warnings). Validates shape, verdict names, min <= max and id uniqueness."""
    cases, errors, warnings = [], [], []
    seen = {}
    for path in files:
        name = os.path.basename(path)
        try:
            fh = open(path, "r", encoding="utf-8", newline="\n")
        except OSError as e:
            errors.append(f"{path}: cannot open: {e}")
            continue
        with fh:
            # Split on '\n' only: U+2028/U+2029 and bare '\r' may legally appear inside JSON strings.
            data = fh.read()
        for lineno, raw in enumerate(data.split("\n"), 1):
            text = raw.rstrip("\r")
            if not text.strip():
                continue
            where = f"{name}:{lineno}"
            try:
                obj = json.loads(text)
            except ValueError as e:
                errors.append(f"{where}: invalid JSON: {e}")
                continue
            if not isinstance(obj, dict):
                errors.append(f"{where}: case is not a JSON object")
                continue
            missing = [k for k in REQUIRED if k not in obj]
            if missing:
                errors.append(f"{where}: missing field(s): {', '.join(missing)}")
                continue
            cid = obj["id"]
            if not isinstance(cid, str) or not cid:
                errors.append(f"{where}: id must be a non-empty string")
                continue
            bad = False
            for k in ("min", "max"):
                if obj[k] not in RANK:
                    errors.append(f"{where} [{cid}]: {k}={obj[k]!r} is not one of {'/'.join(VERDICTS)}")
                    bad = True
            if bad:
                continue
            if RANK[obj["min"]] > RANK[obj["max"]]:
                errors.append(f"{where} [{cid}]: min {obj['min']} is above max {obj['max']}")
                continue
            if not isinstance(obj["input"], dict):
                errors.append(f"{where} [{cid}]: input must be a JSON object (a hook payload)")
                continue
            if "hook_event_name" not in obj["input"]:
                warnings.append(f"{where} [{cid}]: input has no hook_event_name")
            if "id" in obj["input"]:
                warnings.append(f"{where} [{cid}]: input already has an 'id' field; it will be overwritten")
            if not obj.get("why"):
                warnings.append(f"{where} [{cid}]: no 'why'")
            if cid in seen:
                errors.append(f"{where}: duplicate id {cid!r} (first at {seen[cid]})")
                continue
            seen[cid] = where
            cases.append(Case(name, lineno, obj))
    return cases, errors, warnings


def encode_payload(case):
    payload = dict(case.input)
    payload["id"] = case.id
    line = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates cannot be UTF-8; fall back to \u escapes for this line only.
        return json.dumps(payload, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def run_guard(guard, pack, pubkey, cases, timeout):
    """Returns (stdout_text, stderr_text, returncode, problem)."""
    data = b"".join(encode_payload(c) + b"\n" for c in cases)
    cmd = [guard, "check", "--pack", pack, "--pubkey", pubkey]
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        return "", "", None, f"cannot start guard: {e}"
    try:
        out, err = proc.communicate(input=data, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return (out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), proc.returncode,
                f"guard timed out after {timeout}s")
    return out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), proc.returncode, None


def parse_output(text, cases):
    """Match guard output lines to cases by id and order. Returns (results_by_id, protocol_errors)."""
    problems = []
    by_id = {}
    index = {c.id: i for i, c in enumerate(cases)}
    lines = [l.rstrip("\r") for l in text.split("\n")]
    lines = [l for l in lines if l.strip()]
    for pos, line in enumerate(lines):
        expected = cases[pos].id if pos < len(cases) else None
        try:
            obj = json.loads(line)
        except ValueError:
            problems.append(f"output line {pos + 1}: not JSON: {line[:160]!r}")
            continue
        if not isinstance(obj, dict):
            problems.append(f"output line {pos + 1}: not a JSON object")
            continue
        oid = obj.get("id")
        verdict = obj.get("verdict")
        if not isinstance(oid, str):
            problems.append(f"output line {pos + 1}: missing or non-string id")
            continue
        if verdict not in RANK:
            problems.append(f"output line {pos + 1} [{oid}]: verdict {verdict!r} is not one of {'/'.join(VERDICTS)}")
            continue
        if oid not in index:
            problems.append(f"output line {pos + 1}: unknown id {oid!r}")
            continue
        if oid in by_id:
            problems.append(f"output line {pos + 1}: duplicate answer for {oid!r}")
            continue
        if oid != expected:
            problems.append(f"output line {pos + 1}: out of order (expected {expected!r}, got {oid!r})")
        by_id[oid] = obj
    if len(lines) < len(cases):
        problems.append(f"guard output is short: {len(lines)} line(s) for {len(cases)} case(s)")
    elif len(lines) > len(cases):
        problems.append(f"guard output has {len(lines) - len(cases)} extra line(s)")
    return by_id, problems


def compact(v):
    if v is None:
        return "[]"
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def print_table(rows, headers):
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    def fmt(r):
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    print(fmt(headers))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt(r))


def file_order(cases):
    order = []
    for c in cases:
        if c.file not in order:
            order.append(c.file)
    return order


def list_ids(cases):
    for c in cases:
        print(f"{c.file}\t{c.id}\t{c.min}..{c.max}")
    rows = []
    for f in file_order(cases):
        fc = [c for c in cases if c.file == f]
        rows.append((f, len(fc), sum(c.min == "BLOCK" for c in fc), sum(c.max == "PASS" for c in fc),
                     sum(c.min != c.max for c in fc)))
    rows.append(("TOTAL", len(cases), sum(r[2] for r in rows), sum(r[3] for r in rows), sum(r[4] for r in rows)))
    print()
    print_table(rows, ("file", "cases", "must-BLOCK", "must-PASS", "ranged"))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Run the Doberman case corpus against a guard binary.")
    ap.add_argument("--guard", help="path to the guard executable (run as: GUARD check --pack PACK --pubkey PUB)")
    ap.add_argument("--pack", help="compiled, signed rule pack")
    ap.add_argument("--pubkey", help="public key that verifies the pack")
    ap.add_argument("--report-json", metavar="FILE", help="write a machine-readable report here")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the guard (default 600)")
    ap.add_argument("--only", metavar="SUBSTR", action="append",
                    help="run only cases whose id contains SUBSTR (repeatable)")
    ap.add_argument("--list-ids", action="store_true", help="validate and list case ids and per-file counts")
    ap.add_argument("files", nargs="*", metavar="FILES")
    args = ap.parse_args(argv)

    files = expand_files(args.files)
    cases, errors, warnings = load_cases(files)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    if errors:
        for e in errors:
            print(f"error: {e}", file=sys.stderr)
        print(f"{len(errors)} invalid case(s); nothing run", file=sys.stderr)
        return 2
    if args.only:
        cases = [c for c in cases if any(s in c.id for s in args.only)]
    if not cases:
        print("error: no cases", file=sys.stderr)
        return 2

    if args.list_ids:
        list_ids(cases)
        return 0

    for opt in ("guard", "pack", "pubkey"):
        if not getattr(args, opt):
            ap.error(f"--{opt} is required (unless --list-ids)")

    out, err, rc, problem = run_guard(args.guard, args.pack, args.pubkey, cases, args.timeout)
    problems = [problem] if problem else []
    by_id, parse_problems = parse_output(out, cases) if problem is None or out else ({}, [])
    problems.extend(parse_problems)
    if rc not in (0, None) and not problems:
        print(f"note: guard exited with status {rc}", file=sys.stderr)

    results = []
    stats = {f: {"cases": 0, "passed": 0, "failed": 0, "too_low": 0, "too_high": 0, "no_output": 0,
                 "internal": 0}
             for f in file_order(cases)}
    failures = []
    for c in cases:
        st = stats[c.file]
        st["cases"] += 1
        obj = by_id.get(c.id)
        if obj is None:
            got, status = None, "no_output"
        else:
            got = obj["verdict"]
            # The guard reports the library's verdict and flags any hit above it (a broken combine)
            # as an internal error: that fails the case even when the verdict lands in range.
            if obj.get("status") == "DOBERMAN_E_INTERNAL":
                status = "internal"
            elif RANK[got] < RANK[c.min]:
                status = "too_low"
            elif RANK[got] > RANK[c.max]:
                status = "too_high"
            else:
                status = "ok"
        rules = obj.get("rules") if obj else None
        reasons = obj.get("reasons") if obj else None
        results.append({"id": c.id, "file": c.file, "min": c.min, "max": c.max, "verdict": got,
                        "status": status, "rules": rules, "reasons": reasons, "why": c.why})
        if status == "ok":
            st["passed"] += 1
        else:
            st["failed"] += 1
            st[status] += 1
            failures.append(results[-1])

    for f in failures:
        rng = f["min"] if f["min"] == f["max"] else f"{f['min']}..{f['max']}"
        label = {"too_low": "too low", "too_high": "too high", "no_output": "no output",
                 "internal": "internal error"}[f["status"]]
        print(f"FAIL {f['id']}: expected {rng}, got {f['verdict'] or '-'} ({label})")
        print(f"     rules={compact(f['rules'])} reasons={compact(f['reasons'])}")
        print(f"     why: {f['why']}")
    if failures:
        print()

    if problems:
        print("GUARD OUTPUT PROBLEMS:")
        for p in problems[:50]:
            print(f"  {p}")
        if len(problems) > 50:
            print(f"  ... and {len(problems) - 50} more")
        if err.strip():
            tail = err.strip().splitlines()[-10:]
            print("  guard stderr (last lines):")
            for l in tail:
                print(f"    {l}")
        print()

    rows = [(f, s["cases"], s["passed"], s["failed"], s["too_low"], s["too_high"], s["no_output"],
             s["internal"])
            for f, s in stats.items()]
    tot = tuple(sum(r[i] for r in rows) for i in range(1, 8))
    rows.append(("TOTAL",) + tot)
    print_table(rows, ("file", "cases", "passed", "failed", "too_low", "too_high", "no_output",
                       "internal"))
    print()

    n_pass, n_fail = tot[1], tot[2]
    if args.report_json:
        report = {
            "passed": n_pass, "failed": n_fail, "total": len(cases),
            "guard_returncode": rc, "protocol_problems": problems,
            "files": stats, "failures": failures, "results": results,
        }
        with open(args.report_json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, ensure_ascii=False, indent=1)
            fh.write("\n")

    print(f"{n_pass} passed, {n_fail} failed")
    return 1 if (n_fail or problems) else 0


if __name__ == "__main__":
    sys.exit(main())
