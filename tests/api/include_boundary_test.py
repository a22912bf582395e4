#!/usr/bin/env python3
"""The include boundaries of docs/architecture.md ("Layers"), checked on every build: who may include
whose headers. A quoted include is resolved against the including file's folder, then the folders
listed for its layer; anything it names outside its allowed layers fails the test."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# layer -> (folders holding its files, layers whose headers it may include)
LAYERS = {
    "public_api": (["runtime/include/doberman"], []),
    "format": (["runtime/format"], ["public_api", "generated"]),
    "runtime": (["runtime/src"], ["public_api", "format", "generated"]),
    "json": (["runtime/json"], []),
    "state": (["runtime/state"], ["public_api", "json"]),
    "cli": (["runtime/cli"], []),
    "guard": (["runtime/guard"], ["public_api", "json", "state", "cli"]),
    "python": (["runtime/python"], ["public_api", "json", "guard"]),
    "compiler": (["compiler/src"], ["public_api", "format", "json", "generated", "cli"]),
}
GENERATED = {"pack_generated.h", "build_info.h", "DobermanLexer.h", "DobermanParser.h",
             "DobermanParserBaseListener.h",
             "DobermanParserListener.h", "DobermanParserBaseVisitor.h", "DobermanParserVisitor.h"}


def headers_of(layer):
    out = set()
    for folder in LAYERS[layer][0]:
        for name in os.listdir(os.path.join(ROOT, folder)):
            if name.endswith((".h", ".hpp", ".def", ".inc")):
                out.add(name if layer != "public_api" else "doberman/" + name)
    return out


owner = {}
for layer in LAYERS:
    for h in headers_of(layer):
        owner.setdefault(h, set()).add(layer)

problems = []
checked = 0
for layer, (folders, allowed) in LAYERS.items():
    for folder in folders:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith((".cc", ".h", ".hpp")):
                continue
            with open(os.path.join(ROOT, folder, name)) as f:
                for n, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    checked += 1
                    inc = m.group(1)
                    if inc in GENERATED:
                        if "generated" not in allowed:
                            problems.append("%s/%s:%d includes generated %s" % (folder, name, n, inc))
                        continue
                    layers = owner.get(inc, set())
                    if layer in layers:
                        continue
                    if not layers:
                        problems.append("%s/%s:%d includes %s, which no layer owns" % (folder, name, n, inc))
                    elif not layers & set(allowed):
                        problems.append("%s/%s:%d (%s) includes %s of layer %s" % (
                            folder, name, n, layer, inc, "/".join(sorted(layers))))
for p in problems:
    print("FAIL: " + p)
print("%d quoted includes checked, %d outside their layer" % (checked, len(problems)))
sys.exit(1 if problems else 0)
