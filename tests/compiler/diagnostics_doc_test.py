#!/usr/bin/env python3
"""The diagnostic registry (compiler/src/diagnostic_codes.def) and docs/diagnostics.md are the same
table, code for code and title for title; every registered code is reported somewhere in the compiler
(DiagCode::...), and no code is registered twice. Call sites cannot name an unregistered code: that
does not compile."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
src_dir = os.path.join(ROOT, "compiler", "src")
with open(os.path.join(src_dir, "diagnostic_codes.def")) as f:
    registry = [(c, t.replace('\\"', '"').replace("\\\\", "\\"))
                for c, t in re.findall(r'^DOBERMAN_DIAGNOSTIC\(([EW][0-9]{4}), "(.*)"\)$', f.read(), re.M)]
with open(os.path.join(ROOT, "docs", "diagnostics.md")) as f:
    documented = re.findall(r"^\| ([EW][0-9]{4}) \| (.*) \|$", f.read(), re.M)
used = set()
for name in os.listdir(src_dir):
    if name.endswith((".cc", ".h")) and not name.startswith("diagnostics."):
        with open(os.path.join(src_dir, name)) as f:
            used |= set(re.findall(r"DiagCode::([EW][0-9]{4})", f.read()))
problems = []
codes = [c for c, _ in registry]
if len(codes) != len(set(codes)):
    problems.append("registered twice: %s" % sorted(c for c in set(codes) if codes.count(c) > 1))
if registry != documented:
    reg, doc = dict(registry), dict(documented)
    for c in sorted(set(reg) | set(doc)):
        if reg.get(c) != doc.get(c):
            problems.append("%s: registry %r, docs %r" % (c, reg.get(c), doc.get(c)))
    if not problems:
        problems.append("same codes and titles, in another order")
if set(codes) - used:
    problems.append("registered but never reported: %s" % sorted(set(codes) - used))
for p in problems:
    print("FAIL: " + p)
print("%d codes registered, %d documented, %d reported" % (len(codes), len(documented), len(used)))
sys.exit(1 if problems else 0)
