#!/usr/bin/env python3
"""Whole-process time of `doberman-guard check` on 1 MiB writes built to make secret rules slow.

A secret rule's pattern reports every match end and each end's value is judged; inside a run of
bytes that are not a token's (symbols, UTF-8 text) every end is a longer value with the same
start. This writes 1 MiB contents of that shape (a named value followed by such runs, plain
Chinese text after `password:`, values made of long token runs and symbols) and times one guard
process per content, for each guard given, so two builds are compared in one run.

  bench/long_run_writes.py --pubkey K --pack P --guard old=GUARD1 --guard new=GUARD2 [--timeout S]

A guard that takes longer than the timeout is reported as such (">S").
"""
import argparse
import json
import os
import random
import subprocess
import tempfile
import time

SIZE = 1 << 20


def repeat(unit):
    return (unit * (SIZE // len(unit) + 1))[:SIZE]


def contents():
    rng = random.Random(7)
    token = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
                    for _ in range(4000))
    han = "\u6570\u636e\u5e93\u767b\u5f55\u8bf4\u660e"  # Chinese text with no space
    return {
        "one named value, then 1 MiB of '!'": "token=" + "!" * SIZE,
        "'!a' repeated after a name": "token=" + repeat("!a"),
        "'a.' repeated after a name": "token=" + repeat("a."),
        "'a@' repeated after a name": "password=" + repeat("a@"),
        "lines: a name, 4,000 '!'": repeat("token=" + "!" * 4000 + " "),
        "lines: a name, 500 '!'": repeat("token=" + "!" * 500 + " "),
        "Chinese after 'password:', one line": "password: " + repeat(han),
        "Chinese paragraphs after 'password:'": repeat("password: " + han * 60 + "\n"),
        "lines: a 4,000-byte token run, 64 '!'": repeat("token=example" + token + "!" * 64 + " "),
        "lines: token bytes and '!' alternating": repeat(
            "token=example" + "".join(c + "!" for c in token[:2000]) + " "),
    }


def time_guard(guard, pack, pubkey, payload_file, timeout):
    with open(payload_file, "rb") as stdin:
        start = time.monotonic()
        try:
            subprocess.run([guard, "check", "--pack", pack, "--pubkey", pubkey], stdin=stdin,
                           stdout=subprocess.DEVNULL, check=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pubkey", required=True)
    ap.add_argument("--pack", required=True)
    ap.add_argument("--guard", action="append", required=True, help="NAME=PATH")
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    guards = [g.split("=", 1) for g in args.guard]
    print("%-42s" % "1 MiB content" + "".join("%12s" % name for name, _ in guards))
    with tempfile.TemporaryDirectory() as tmp:
        payload_file = os.path.join(tmp, "payload.json")
        for name, content in contents().items():
            with open(payload_file, "w") as out:
                json.dump({"hook_event_name": "PreToolUse", "tool_name": "Write",
                           "tool_input": {"file_path": "/home/dev/project/notes.txt",
                                          "content": content}}, out)
                out.write("\n")
            cells = []
            for _, guard in guards:
                t = time_guard(guard, args.pack, args.pubkey, payload_file, args.timeout)
                cells.append(">%.0f s" % args.timeout if t is None else "%.2f s" % t)
            print("%-42s" % name + "".join("%12s" % c for c in cells))


if __name__ == "__main__":
    main()
