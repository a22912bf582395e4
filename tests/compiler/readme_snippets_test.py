#!/usr/bin/env python3
"""README's pack examples are the shipped files: each ```yaml block whose first line names a file
(`# path`) must appear verbatim in that file, and the DSL block must be what `dobermanc convert --to
dsl` prints for the rule. Usage: readme_snippets_test.py DOBERMANC"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
dobermanc = sys.argv[1]
with open(os.path.join(ROOT, "README.md")) as f:
    readme = f.read()
section = readme[readme.index("## A pack, briefly"):]
section = section[:section.index("\n## ", 1)]
problems = []
named = 0
for block in re.findall(r"```yaml\n(.*?)```", section, re.S):
    first, _, body = block.partition("\n")
    m = re.match(r"# (\S+)$", first)
    if not m:
        continue
    named += 1
    path = os.path.join(ROOT, m.group(1))
    with open(path) as f:
        text = f.read()
    # A rules excerpt keeps its `rules:` line; the rule itself must be in the file as written.
    excerpt = body[len("rules:\n"):] if body.startswith("rules:\n") else body
    if excerpt.strip() not in text:
        problems.append("the block for %s is not in that file" % m.group(1))
dsl_blocks = re.findall(r"```\n(rule .*?)```", section, re.S)
if len(dsl_blocks) != 1:
    problems.append("expected one DSL rule block, found %d" % len(dsl_blocks))
else:
    rule_id = re.match(r"rule (\S+)", dsl_blocks[0]).group(1)
    source = None
    for path in re.findall(r"```yaml\n# (\S+)\n", section):
        with open(os.path.join(ROOT, path)) as f:
            if "id: " + rule_id in f.read():
                source = path
    if source is None:
        problems.append("no YAML block holds rule %s" % rule_id)
    else:
        out = subprocess.run([dobermanc, "convert", "--to", "dsl", os.path.join(ROOT, source)],
                             capture_output=True, text=True).stdout
        if dsl_blocks[0].strip() not in out:
            problems.append("the DSL block is not what convert prints for %s" % rule_id)
if named < 2:
    problems.append("expected the manifest and a rule file, found %d named blocks" % named)
for p in problems:
    print("FAIL: " + p)
print("%d named YAML blocks and %d DSL block checked" % (named, len(dsl_blocks)))
sys.exit(1 if problems else 0)
