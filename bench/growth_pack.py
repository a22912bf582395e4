#!/usr/bin/env python3
"""Writes a growth-benchmark pack source: the shipped default manifest (its includes made absolute, its inline
rules kept) plus a generated rule file topping the pack up to --rules rules in total. With --generated-only
(for targets below the shipped pack's size) the shipped rules are left out and only the included files
without rules (shell tables, limits) are kept, so the pack holds exactly --rules generated rules. Output goes
to a temp folder given by --dir; nothing is written into the repository.

usage: growth_pack.py --manifest packs/default.yaml --shipped N --rules TOTAL --dir OUTDIR [--seed S]
                      [--generated-only]
Prints the number of generated rules.
"""
import argparse
import os
import subprocess
import sys

import yaml


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--shipped", type=int, required=True, help="rules in the shipped pack")
    ap.add_argument("--rules", type=int, required=True, help="total rules wanted")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--generated-only", action="store_true")
    a = ap.parse_args()

    with open(a.manifest) as f:
        m = yaml.safe_load(f)
    base = os.path.dirname(os.path.abspath(a.manifest))
    os.makedirs(a.dir, exist_ok=True)
    includes = m.get("include") or []
    if isinstance(includes, str):
        includes = [includes]
    includes = [os.path.normpath(os.path.join(base, i)) for i in includes]
    if a.generated_only:
        keep = []
        for inc in includes:
            files = [inc] if os.path.isfile(inc) else sorted(
                os.path.join(d, f) for d, _, fs in os.walk(inc) for f in fs if f.endswith((".yaml", ".yml")))
            for f in files:
                with open(f) as fh:
                    doc = yaml.safe_load(fh) or {}
                if isinstance(doc, dict) and not doc.get("rules"):
                    keep.append(f)
        includes = keep
        m.pop("rules", None)
    m["include"] = includes + ["generated.yaml"]
    m.setdefault("pack", {})["name"] = "growth-%d" % a.rules
    generated = a.rules if a.generated_only else max(0, a.rules - a.shipped)
    with open(os.path.join(a.dir, "growth.yaml"), "w") as f:
        f.write("# Growth benchmark manifest written by bench/growth_pack.py. Do not commit.\n")
        yaml.safe_dump(m, f, sort_keys=False, allow_unicode=True, width=1000)
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "gen_rules.py"), "--count", str(generated), "--out",
                    os.path.join(a.dir, "generated.yaml"), "--seed", str(a.seed)], check=True)
    print(generated)


if __name__ == "__main__":
    main()
