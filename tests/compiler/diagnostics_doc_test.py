#!/usr/bin/env python3
"""Every diagnostic code the compiler can emit is documented in docs/diagnostics.md, each code has one
meaning (no two call sites define the same code for different things by accident: a code is
documented once), and the page lists no code the compiler no longer has."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
src_dir = os.path.join(ROOT, "compiler", "src")
used = set()
for name in os.listdir(src_dir):
    if name.endswith((".cc", ".h")):
        with open(os.path.join(src_dir, name)) as f:
            used |= set(re.findall(r'"([EW][0-9]{4})"', f.read()))
with open(os.path.join(ROOT, "docs", "diagnostics.md")) as f:
    rows = re.findall(r"^\| ([EW][0-9]{4}) \|", f.read(), re.M)
documented = set(rows)
problems = []
if len(rows) != len(documented):
    problems.append("codes documented twice: %s" % sorted(c for c in documented if rows.count(c) > 1))
if used - documented:
    problems.append("emitted but not documented: %s" % sorted(used - documented))
if documented - used:
    problems.append("documented but never emitted: %s" % sorted(documented - used))
for p in problems:
    print("FAIL: " + p)
print("%d codes emitted, %d documented" % (len(used), len(documented)))
sys.exit(1 if problems else 0)
