#!/usr/bin/env python3
"""Instructions spent inside doberman_decide for each pack on each workload, counted by callgrind.

Wall-clock p50s on a shared 2-core VM move by 5-10 % between runs, which hides the cost of one
rule; an instruction count moves by less than 0.01 % between runs of the same pack, so two packs built
from rule trees one change apart can be compared exactly. It counts work, not time (cache misses
and branch mispredictions are not in it): use it to find which rule costs, and
doberman-corpus-bench to report the time.

  bench/decision_instructions.py --guard build/bin/doberman-guard --pubkey K \
      --pack before=A.dpack --pack after=B.dpack --corpus cmd200=C.jsonl [--corpus ...]

Needs valgrind (scripts/install-deps --bench installs it); the workloads are bench/make_corpus.py's JSON lines.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def count(guard, pack, pubkey, corpus):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        with open(corpus, "rb") as stdin:
            run = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                 "--toggle-collect=doberman_decide", guard, "check", "--pack", pack,
                 "--pubkey", pubkey],
                stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        found = re.search(r"Collected : (\d+)", run.stderr)
        if run.returncode != 0 or not found:
            sys.exit("callgrind failed on %s with %s:\n%s" % (corpus, pack, run.stderr[-2000:]))
        if int(found.group(1)) == 0:
            # the guard answered every line without deciding (not hook payloads, such as the
            # bench's cases.jsonl, whose lines wrap the payload in "input")
            sys.exit("no decision was made on %s: are its lines hook payloads?" % corpus)
        return int(found.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--guard", required=True)
    ap.add_argument("--pubkey", required=True)
    ap.add_argument("--pack", action="append", required=True, help="NAME=FILE; the first is the base")
    ap.add_argument("--corpus", action="append", required=True, help="NAME=FILE")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (scripts/install-deps --bench)")
    packs = [p.split("=", 1) for p in args.pack]
    corpora = [c.split("=", 1) for c in args.corpus]
    print("%-12s %-12s %14s %9s" % ("workload", "pack", "instructions", "vs base"))
    for cname, cfile in corpora:
        base = None
        for pname, pfile in packs:
            n = count(args.guard, pfile, args.pubkey, cfile)
            base = base or n
            print("%-12s %-12s %14d %+8.2f%%" % (cname, pname, n, 100.0 * (n - base) / base))


if __name__ == "__main__":
    main()
