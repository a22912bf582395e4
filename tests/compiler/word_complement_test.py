#!/usr/bin/env python3
"""The generated fragments of packs/default.yaml and rules/ are what scripts/word-complement-regex prints.

Each `# generated: scripts/word-complement-regex ARGS` comment is followed, after any other
comment lines, by the fragment it made. The script is run again with those arguments and its
output must equal the fragment; and the fragment, read as a caseless regex, must match every
string of its alphabet except the words (checked on the words, their prefixes and extensions, and
random strings of their letters). A `--prefix-length N` fragment must match, case-sensitively,
every N-character string of its alphabet that begins with none of the words in either case.
"""
import os
import random
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pack_sources():
    yield os.path.join(ROOT, "packs", "default.yaml")
    for folder, _, files in sorted(os.walk(os.path.join(ROOT, "rules"))):
        for name in sorted(files):
            if name.endswith((".yaml", ".yml")):
                yield os.path.join(folder, name)


def generated_fragments():
    for source in pack_sources():
        yield from fragments_of(source)


def fragments_of(source):
    lines = open(source, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        marker = line.strip()
        if not marker.startswith("# generated: scripts/word-complement-regex "):
            continue
        j = i + 1
        while lines[j].strip().startswith("#"):
            j += 1
        name, _, value = lines[j].strip().partition(": ")
        assert value.startswith("'") and value.endswith("'"), lines[j]
        yield name, shlex.split(marker[len("# generated: "):]), value[1:-1].replace("''", "'")


def check(name, argv, fragment):
    out = subprocess.run([os.path.join(ROOT, argv[0])] + argv[1:], capture_output=True, text=True,
                         check=True).stdout.strip()
    if out != fragment:
        sys.exit("%s is not what `%s` prints now: regenerate it" % (name, " ".join(argv)))
    if "--prefix-length" in argv:
        return check_prefixes(name, argv, fragment)
    alphabet = argv[argv.index("--alphabet") + 1]
    words = argv[argv.index("--alphabet") + 2:]
    words = {w.lower() for w in (words[1:] if words[:1] == ["--"] else words)}  # `--`: words start with -
    regex = re.compile(fragment, re.IGNORECASE)
    in_alphabet = re.compile(alphabet + "*")
    letters = sorted(set("".join(words))) + ["x", "1", "_", "-"]
    samples = set(words) | {w.upper() for w in words} | {w[:k] for w in words for k in range(len(w))}
    samples |= {w + tail for w in words for tail in ("s", ".bak", ".local", "1")}
    rng = random.Random(11)
    for _ in range(20000):
        samples.add("".join(rng.choice(letters) for _ in range(rng.randint(0, 10))))
    checked = 0
    for s in samples:
        if not in_alphabet.fullmatch(s):
            continue
        checked += 1
        if bool(regex.fullmatch(s)) != (s.lower() not in words):
            sys.exit("%s: %r is %s" % (name, s, "matched" if regex.fullmatch(s) else "not matched"))
    assert checked > 1000, checked
    return checked


def check_prefixes(name, argv, fragment):
    args, words = argv[1:], []
    while args:  # options and their values, then the words
        if args[0] in ("--alphabet", "--prefix-length"):
            args = args[2:]
        else:
            words.append(args.pop(0).lower())
    words = [w for w in words if w != "--"]
    length = int(argv[argv.index("--prefix-length") + 1])
    alphabet = argv[argv.index("--alphabet") + 1]
    regex = re.compile(fragment)
    members = [chr(c) for c in range(32, 127) if re.fullmatch(alphabet, chr(c))]
    rng = random.Random(11)
    samples = set()
    for w in words:
        for k in range(len(w) + 1):
            for variant in (w[:k], w[:k].upper()):
                for _ in range(200):
                    samples.add(variant + "".join(rng.choice(members) for _ in range(length - k)))
    for _ in range(20000):
        samples.add("".join(rng.choice(members) for _ in range(rng.randint(length - 1, length + 1))))
    for s in samples:
        expected = len(s) == length and not s.lower().startswith(tuple(words))
        if bool(regex.fullmatch(s)) != expected:
            sys.exit("%s: %r is %s" % (name, s, "matched" if regex.fullmatch(s) else "not matched"))
    assert len(samples) > 1000, len(samples)
    return len(samples)


def main():
    found = 0
    for name, argv, fragment in generated_fragments():
        print("%s: %d strings checked" % (name, check(name, argv, fragment)))
        found += 1
    if found == 0:
        sys.exit("no generated fragment in packs/default.yaml or rules/")


if __name__ == "__main__":
    main()
