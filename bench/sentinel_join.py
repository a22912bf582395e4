#!/usr/bin/env python3
"""An experiment for issue 17, not a layout the runtime uses: can a command's canonical segments be
scanned with one hs_scan instead of one per segment? Each segment is framed as \\x1e SEGMENT \\x1f
and joined; every command-scope pattern is rewritten so that it cannot see past a frame: `^`/`\\A`
become \\x1e, `\\z`/`$`/`\\Z` become \\x1f, and `.`, negated classes and \\S \\W \\D exclude both
frame bytes. A pattern with a construct the rewrite does not handle is reported and dropped.

  python3 bench/sentinel_join.py PATTERNS.json UNITS.json OUT_PATTERNS.json OUT_UNITS.json
  doberman-hs-cost --patterns OUT_PATTERNS.json --units OUT_UNITS.json --corpus cmd200 --top 0

PATTERNS.json comes from bench/export_patterns.py, UNITS.json from doberman-corpus-bench
--export-units (both written by bench/run under its work directory)."""
import json
import sys

S0, S1 = r"\x1e", r"\x1f"
SAFE_POSIX = {"[:alpha:]", "[:digit:]", "[:alnum:]", "[:upper:]", "[:lower:]", "[:space:]", "[:xdigit:]"}


def char_value(atom):
    if atom.startswith("\\x"):
        return int(atom[2:4], 16)
    if len(atom) == 1:
        return ord(atom)
    return {"\\t": 9, "\\n": 10}.get(atom)


def rewrite_class(rx, i):
    """The class starting at rx[i] == '[': (rewritten text, index after it), or None."""
    j = i + 1
    negated = j < len(rx) and rx[j] == "^"
    if negated:
        j += 1
    atoms = []
    if j < len(rx) and rx[j] == "]":
        atoms.append("\\]")
        j += 1
    while j < len(rx) and rx[j] != "]":
        if rx[j] == "\\":
            atom = rx[j:j + 4] if rx[j + 1] == "x" else rx[j:j + 2]
        elif rx[j:j + 2] == "[:":
            atom = rx[j:rx.index(":]", j) + 2]
        else:
            atom = rx[j]
        atoms.append(atom)
        j += len(atom)
    body = "".join(atoms)
    if negated:
        return "[^" + S0 + S1 + body + "]", j + 1
    for k, atom in enumerate(atoms):  # a positive class must not admit a frame byte
        if atom in ("\\S", "\\W", "\\D", "\\H", "\\V") or (atom.startswith("[:") and atom not in SAFE_POSIX):
            return None
        if atom.startswith("\\x") and atom[2:4].lower() in ("1e", "1f"):
            return None
        if k + 2 < len(atoms) and atoms[k + 1] == "-":
            lo, hi = char_value(atom), char_value(atoms[k + 2])
            if lo is None or hi is None or (lo <= 0x1F and hi >= 0x1E):
                return None
    return "[" + body + "]", j + 1


def rewrite(rx, flags):
    out, i = [], 0
    dotall = bool(flags & 2)
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            e = rx[i + 1]
            if e in "zZA":
                out.append({"z": S1, "Z": r"\n?" + S1, "A": S0}[e])
            elif e in "SWD":
                out.append("[^\\" + e.lower() + S0 + S1 + "]")
            elif e in "HVNpPQEc123456789" or (e == "x" and rx[i + 2:i + 4].lower() in ("1e", "1f")):
                return None
            elif e == "x":
                out.append(rx[i:i + 4])
                i += 4
                continue
            else:
                out.append(rx[i:i + 2])
            i += 2
        elif c == "^":
            out.append(S0)
            i += 1
        elif c == "$":
            out.append(r"\n?" + S1)
            i += 1
        elif c == ".":
            out.append("[^" + S0 + S1 + ("" if dotall else r"\n") + "]")
            i += 1
        elif c == "[":
            done = rewrite_class(rx, i)
            if done is None:
                return None
            out.append(done[0])
            i = done[1]
        else:
            out.append(c)
            i += 1
    return "".join(out)


def main():
    patterns_in, units_in, patterns_out, units_out = sys.argv[1:5]
    pj = json.load(open(patterns_in))
    kept = []
    for p in pj["scopes"]["command"]:
        r = rewrite(p["regex"], p["flags"])
        if r is None:
            print("not rewritten:", p["rule"], p["regex"][:80], file=sys.stderr)
            continue
        kept.append(dict(p, regex=r))
    print(f"{len(kept)} of {len(pj['scopes']['command'])} command patterns rewritten", file=sys.stderr)
    pj["scopes"]["command"] = kept
    json.dump(pj, open(patterns_out, "w"))
    units = json.load(open(units_in))
    for payloads in units["corpora"].values():
        for payload in payloads:
            segments = [t for s, t in payload["units"] if s == "command"]
            payload["units"] = [[s, t] for s, t in payload["units"] if s != "command"]
            if segments:
                payload["units"].append(["command", "".join("\x1e" + t + "\x1f" for t in segments)])
    json.dump(units, open(units_out, "w"))


if __name__ == "__main__":
    main()
