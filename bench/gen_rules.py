#!/usr/bin/env python3
"""Generates N realistic-looking Doberman rules (YAML) for the growth benchmark. Never commit the output.

The mix follows what real packs hold: secret shapes (vendor prefix + charset run, some with entropy
validators, some decoded), generic `key = value` credential templates (the costly gitleaks-style shape),
command rules over canonical segments (tool + verb + flags), egress hosts over the raw command, sensitive
paths, and turn signatures. Names are synthetic (random prefixes and hosts), so that Hyperscan cannot merge
them away and they rarely fire on ordinary text, as in a real pack.

usage: gen_rules.py --count N --out FILE [--seed S]
"""
import argparse
import random
import string

TOOLS = ["kubectl", "terraform", "aws", "gcloud", "az", "docker", "helm", "git", "npm", "pip", "cargo",
         "systemctl", "psql", "mysql", "redis-cli", "mongosh", "ansible", "vault", "gh", "heroku", "flyctl",
         "doctl", "pulumi", "nomad", "consul", "etcdctl", "gsutil", "rclone", "s3cmd", "firebase", "vercel",
         "netlify", "wrangler", "supabase", "prisma", "alembic", "rake", "mix", "dotnet", "podman"]
VERBS = ["delete", "destroy", "drop", "rm", "purge", "reset", "prune", "uninstall", "publish", "push", "apply",
         "scale", "rollback", "revoke", "truncate", "wipe", "terminate", "detach", "disable", "force-unlock",
         "migrate", "deploy", "release", "expose", "import", "taint", "cordon", "drain", "evict", "flush"]
FLAGS = ["force", "all", "recursive", "yes", "auto-approve", "purge", "prune", "no-verify", "hard", "cascade",
         "grace-period=0", "skip-checks", "confirm", "now", "ignore-errors", "insecure", "privileged"]
NOUNS = ["instructions", "rules", "guidelines", "directives", "constraints", "policies", "context", "orders",
         "prompt", "configuration", "guardrails", "safeguards", "restrictions", "settings", "messages"]
IGNORE = ["ignore", "disregard", "forget", "override", "bypass", "skip", "drop", "discard", "erase", "void"]
WORDS = ["service", "deploy", "billing", "stripe", "twilio", "mailgun", "sentry", "datadog", "segment",
         "algolia", "okta", "auth0", "pagerduty", "newrelic", "mapbox", "linear", "notion", "airtable",
         "shopify", "zendesk", "hubspot", "intercom", "braintree", "plaid", "square", "paypal", "cloudinary"]
TLDS = ["com", "io", "net", "dev", "xyz", "ru", "top", "cc", "app", "cloud"]


def word(rng, lo=3, hi=7):
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(lo, hi)))


def q(s):
    return "'" + s.replace("'", "''") + "'"


def secret_prefix(rng, i):
    kind = rng.random()
    charset = rng.choice(["A-Za-z0-9", "A-Za-z0-9_", "a-f0-9", "A-Z0-9", "A-Za-z0-9_-"])
    n = rng.choice([20, 24, 32, 36, 40, 43, 48, 64])
    if kind < 0.6:
        pre = word(rng, 2, 5) + rng.choice(["_", "-", "_live_", "_pat_", "-key-"])
        return r"\b" + pre + "[" + charset + "]{" + str(n) + r"}\b"
    if kind < 0.85:
        pre = "".join(rng.choice(string.ascii_uppercase) for _ in range(4))
        return r"\b" + pre + "[" + charset + "]{" + str(n - 4) + r"}\b"
    pre = word(rng, 3, 6)
    return pre + r"\.[A-Za-z0-9_-]{" + str(n // 2) + r"}\.[A-Za-z0-9_-]{" + str(n) + "}"


def generic_secret(rng):
    w = rng.choice(WORDS) + rng.choice(["", "_" + word(rng, 2, 4)])
    return (r"(?i)\b" + w + r"(?:[_-]?(?:api|secret|token|key|auth))[\w.-]{0,20}\s*(?:=|:|:=)\s*['\"]?"
            r"([A-Za-z0-9/+_=-]{20,64})['\"]?")


def rule_secret(rng, i):
    lines = [f"  - id: gen.secret.s{i}", "    family: secret", "    scopes: [any]",
             f"    patterns: [{q(secret_prefix(rng, i))}]",
             "    verdict: AUTH", "    reason: secret_generated", "    message: a generated credential shape",
             "    tags: [secret]"]
    if rng.random() < 0.3:
        lines.append("    decode: true")
    if rng.random() < 0.15:
        lines += ["    validators:", "      min_entropy: 3.0"]
    return lines


def rule_generic(rng, i):
    return [f"  - id: gen.secret.g{i}", "    family: secret", "    scopes: [any]",
            f"    patterns: [{q(generic_secret(rng))}]",
            "    verdict: AUTH", "    reason: secret_assignment", "    message: a generated key assignment",
            "    tags: [secret]"]


def rule_command(rng, i):
    tool, verb = rng.choice(TOOLS), rng.choice(VERBS)
    res = word(rng, 3, 8)
    pat = "^" + tool.replace("-", r"\-") + r"\s+(?:\S+\s+)*" + verb + r"\s+(?:\S+\s+)*" + res
    lines = [f"  - id: gen.command.c{i}", "    family: destructive", "    scopes: [command]",
             f"    patterns: [{q(pat)}]"]
    if rng.random() < 0.5:
        flag = r"\s--" + rng.choice(FLAGS) + r"(\s|=|$)"
        lines.append("    all: [" + q(flag) + "]")
    if rng.random() < 0.2:
        lines.append("    none: [" + q(r"\s--dry-run(\s|=|$)") + "]")
    verdict = "BLOCK" if rng.random() < 0.3 else "AUTH"
    lines += [f"    verdict: {verdict}", "    reason: destructive_generated",
              "    message: a generated destructive command", "    tags: [destructive]"]
    return lines


def rule_egress(rng, i):
    host = word(rng, 4, 9) + r"\." + rng.choice(TLDS)
    pat = r"\b(?:curl|wget|nc|scp|rsync|ssh)\b.*\b" + host + r"\b"
    return [f"  - id: gen.egress.e{i}", "    family: egress", "    scopes: [command_text]",
            f"    patterns: [{q(pat)}]", "    verdict: AUTH", "    reason: egress_generated",
            "    message: a generated egress destination", "    tags: [egress]"]


def rule_path(rng, i):
    if rng.random() < 0.5:
        pat = r"(^|/)\.?" + word(rng, 3, 8) + r"(/|$)"
    else:
        pat = r"\." + word(rng, 2, 5) + "$"
    return [f"  - id: gen.path.p{i}", "    family: path", "    scopes: [path]", f"    patterns: [{q(pat)}]",
            "    verdict: AUTH", "    reason: path_generated", "    message: a generated sensitive path"]


def rule_turn(rng, i):
    a, b = rng.sample(IGNORE, 2)
    pat = (r"\b(?:" + a + "|" + b + r")\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier)\s+"
           + rng.choice(NOUNS) + r"\s+" + word(rng, 3, 7) + r"\b")
    return [f"  - id: gen.turn.t{i}", "    family: turn", "    scopes: [prompt]", f"    patterns: [{q(pat)}]",
            "    verdict: AUTH", "    reason: turn_generated", "    message: a generated turn signature"]


MIX = [(0.40, rule_secret), (0.08, rule_generic), (0.32, rule_command), (0.08, rule_egress),
       (0.06, rule_path), (0.06, rule_turn)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=6)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    out = ["# Generated by bench/gen_rules.py for the growth benchmark. Do not commit.", "rules:"]
    for i in range(a.count):
        x, acc = rng.random(), 0.0
        for share, fn in MIX:
            acc += share
            if x < acc or fn is MIX[-1][1]:
                out += fn(rng, i)
                break
    if a.count == 0:
        out[-1] = "rules: []"
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
