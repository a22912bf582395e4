#!/usr/bin/env python3
"""Differential test of the two database layouts (issue 17): the default pack compiled per scope
(one database per scope, the default) and by rule scopes (one database per exact set of scopes a
rule serves, the layout of earlier packs) must decide every payload the same.

Payloads: every case in tests/cases (1,800+, hosts, turns, tool output), the benchmark workloads
(bench/make_corpus.py: 200-byte commands, prompts, 4 KiB and 1 MiB writes), and each case's shell
command joined with the next one's in three ways (`A && B`, `A; B | cat`, `B || A`), so that rules
meet segments that match in another segment of the same call. For each payload the verdict,
status, reasons, rules and hit locations (field, unit, span, decoded) must agree; hit fingerprints
are left out (each process keys them with its own random key).

usage: layout_differential_test.py DOBERMANC DOBERMAN_GUARD
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build(dobermanc, key, out, layout):
    subprocess.run([dobermanc, "build", os.path.join(ROOT, "packs"), "--key", key, "--out", out,
                    "--layout", layout], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(out, "default.dpack")


def joined_commands(commands):
    """Bash payloads whose commands are two case commands joined."""
    lines = []
    for n, (a, b) in enumerate(zip(commands, commands[1:] + commands[:1])):
        for k, joined in enumerate((a + " && " + b, a + "; " + b + " | cat", b + " || " + a)):
            lines.append(json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                                     "tool_input": {"command": joined},
                                     "id": "joined:%d:%d" % (n, k)}, ensure_ascii=True))
    return lines


def payload_lines(work):
    lines = []
    commands = []
    cases_dir = os.path.join(ROOT, "tests", "cases")
    for name in sorted(os.listdir(cases_dir)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(cases_dir, name), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    case = json.loads(line)
                    payload = dict(case["input"])
                    payload["id"] = "%s:%d" % (name, n)
                    lines.append(json.dumps(payload, ensure_ascii=True))
                    command = (payload.get("tool_input") or {}).get("command")
                    if isinstance(command, str) and command and "\n" not in command:
                        commands.append(command)
    lines += joined_commands(commands)
    corpus = os.path.join(work, "corpus")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_corpus.py"), corpus], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for name in sorted(os.listdir(corpus)):
        with open(os.path.join(corpus, name), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    payload = json.loads(line)
                    payload = payload.get("input", payload)
                    payload["id"] = "%s:%d" % (name, n)
                    lines.append(json.dumps(payload, ensure_ascii=True))
    return lines


def decide(guard, pack, pub, lines):
    proc = subprocess.run([guard, "check", "--pack", pack, "--pubkey", pub],
                          input=("\n".join(lines) + "\n").encode(), stdout=subprocess.PIPE, check=True)
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    if len(answers) != len(lines):
        raise SystemExit("guard answered %d lines for %d payloads" % (len(answers), len(lines)))
    for a in answers:
        for hit in a.get("hits", []):
            hit.pop("fingerprint", None)
    return answers


def main():
    dobermanc, guard = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([dobermanc, "keygen", "--out", os.path.join(work, "k")], check=True,
                       stdout=subprocess.DEVNULL)
        key, pub = os.path.join(work, "k.key"), os.path.join(work, "k.pub")
        per_scope = build(dobermanc, key, os.path.join(work, "per-scope"), "per-scope")
        by_rule = build(dobermanc, key, os.path.join(work, "by-rule"), "by-rule-scopes")
        lines = payload_lines(work)
        a = decide(guard, per_scope, pub, lines)
        b = decide(guard, by_rule, pub, lines)
        differ = [(x, y) for x, y in zip(a, b) if x != y]
        verdicts = {}
        for x in a:
            verdicts[x["verdict"]] = verdicts.get(x["verdict"], 0) + 1
        print("%d payloads, verdicts %s, %d differ" % (len(a), verdicts, len(differ)))
        for x, y in differ[:10]:
            print("per-scope:      %s\nby-rule-scopes: %s" % (json.dumps(x), json.dumps(y)))
        # Guard against a vacuous pass: the corpora must exercise every verdict.
        if len(a) < 1000 or set(verdicts) != {"PASS", "AUTH", "BLOCK"}:
            print("the payloads do not exercise every verdict")
            return 1
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
