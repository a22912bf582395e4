"""Hyperscan-syntax patterns for Python's `re`, the engine the original Doberman decides with.

translate(regex, flags) -> (pattern, re_flags) or raises ValueError(why). Handles what Python lacks or spells
differently: POSIX classes, \\Q..\\E, \\x{...}, \\z/\\Z, \\h, \\e, (?<name>...), and the Hyperscan flags
(caseless, dotall, multiline; without ucp, \\w \\d \\s \\b are ASCII as in Hyperscan: re.ASCII).
Anything else Python rejects surfaces as re.error when compiling and is reported, never dropped silently.
"""
import re

HS_CASELESS, HS_DOTALL, HS_MULTILINE, HS_UTF8, HS_UCP = 1, 2, 4, 32, 64

POSIX = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
         "space": r"\s", "xdigit": "0-9A-Fa-f", "word": r"\w", "blank": r" \t",
         "punct": r"!-/:-@\[-`{-~", "cntrl": r"\x00-\x1f\x7f", "print": " -~", "graph": "!-~"}


def translate(regex, flags):
    out = []
    i, n, in_class = 0, len(regex), False
    while i < n:
        c = regex[i]
        if c == "\\" and i + 1 < n:
            d = regex[i + 1]
            if d == "Q":
                end = regex.find("\\E", i + 2)
                lit = regex[i + 2:] if end < 0 else regex[i + 2:end]
                out.append(re.escape(lit))
                i = n if end < 0 else end + 2
                continue
            if d == "x" and i + 2 < n and regex[i + 2] == "{":
                end = regex.find("}", i + 3)
                if end < 0:
                    raise ValueError("bad \\x{...}")
                v = int(regex[i + 3:end], 16)
                out.append("\\x%02x" % v if v < 0x100 else "\\u%04x" % v if v < 0x10000 else "\\U%08x" % v)
                i = end + 1
                continue
            rep = {"z": r"\Z", "Z": r"(?=\n?\Z)", "h": r"[ \t]", "e": r"\x1b"}.get(d)
            if rep is not None and not in_class:
                out.append(rep)
                i += 2
                continue
            if d in ("R", "K", "G", "X", "C"):
                raise ValueError("escape \\" + d + " has no Python equivalent")
            out.append(regex[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "[" and regex.startswith("[:", i):
                end = regex.find(":]", i + 2)
                name = regex[i + 2:end] if end >= 0 else ""
                if name not in POSIX:
                    raise ValueError("unknown POSIX class")
                out.append(POSIX[name])
                i = end + 2
                continue
            if c == "[":
                out.append("\\[")  # a literal '[' inside a class (Python warns on nested sets)
                i += 1
                continue
            if c == "]" and i > class_start:
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and regex[i] == "^":
                out.append("^")
                i += 1
            class_start = i
            if i < n and regex[i] == "]":
                out.append("\\]")
                i += 1
            continue
        if regex.startswith("(?<", i) and i + 3 < n and regex[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        out.append(c)
        i += 1
    re_flags = 0
    if flags & HS_CASELESS:
        re_flags |= re.IGNORECASE
    if flags & HS_DOTALL:
        re_flags |= re.DOTALL
    if flags & HS_MULTILINE:
        re_flags |= re.MULTILINE
    if not flags & HS_UCP:
        re_flags |= re.ASCII
    return "".join(out), re_flags


def compile_sets(patterns_json):
    """-> ({scope: [compiled]}, total, compiled_count, failures[str])."""
    sets, total, ok, failures = {}, 0, 0, []
    for scope, plist in patterns_json["scopes"].items():
        compiled = []
        for p in plist:
            total += 1
            try:
                pat, fl = translate(p["regex"], p.get("flags", 0))
                compiled.append(re.compile(pat, fl))
                ok += 1
            except (ValueError, re.error) as e:
                failures.append("%s: %s: %s" % (scope, p["regex"], e))
        sets[scope] = compiled
    return sets, total, ok, failures
