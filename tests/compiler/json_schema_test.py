#!/usr/bin/env python3
"""docs/schema/rules.schema.json and docs/schema/manifest.schema.json (editor support) say what the
compiler says. Usage: json_schema_test.py DOBERMANC SOURCE_DIR

a. Field tables: at every object level of the schemas, a document with an unknown field is given to
   `dobermanc convert --to dsl` (parse only, no key); the "known fields: ..." note of its E2104 must
   name exactly the schema's properties at that level (limits, which the checker reads, are compared
   with the E2103 "expected one of" list of `dobermanc test`). Fixed value sets (families, verdicts,
   scopes, flags, origins, exemptions, platforms) are compared the same way with the compiler's
   E2103 lists. At each level a small valid document passes both the compiler and the schema, and
   dropping any field the schema requires makes both refuse it.
b. Every rule file and manifest under rules/, packs/ and tests/data/, the manifest of
   tests/dsl/data, the YAML examples in docs/rules.md, and every other YAML file under tests/ that
   `dobermanc test` accepts on its own, validates against its schema.
c. Deliberately wrong documents are refused by both the schema and the compiler; documents written
   in the compiler's looser forms (numbers as strings, yes/no, a single value for a list) are
   accepted by both.
A self-test first removes a property, an enum value and a required field from an in-memory copy of
the schemas and checks that the comparison names each. YAML is read as YAML 1.2 (core schema),
like yaml-language-server: `yes` and 2027-06-30 are strings.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("FAIL: the Python module jsonschema is missing: run scripts/install-deps "
          "(Debian package python3-jsonschema)")
    sys.exit(1)
try:
    import yaml
except ImportError:
    print("FAIL: the Python module yaml is missing: run scripts/install-deps "
          "(Debian package python3-yaml)")
    sys.exit(1)

if len(sys.argv) != 3:
    print("usage: json_schema_test.py DOBERMANC SOURCE_DIR")
    sys.exit(2)
DOBERMANC = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
UNKNOWN = "zz_unknown_field"
BAD = "zz_bad_value"
problems = []


# ---- YAML 1.2 core schema ----------------------------------------------------------------------
class Yaml12Loader(yaml.SafeLoader):
    """PyYAML resolves YAML 1.1 (yes/no/on/off are booleans, dates are dates); yaml-language-server
    and the YAML 1.2 core schema do not."""


Yaml12Loader.yaml_implicit_resolvers = {}
for _tag, _regex, _first in [
        ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
        ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
        ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                  r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
        ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])]:
    Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:" + _tag, re.compile(_regex),
                                       list(_first))


def _construct_int(loader, node):
    v = loader.construct_scalar(node)
    if v.startswith("0o"):
        return int(v[2:], 8)
    if v.startswith("0x"):
        return int(v[2:], 16)
    return int(v, 10)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load_yaml(text):
    return yaml.load(text, Loader=Yaml12Loader)


# ---- schemas -----------------------------------------------------------------------------------
def read_schema(name):
    with open(os.path.join(ROOT, "docs", "schema", name + ".schema.json")) as f:
        return json.load(f)


SCHEMAS = {"rules": read_schema("rules"), "manifest": read_schema("manifest")}


def at(schema, pointer):
    node = schema
    for part in pointer.split("/")[1:]:
        node = node[part]
    return node


def schema_errors(schema, doc):
    validator = jsonschema.Draft7Validator(schema)
    return sorted(e.message for e in validator.iter_errors(doc))


def object_levels(node, pointer=""):
    """JSON pointers of every object schema (type: object) in a schema."""
    found = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(pointer)
        for k, v in node.items():
            found += object_levels(v, pointer + "/" + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            found += object_levels(v, pointer + "/" + str(i))
    return found


def compare(what, schema_names, compiler_names):
    """Problems when the schema's names and the compiler's differ (empty when they agree)."""
    schema_names, compiler_names = set(schema_names), set(compiler_names)
    out = []
    if compiler_names - schema_names:
        out.append("%s: the compiler accepts %s, the schema does not" %
                   (what, ", ".join(sorted(compiler_names - schema_names))))
    if schema_names - compiler_names:
        out.append("%s: the schema has %s, the compiler does not" %
                   (what, ", ".join(sorted(schema_names - compiler_names))))
    return out


# ---- documents ---------------------------------------------------------------------------------
# A value the validators keep (not a placeholder, 3 bits of entropy per byte).
RULE = {"id": "t.min", "family": "command", "scopes": ["command"], "patterns": ["k7Qz2Xw9"],
        "verdict": "AUTH", "reason": "t_min", "message": "a test rule",
        "examples": {"match": ["k7Qz2Xw9 now"], "pass": ["ls"]}}
PACK = {"name": "t", "version": "1.0.0", "revision": 1}
MANIFEST = {"pack": PACK, "include": ["rules.yaml"]}


def with_rule(**fields):
    rule = dict(RULE)
    rule.update(fields)
    return {"rules": [rule]}


def to_yaml(doc):
    # Top-level keys in block style (`dobermanc test` finds manifests by a `pack:` line), values as
    # JSON, which is YAML too. A string is YAML text already.
    if isinstance(doc, str):
        return doc
    return "".join("%s: %s\n" % (k, json.dumps(v)) for k, v in doc.items())


# Every object level of the schemas: what the compiler calls it, where it is in the schema, a
# valid object at that level and the whole document that holds it.
LEVELS = [
    ("a rule file", "rules", "", {"rules": [RULE]}, lambda o: o),
    ("a rule", "rules", "/definitions/rule", RULE, lambda o: {"rules": [o]}),
    ("a pattern", "rules", "/definitions/patternObject",
     {"regex": "k7Qz2Xw9", "flags": ["caseless"]},
     lambda o: with_rule(patterns=[o])),
    ("validators", "rules", "/definitions/validators", {"min_length": 3, "placeholder": True},
     lambda o: with_rule(validators=o)),
    ("examples", "rules", "/definitions/examples", {"match": ["k7Qz2Xw9"], "pass": ["ls"]},
     lambda o: with_rule(examples=o)),
    ("an example call", "rules", "/definitions/call", {"tool": "Bash", "command": "k7Qz2Xw9"},
     lambda o: with_rule(examples={"match": [o]})),
    ("shell tables", "rules", "/definitions/shell", {"shells": ["sh"], "split_flags": ["rm"]},
     lambda o: {"shell": o, "rules": [RULE]}),
    ("a wrapper", "rules", "/definitions/wrapper",
     {"name": "zzwrap", "value_options": ["-x"], "positional": 1},
     lambda o: {"shell": {"wrappers": [o]}, "rules": [RULE]}),
    ("an alias", "rules", "/definitions/alias", {"command": "rm", "from": "--x", "to": "-x"},
     lambda o: {"shell": {"aliases": [o]}, "rules": [RULE]}),
    ("a pack manifest", "manifest", "", MANIFEST, lambda o: o),
    ("pack", "manifest", "/definitions/pack", PACK, lambda o: dict(MANIFEST, pack=o)),
    # Not a field table of the YAML reader: the checker names the limits (E2103 "invalid limit").
    ("limits", "manifest", "/definitions/limits", {"max_depth": 32},
     lambda o: dict(MANIFEST, limits=o)),
]
CHECKER_LEVELS = {"limits": "limit"}
# Maps whose keys the author names (fragment names), not field tables: their names are a pattern,
# their values a schema of their own; the refused and loose documents below cover them.
NAMED_MAPS = {("rules", "/properties/define"), ("manifest", "/properties/define")}

# Fixed value sets: the document that puts BAD there, the compiler's name for the value
# ("invalid NAME '...'") and where the schema lists the values.
ENUMS = [
    ("rules", with_rule(family=BAD), "family", "/definitions/rule/properties/family/enum"),
    ("rules", with_rule(verdict=BAD), "verdict", "/definitions/verdict/enum"),
    ("rules", with_rule(scopes=["prompt"], mention=BAD), "mention verdict",
     "/definitions/verdict/enum"),
    ("rules", with_rule(scopes=[BAD]), "scope", "/definitions/scope/enum"),
    ("rules", with_rule(patterns=[{"regex": "k7Qz2Xw9", "flags": [BAD]}]), "pattern flag",
     "/definitions/flag/enum"),
    ("rules", with_rule(scopes=["prompt"], origins=[BAD]), "origin", "/definitions/origin/enum"),
    ("rules", with_rule(examples={"match": [{"prompt": "k7Qz2Xw9", "origin": BAD}]}), "origin",
     "/definitions/origin/enum"),
    ("rules", with_rule(validators={"exempt": [BAD]}), "exemption", "/definitions/exemption/enum"),
    ("manifest", dict(MANIFEST, platforms=[BAD]), "platform", "/definitions/platform/enum"),
]

# Refused by both the compiler and the schema.
WRONG = [
    ("unknown field in a rule", "rules", with_rule(verdit="AUTH")),
    ("unknown field at the top of a rule file", "rules", {"rules": [RULE], "pack": PACK}),
    ("bad verdict", "rules", with_rule(verdict="DENY")),
    ("lower-case verdict", "rules", with_rule(verdict="block")),
    ("bad scope", "rules", with_rule(scopes=["commands"])),
    ("bad scope as a single value", "rules", with_rule(scopes="everything")),
    ("bad family", "rules", with_rule(family="secrets")),
    ("bad pattern flag", "rules", with_rule(patterns=[{"regex": "k7Qz2Xw9", "flags": "nocase"}])),
    ("pattern mapping without regex", "rules", with_rule(patterns=[{"flags": ["caseless"]}])),
    ("empty pattern", "rules", with_rule(patterns=[""])),
    ("tier 2", "rules", with_rule(tier=2)),
    ("tier 1 that blocks", "rules", with_rule(tier=1, verdict="BLOCK")),
    ("rule id that is not dotted lower-case", "rules", with_rule(id="Odd Id")),
    ("AUTH rule without a reason", "rules", {"rules": [{k: v for k, v in RULE.items()
                                                       if k != "reason"}]}),
    ("rule with patterns but no scopes", "rules", {"rules": [{k: v for k, v in RULE.items()
                                                             if k != "scopes"}]}),
    ("rule with neither patterns nor when", "rules",
     {"rules": [{k: v for k, v in RULE.items() if k not in ("patterns", "examples")}]}),
    ("decode that is not a boolean", "rules", with_rule(decode="maybe")),
    ("mention_marker of no known kind", "rules", with_rule(scopes=["prompt"], mention_marker="after")),
    ("unknown exemption", "rules", with_rule(validators={"exempt": "uuids"})),
    ("min_entropy above 8", "rules", with_rule(validators={"min_entropy": 9})),
    ("min_entropy nan", "rules", with_rule(validators={"min_entropy": "nan"})),
    ("example call with an unknown field", "rules",
     with_rule(examples={"match": [{"tool": "Bash", "cmd": "k7Qz2Xw9"}]})),
    ("alias without to", "rules", {"shell": {"aliases": [{"command": "rm", "from": "-R"}]},
                                   "rules": [RULE]}),
    ("wrapper positional 9", "rules", {"shell": {"wrappers": [{"name": "w", "positional": 9}]},
                                       "rules": [RULE]}),
    ("unknown manifest field", "manifest", dict(MANIFEST, rules=[RULE])),
    ("unknown pack field", "manifest", dict(MANIFEST, pack=dict(PACK, author="me"))),
    ("version that is not semver", "manifest", dict(MANIFEST, pack=dict(PACK, version="1.0"))),
    ("revision 0", "manifest", dict(MANIFEST, pack=dict(PACK, revision=0))),
    ("expiry that is not a date", "manifest", dict(MANIFEST, pack=dict(PACK, expires="next year"))),
    ("upper-case pack name", "manifest", dict(MANIFEST, pack=dict(PACK, name="Default"))),
    ("unknown limit", "manifest", dict(MANIFEST, limits={"max_bytes": 10})),
    ("limit 0", "manifest", dict(MANIFEST, limits={"max_depth": 0})),
    ("limit past 32 bits", "manifest", dict(MANIFEST, limits={"max_segments": 4294967296})),
    ("bad platform", "manifest", dict(MANIFEST, platforms=["sse2"])),
    ("upper-case fragment name", "rules", dict(with_rule(patterns=["(?&Kz)"]), define={"Kz": "k7"})),
    ("upper-case pack-wide fragment name", "manifest", dict(MANIFEST, define={"Kz": "k7"})),
]

# The compiler's looser forms: accepted by both.
LOOSE = [
    ("a single scope and a single pattern", "rules",
     with_rule(scopes="command", patterns="k7Qz2Xw9")),
    ("tier as a string", "rules", with_rule(tier="1")),
    ("plain yes, no and numbers as YAML text", "rules",
     "rules:\n"
     "  - {id: t.plain, family: command, scopes: command, patterns: k7Qz2Xw9, verdict: AUTH,\n"
     "     reason: t_plain, message: 1.5, tier: 1, decode: yes, mention_marker: no,\n"
     "     validators: {min_length: 3, placeholder: yes},\n"
     "     examples: {match: [k7Qz2Xw9], pass: [7]}}\n"),
    ("a manifest with a date, a number name and a single include", "manifest",
     "pack:\n  name: 7\n  version: 2.0.0-rc.1+b.5\n  revision: 2\n  expires: 2099-12-31\n"
     "  description: 2026\ninclude: rules.yaml\nexclude_rules: t.none\nplatforms: [avx2]\n"),
    ("validators as strings", "rules",
     with_rule(validators={"min_entropy": "2.5", "min_length": "3", "placeholder": "no",
                           "exempt": "hashes"})),
    ("a signal rule without reason or message", "rules",
     {"rules": [{"id": "t.signal", "family": "signal", "scopes": "command", "patterns": ["zzsig"],
                 "verdict": "PASS"}, RULE]}),
    ("a when-only rule", "rules",
     {"rules": [RULE, {"id": "t.when", "family": "command", "when": "t.min", "verdict": "AUTH",
                       "reason": "t_when", "message": "after t.min"}]}),
    ("numbers where the compiler reads text", "rules",
     with_rule(message=42, examples={"match": ["k7Qz2Xw9"], "pass": [7]})),
    ("prompt rule with origins and mention", "rules",
     with_rule(scopes=["prompt_text"], origins="pasted", mention="AUTH", mention_marker=False,
               examples={"match": [{"prompt": "k7Qz2Xw9", "origin": "pasted"}]})),
    ("a shell-only rule file", "rules",
     {"shell": {"wrappers": ["zzwrap", {"name": "zzw2", "positional": "2"}]}, "rules": [RULE]}),
    ("a fragment a pattern uses", "rules",
     dict(with_rule(patterns=["(?&kz)"]), define={"kz": "k7Qz2Xw9"})),
    ("a pack-wide fragment (no rule uses it: a warning)", "manifest",
     dict(MANIFEST, define={"kz": "k7Qz2Xw9"})),
    ("revision, limits and include as single values or strings", "manifest",
     {"pack": dict(PACK, revision="3", expires="2099-01-01T00:00:00Z"), "include": "rules.yaml",
      "platforms": "generic", "limits": {"max_depth": "32", "max_units": 100}}),
]


# ---- the compiler ------------------------------------------------------------------------------
def diagnostics_of(text):
    """Every diagnostic in a stream of JSON documents ({"diagnostics": [...]})."""
    out, decoder, i = [], json.JSONDecoder(), 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        doc, i = decoder.raw_decode(text, i)
        out += doc.get("diagnostics", [])


def run(args, json_on):
    p = subprocess.run([DOBERMANC, "--diagnostics", "json"] + args, capture_output=True, text=True)
    return p.returncode, diagnostics_of(p.stdout if json_on == "stdout" else p.stderr), p


def write_doc(tmp, kind, doc):
    """Writes `doc` (and, for a manifest, the rule file it includes); returns the file to give."""
    for name in os.listdir(tmp):
        os.remove(os.path.join(tmp, name))
    with open(os.path.join(tmp, "rules.yaml"), "w") as f:
        f.write(to_yaml({"rules": [RULE]}))
    path = os.path.join(tmp, "pack.yaml" if kind == "manifest" else "file.yaml")
    with open(path, "w") as f:
        f.write(to_yaml(doc))
    return path


def compiler_accepts(tmp, kind, doc):
    """(accepted, what it said, the error codes)"""
    code, diags, p = run(["test", write_doc(tmp, kind, doc)], "stdout")
    said = "; ".join("%s %s" % (d["code"], d["message"]) for d in diags) or p.stderr.strip()
    return code == 0, said, {d["code"] for d in diags if d["severity"] == "error"}


def validates(kind, doc):
    # As an editor sees it: the YAML text read back as YAML 1.2.
    return schema_errors(SCHEMAS[kind], load_yaml(to_yaml(doc)))


def known_fields(tmp, what, kind, doc):
    if what in CHECKER_LEVELS:
        code, diags, _ = run(["test", write_doc(tmp, kind, doc)], "stdout")
        want = "invalid %s '%s'" % (CHECKER_LEVELS[what], UNKNOWN)
        prefix, code_name = "expected one of: ", "E2103"
    else:
        code, diags, _ = run(["convert", write_doc(tmp, kind, doc), "--to", "dsl"], "stderr")
        want = "unknown field '%s' in %s" % (UNKNOWN, what)
        prefix, code_name = "known fields: ", "E2104"
    for d in diags:
        if d["code"] == code_name and d["message"] == want and d.get("help", "").startswith(prefix):
            return d["help"][len(prefix):].split(", ")
    problems.append("%s: no %s \"%s\" with a list of names from dobermanc (exit %d): %s" %
                    (what, code_name, want, code, [d["message"] for d in diags]))
    return None


def allowed_values(tmp, kind, doc, name):
    _, diags, _ = run(["test", write_doc(tmp, kind, doc)], "stdout")
    for d in diags:
        if d["code"] != "E2103":
            continue
        if d["message"] == "invalid %s '%s'" % (name, BAD):
            return d["help"][len("expected one of: "):].split(", ")
        if d["message"] == "unknown %s '%s'" % (name, BAD):  # exemptions: "expected 'a' or 'b'"
            return re.findall(r"'([^']+)'", d.get("label", ""))
    problems.append("%s: dobermanc reported no E2103 \"invalid %s '%s'\": %s" %
                    (name, name, BAD, [d["message"] for d in diags]))
    return None


# ---- checks ------------------------------------------------------------------------------------
def check_structure(schemas):
    """Every object level is in LEVELS, closed, and every property has a title and a description."""
    out = []
    listed = {(kind, pointer) for _, kind, pointer, _, _ in LEVELS}
    for kind, schema in schemas.items():
        if schema.get("$schema") != "http://json-schema.org/draft-07/schema#":
            out.append("%s schema: $schema is not draft-07" % kind)
        jsonschema.Draft7Validator.check_schema(schema)
        for pointer in object_levels(schema):
            node = at(schema, pointer)
            if (kind, pointer) in NAMED_MAPS:
                if "propertyNames" not in node or "additionalProperties" not in node:
                    out.append("%s schema %s: a named map needs propertyNames and "
                               "additionalProperties" % (kind, pointer))
                continue
            if (kind, pointer) not in listed:
                out.append("%s schema %s: an object level this test does not compare with the "
                           "compiler (add it to LEVELS)" % (kind, pointer or "/"))
            if node.get("additionalProperties") is not False:
                out.append("%s schema %s: additionalProperties is not false (the compiler refuses "
                           "unknown fields, E2104)" % (kind, pointer or "/"))
            for name, prop in node.get("properties", {}).items():
                for key in ("title", "description"):
                    if not prop.get(key):
                        out.append("%s schema %s: property %s has no %s" %
                                   (kind, pointer or "/", name, key))
    for _, kind, pointer, _, _ in LEVELS:
        try:
            at(schemas[kind], pointer)["properties"]
        except KeyError:
            out.append("%s schema: no object with properties at %s" % (kind, pointer or "/"))
    return out


def compare_all(schemas, fields, enums):
    out = []
    for (what, kind, pointer, _, _), names in zip(LEVELS, fields):
        if names is not None:
            out += compare("%s (%s schema %s)" % (what, kind, pointer or "/"),
                           at(schemas[kind], pointer).get("properties", {}), names)
    for (kind, _, name, pointer), values in zip(ENUMS, enums):
        if values is not None:
            out += compare("%s values (%s schema %s)" % (name, kind, pointer),
                           at(schemas[kind], pointer), values)
    return out


def check_required(tmp, schemas):
    """At each level: the valid object passes both; without a required field, both refuse it."""
    out, count = [], 0
    for what, kind, pointer, base, embed in LEVELS:
        ok, why, _ = compiler_accepts(tmp, kind, embed(base))
        if not ok:
            out.append("%s: the valid test document is refused by dobermanc: %s" % (what, why))
        errors = schema_errors(schemas[kind], load_yaml(to_yaml(embed(base))))
        if errors:
            out.append("%s: the valid test document is refused by the schema: %s" % (what, errors))
        for field in at(schemas[kind], pointer).get("required", []):
            count += 1
            doc = embed({k: v for k, v in base.items() if k != field})
            if field not in base:
                out.append("%s: the schema requires %s, which the valid test document (accepted "
                           "by dobermanc) does not have" % (what, field))
                continue
            ok, why, codes = compiler_accepts(tmp, kind, doc)
            if ok or all(c.startswith("E5") for c in codes):
                out.append("%s: the schema requires %s, the compiler does not (%s)" %
                           (what, field, "dobermanc accepts it without" if ok else why))
            elif not schema_errors(schemas[kind], load_yaml(to_yaml(doc))):
                out.append("%s: without %s the schema still accepts it" % (what, field))
    return out, count


def self_test(tmp, fields, enums):
    """The comparisons must notice a property or an enum value going missing, a property the
    compiler does not know, and a required field the compiler does not require."""
    out = []
    for i, (what, kind, pointer, _, _) in enumerate(LEVELS):
        if fields[i] is None:
            continue
        mutated = copy.deepcopy(SCHEMAS)
        props = at(mutated[kind], pointer)["properties"]
        gone = sorted(props)[0]
        del props[gone]
        props["zz_schema_only"] = {"title": "x", "description": "x"}
        found = " ".join(compare_all(mutated, fields, enums))
        if gone not in found or "zz_schema_only" not in found:
            out.append("self-test: removing %s from %s was not reported (%r)" % (gone, what, found))
    for i, (kind, _, name, pointer) in enumerate(ENUMS):
        if enums[i] is None:
            continue
        mutated = copy.deepcopy(SCHEMAS)
        values = at(mutated[kind], pointer)
        gone = sorted(set(values) & set(enums[i]))[0]
        values.remove(gone)
        if gone not in " ".join(compare_all(mutated, fields, enums)):
            out.append("self-test: removing %s from the %s values was not reported" % (gone, name))
    mutated = copy.deepcopy(SCHEMAS)
    at(mutated["rules"], "/definitions/rule")["required"].append("examples")
    if "requires examples" not in " ".join(check_required(tmp, mutated)[0]):
        out.append("self-test: requiring examples in a rule was not reported")
    return out


def yaml_files(top):
    found = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".yaml", ".yml")):
                found.append(os.path.join(dirpath, name))
    return found


def kind_of(doc):
    # As the compiler decides (yaml_frontend.cc): `pack:` makes a manifest.
    return "manifest" if isinstance(doc, dict) and "pack" in doc else "rules"


def check_file(path, text, label):
    """Validates one YAML text against its schema; returns the kind, or None when it failed."""
    try:
        doc = load_yaml(text)
    except yaml.YAMLError as e:
        problems.append("%s: not YAML 1.2 as an editor reads it: %s" % (label, e))
        return None
    kind = kind_of(doc)
    for e in jsonschema.Draft7Validator(SCHEMAS[kind]).iter_errors(doc):
        where = "/".join(str(p) for p in e.absolute_path)
        problems.append("%s: %s schema: at %s: %s" % (label, kind, where or "/", e.message[:300]))
        return None
    m = re.search(r"^# yaml-language-server: \$schema=(\S+)", text, re.M)
    if m and not m.group(1).startswith(("http:", "https:")):
        target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
        want = os.path.join(ROOT, "docs", "schema", kind + ".schema.json")
        if target != want:
            problems.append("%s: its yaml-language-server line names %s, not %s" %
                            (label, m.group(1), os.path.relpath(want, os.path.dirname(path))))
    return kind


def main():
    if not os.access(DOBERMANC, os.X_OK):
        print("FAIL: %s is not an executable dobermanc" % DOBERMANC)
        return 1
    counts = {"rules": 0, "manifest": 0}
    with tempfile.TemporaryDirectory(prefix="json_schema_test.") as tmp:
        problems.extend(check_structure(SCHEMAS))
        # a. field tables and value sets against the compiler's.
        fields = []
        for what, kind, pointer, base, embed in LEVELS:
            fields.append(known_fields(tmp, what, kind, embed(dict(base, **{UNKNOWN: 1}))))
        enums = [allowed_values(tmp, kind, doc, name) for kind, doc, name, _ in ENUMS]
        problems.extend(self_test(tmp, fields, enums))
        problems.extend(compare_all(SCHEMAS, fields, enums))
        required_problems, required = check_required(tmp, SCHEMAS)
        problems.extend(required_problems)
        # c. wrong documents are refused by both; loose but valid ones accepted by both.
        for label, kind, doc in WRONG:
            if not validates(kind, doc):
                problems.append("wrong document accepted by the %s schema: %s" % (kind, label))
            ok, why, codes = compiler_accepts(tmp, kind, doc)
            if ok:
                problems.append("wrong document accepted by dobermanc (fix the test): %s" % label)
            elif not any(not c.startswith("E5") for c in codes):
                # E5xxx: examples failed, i.e. refused for a reason other than the one meant.
                problems.append("wrong document refused by dobermanc only for its examples (fix "
                                "the test): %s: %s" % (label, why))
        for label, kind, doc in LOOSE:
            errors = validates(kind, doc)
            if errors:
                problems.append("%s schema refuses a document dobermanc accepts (%s): %s" %
                                (kind, label, errors))
            ok, why, _ = compiler_accepts(tmp, kind, doc)
            if not ok:
                problems.append("dobermanc refuses a loose test document (%s): %s" % (label, why))
        # b. the shipped and test sources.
        files = []
        for top in ("rules", "packs", os.path.join("tests", "data")):
            files += yaml_files(os.path.join(ROOT, top))
        # Its includes do not exist there, but every field and value is valid (DSL tests read it).
        files.append(os.path.join(ROOT, "tests", "dsl", "data", "manifest.yaml"))
        for path in files:
            with open(path, encoding="utf-8") as f:
                kind = check_file(path, f.read(), os.path.relpath(path, ROOT))
            if kind:
                counts[kind] += 1
        # Other test inputs are often broken on purpose: the ones dobermanc accepts must validate.
        accepted = 0
        for path in yaml_files(os.path.join(ROOT, "tests")):
            if path in files:
                continue
            if run(["test", path], "stdout")[0] != 0:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                check_file(path, f.read(), os.path.relpath(path, ROOT))
            accepted += 1
        with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as f:
            blocks = [b for b in re.findall(r"```yaml\n(.*?)```", f.read(), re.S)
                      if re.match(r"(pack|rules|shell):", b)]
        for i, block in enumerate(blocks):
            check_file(os.path.join(ROOT, "docs", "rules.md"), block,
                       "docs/rules.md yaml block %d" % (i + 1))
    for p in problems:
        print("FAIL: " + p)
    print("%d object levels (%d fields) and %d value sets equal to dobermanc's, %d required "
          "fields; %d rule files and %d manifests, %d other accepted test files, %d docs blocks "
          "valid; %d wrong documents refused, %d loose ones accepted" %
          (len(LEVELS), sum(len(f) for f in fields if f), len(ENUMS), required,
           counts["rules"], counts["manifest"], accepted, len(blocks), len(WRONG), len(LOOSE)))
    return 1 if problems else 0


sys.exit(main())
