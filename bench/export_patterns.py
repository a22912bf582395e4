#!/usr/bin/env python3
"""Exports a pack's per-scope pattern sets for the peers, from `dobermanc inspect PACK --json`.

Each scope gets every pattern of every rule whose scopes include it, in pack order: exactly the list the
compiler hands to Hyperscan for that scope's database (compiler/src/hs_builder.cc). Flags are Hyperscan flag
bits as the pack records them (caseless 1, dotall 2, multiline 4, utf8 32, ucp 64).

usage: export_patterns.py INSPECT.json OUT.json      (INSPECT.json: `dobermanc inspect PACK --json` output)
"""
import json
import sys

SCOPES = ["tool", "command", "command_text", "path", "content", "url", "args", "prompt", "prompt_text"]


ORDER = {"PASS": 0, "AUTH": 1, "BLOCK": 2}


def every_match(rule, pattern):
    """Whether the compiler leaves SINGLEMATCH off this pattern (compiler/src/checker.cc, the
    `every_match` loop): an any-pattern of a rule with validators, a mention cap below its verdict
    or excuse patterns reports every match, so each can be judged."""
    v = rule.get("validators") or {}
    validated = (v.get("min_entropy", 0) > 0 or v.get("min_length", 0) > 0 or v.get("placeholder")
                 or v.get("exempt_hashes") or v.get("exempt_identifiers"))
    capped = ORDER.get(rule.get("mention", "BLOCK"), 2) < ORDER.get(rule.get("verdict", "PASS"), 0)
    excused = any(q.get("role") == "excuse" for q in rule.get("patterns", []))
    return pattern.get("role", "any") == "any" and bool(validated or capped or excused)


def main():
    with open(sys.argv[1]) as f:
        pack = json.load(f)
    scopes = {s: [] for s in SCOPES}
    patterns = 0
    for rule in pack["rules"]:
        names = [s for s in rule.get("scopes", "").split(",") if s]
        for p in rule.get("patterns", []):
            for s in names:
                if s in scopes:
                    scopes[s].append({"id": patterns, "regex": p["regex"], "flags": int(p.get("flags", 0)),
                                      "role": p.get("role", "any"), "rule": rule["id"],
                                      "som": bool(p.get("som", False)),
                                      "every_match": every_match(rule, p)})
            patterns += 1
    # The pack's databases (one platform variant): which scopes each serves. A database may serve several
    # scopes (the union of their patterns); peers still get each scope's own list, which favours them.
    databases, platform = [], None
    for d in pack["header"].get("databases", []):
        platform = platform or d.get("platform")
        if d.get("platform") != platform:
            continue
        names = [s for s in d["scope"].split(",") if s]
        # Pattern indices (pack order) exactly as compiled into this database, when inspect lists them.
        ids = d.get("ids")
        if ids is None:
            ids = sorted({p["id"] for s in names for p in scopes.get(s, [])})
        if len(ids) != d.get("patterns", len(ids)):
            print("export_patterns: database %s: %d patterns in the pack, %d reconstructed"
                  % (d["scope"], d.get("patterns", 0), len(ids)), file=sys.stderr)
        databases.append({"scopes": names, "patterns": d.get("patterns"), "bytes": d.get("bytes"),
                          "platform": platform, "ids": ids, "conditional": bool(d.get("conditional"))})
    out = {"pack": pack["header"]["name"], "rule_count": len(pack["rules"]), "pattern_count": patterns,
           "file_bytes": pack["header"].get("size"), "database_bytes": pack["header"].get("database_bytes"),
           "databases": databases, "scopes": {s: v for s, v in scopes.items() if v}}
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
