"""`dobermanc import noseyparker|gitleaks` on the real upstream rule sets kept as test data in
../shared/upstream (skipped, exit 77, when absent; nothing upstream is copied into the repository).

Checks: every Nosey Parker rule and >= 95 % of gitleaks' rules import and build into one pack each;
judged as Nosey Parker judges its own examples (each against its own rule), the imported pack flags
>= 98 % of the positive examples and <= 2 % of the negative ones; --with-examples carries them;
malformed input is refused naming the place, and nothing is written.

Arguments: DOBERMANC GUARD SOURCE_DIR."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

DOBERMANC, GUARD, SRC = sys.argv[1:4]
UPSTREAM = os.path.join(SRC, "..", "shared", "upstream")
NP = os.path.join(UPSTREAM, "noseyparker", "rules")
GL = os.path.join(UPSTREAM, "gitleaks", "gitleaks.toml")
if not (os.path.isdir(NP) and os.path.isfile(GL)):
    print("SKIP: ../shared/upstream (Nosey Parker and gitleaks rule sets) is not here")
    sys.exit(77)

failures = []


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name + (" (%s)" % detail if detail else ""))
    if not ok:
        failures.append(name)


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, **kw)


work = tempfile.mkdtemp()
run(DOBERMANC, "keygen", "--out", os.path.join(work, "k"))
key, pub = os.path.join(work, "k.key"), os.path.join(work, "k.pub")


def import_and_build(fmt, source, name, *extra):
    out = os.path.join(work, name)
    r = run(DOBERMANC, "import", fmt, source, "--out", out, *extra)
    m = re.search(r"imported (\d+) of (\d+) rules", r.stderr)
    with open(os.path.join(work, name + ".yaml"), "w") as f:
        f.write("pack:\n  name: %s\n  version: 1.0.0\n  revision: 1\ninclude: [%s/]\n" % (name, name))
    b = run(DOBERMANC, "build", os.path.join(work, name + ".yaml"), "--key", key, "--out",
            os.path.join(work, "packs"))
    return (int(m.group(1)), int(m.group(2))) if m else (0, 1), b, out


# Nosey Parker: everything imports; its examples judged as Nosey Parker judges them.
(kept, total), build, out = import_and_build("noseyparker", NP, "np")
check("every Nosey Parker rule imports", kept == total and total > 100, "%d of %d" % (kept, total))
check("the imported Nosey Parker rules build into one pack", build.returncode == 0, build.stderr[-300:])
examples = {"pos": [], "neg": []}
for path in sorted(glob.glob(os.path.join(NP, "*.yml"))):
    for rule in (yaml.safe_load(open(path)) or {}).get("rules") or []:
        own = "imported.noseyparker." + re.sub(r"[^a-z0-9._-]", "_", rule["id"].lower())
        examples["pos"] += [(own, e) for e in rule.get("examples") or []]
        examples["neg"] += [(own, e) for e in rule.get("negative_examples") or []]


def flagged(items):
    lines = "".join(json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Write",
                                "tool_input": {"file_path": "/w/notes.txt", "content": e}}) + "\n"
                    for _, e in items)
    out = run(GUARD, "check", "--pack", os.path.join(work, "packs", "np.dpack"), "--pubkey", pub,
              input=lines).stdout.splitlines()
    answers = [json.loads(line) for line in out]
    own = [rule in a["rules"] for (rule, _), a in zip(items, answers)]
    anyrule = [any(r.startswith("imported.") for r in a["rules"]) for a in answers]
    return own, anyrule


pos_own, pos_any = flagged(examples["pos"])
neg_own, neg_any = flagged(examples["neg"])
rate = lambda v: 100.0 * sum(v) / max(len(v), 1)  # noqa: E731
check(">= 98 % of positive examples flagged by their rule", rate(pos_own) >= 98,
      "%.1f %% of %d" % (rate(pos_own), len(pos_own)))
check("<= 2 % of negative examples flagged by their rule", rate(neg_own) <= 2,
      "%.1f %% of %d" % (rate(neg_own), len(neg_own)))
print("figures: Nosey Parker examples, own rule: positives %.1f %% of %d, negatives %.1f %% of %d; "
      "any imported rule: positives %.1f %%, negatives %.1f %%" % (
          rate(pos_own), len(pos_own), rate(neg_own), len(neg_own), rate(pos_any), rate(neg_any)))

# gitleaks: >= 95 % import and build together.
(kept, total), build, _ = import_and_build("gitleaks", GL, "gl")
check(">= 95 % of gitleaks rules import", total > 100 and kept >= 0.95 * total,
      "%d of %d" % (kept, total))
check("the imported gitleaks rules build into one pack", build.returncode == 0, build.stderr[-300:])
print("figures: gitleaks rules imported %d of %d" % (kept, total))

# Provenance, ids, and examples on request.
text = open(os.path.join(out, "noseyparker_slack.yaml")).read()
check("files name their source and licence", "Imported by `dobermanc import noseyparker`" in text
      and "licence applies" in text)
check("ids are prefixed by the source", "imported.noseyparker.np.slack." in text)
r = run(DOBERMANC, "import", "noseyparker", os.path.join(NP, "slack.yml"), "--out",
        os.path.join(work, "ex"), "--with-examples")
check("--with-examples carries match and pass examples",
      "match:" in open(os.path.join(work, "ex", "noseyparker_slack.yaml")).read() and
      "pass:" in open(os.path.join(work, "ex", "noseyparker_slack.yaml")).read(), r.stderr[-200:])

# Malformed input: refused with the place, nothing written.
bad = os.path.join(work, "bad")
os.makedirs(bad)
with open(os.path.join(bad, "broken.yml"), "w") as f:
    f.write("rules:\n- id: x.y\n  pattern: [unclosed\n  name: {\n")
r = run(DOBERMANC, "import", "noseyparker", bad, "--out", os.path.join(work, "bad-out"))
check("a malformed YAML file is refused with file:line:col", r.returncode == 3 and
      re.search(r"broken\.yml:\d+:\d+", r.stderr) is not None, r.stderr[-200:])
check("nothing written for it", not os.path.exists(os.path.join(work, "bad-out")) or
      not [n for n in os.listdir(os.path.join(work, "bad-out")) if n.endswith(".yaml")])
with open(os.path.join(work, "bad.toml"), "w") as f:
    f.write("[[rules]]\nid = \"x\"\nregex = '''abc\n")
r = run(DOBERMANC, "import", "gitleaks", os.path.join(work, "bad.toml"), "--out",
        os.path.join(work, "bad-out2"))
check("a malformed TOML file is refused naming it", r.returncode == 3 and "bad.toml" in r.stderr,
      r.stderr[-200:])
with open(os.path.join(work, "look.toml"), "w") as f:
    f.write("[[rules]]\nid = \"ahead\"\nregex = '''key(?=[0-9]{8})'''\n"
            "[[rules]]\nid = \"named\"\nregex = '''tok_(?P<secret>[a-z0-9]{24})'''\n")
r = run(DOBERMANC, "import", "gitleaks", os.path.join(work, "look.toml"), "--out",
        os.path.join(work, "look"))
check("what Hyperscan cannot take is skipped with the reason, the rest imported",
      "skipped ahead: a lookahead" in r.stderr and "imported 1 of 2" in r.stderr, r.stderr[-300:])

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
