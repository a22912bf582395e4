#!/usr/bin/env bash
# dobermanc as users run it: exit codes (0 ok, 1 diagnostics, 2 usage, 3 I/O), key file permissions,
# no partial pack on failure, reproducible builds, verify/inspect, and --help on every subcommand.
set -uo pipefail
dobermanc="$1"
src="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check NAME EXPECTED_EXIT ACTUAL_EXIT
  if [[ "$2" != "$3" ]]; then echo "FAIL: $1 (expected exit $2, got $3)"; failures=$((failures + 1));
  else echo "ok: $1"; fi
}
expect_true() {  # expect_true NAME COMMAND...
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

cd "$work"
"$dobermanc" keygen --out k >/dev/null; check "keygen" 0 $?
expect_true "secret key is 0600" test "$(stat -c %a k.key)" = 600
expect_true "public key is readable" test "$(stat -c %a k.pub)" = 644
"$dobermanc" keygen --out k >/dev/null 2>&1; check "keygen refuses to overwrite" 3 $?
"$dobermanc" keygen --out k --force >/dev/null; check "keygen --force" 0 $?

mini="$src/tests/data/mini"
"$dobermanc" build "$mini" --key k.key --out out >/dev/null 2>&1; check "build" 0 $?
expect_true "pack written" test -s out/mini.dpack
"$dobermanc" verify out/mini.dpack --pubkey k.pub 2>/dev/null; check "verify" 0 $?
"$dobermanc" keygen --out other >/dev/null
"$dobermanc" verify out/mini.dpack --pubkey other.pub 2>/dev/null; check "verify with another key" 1 $?
"$dobermanc" inspect out/mini.dpack --json > inspect.json; check "inspect --json" 0 $?
expect_true "inspect --json is JSON with 7 rules" python3 -c "
import json,sys; d=json.load(open('inspect.json')); sys.exit(0 if len(d['rules'])==7 and d['header']['name']=='mini' else 1)"
expect_true "inspect --json names each mention marker's kind" python3 -c "
import json,sys; d=json.load(open('inspect.json')); k={r['id']: r['mention_marker'] for r in d['rules']}
sys.exit(0 if (k['test.turn.marker'], k['test.turn.negated'], k['test.turn.nullify']) == ('before', 'negation', 'false') else 1)"
"$dobermanc" inspect out/mini.dpack --pubkey k.pub | grep "signature verified" >/dev/null; check "inspect --pubkey" 0 $?
expect_true "inspect prints no 'when ?' for rules without when:" bash -c "! \"$dobermanc\" inspect out/mini.dpack | grep -q 'when ?'"
expect_true "inspect prints a when: program" bash -c "\"$dobermanc\" inspect out/mini.dpack | grep -q '^    when '"
expect_true "databases stored compressed" grep -q "(lz4 " <("$dobermanc" inspect out/mini.dpack)
"$dobermanc" build "$src/tests/data/start_of_match" --key k.key --out som >/dev/null 2>&1
check "build start_of_match" 0 $?
"$dobermanc" inspect som/start_of_match.dpack > som.txt
expect_true "a prompt excuse is kept apart from the folded conditions" \
  grep -q "^database *prompt (conditional), generic, 1 patterns" som.txt
expect_true "a command excuse is folded into the trigger database" \
  bash -c "grep -q '^database *command, generic, 6 patterns' som.txt && ! grep -q 'command (conditional)' som.txt"
expect_true "inspect prints the patterns" bash -c "\"$dobermanc\" inspect out/mini.dpack | grep -q '^    any '"
# The expressions live in their own blob (first in the blob area) under a digest in the signed
# tables, not in the tables themselves; a damaged blob is refused by inspect and by verify.
expect_true "the signed tables hold no pattern text" python3 -c "
import json,struct,sys
b=open('out/mini.dpack','rb').read(); n=struct.unpack('<Q',b[112:120])[0]; tables=b[128:128+n]
rx=[p['regex'].encode() for r in json.load(open('inspect.json'))['rules'] for p in r['patterns'] if len(p['regex'])>=8]
sys.exit(0 if rx and not any(x in tables for x in rx) else 1)"
python3 -c "
import struct
b=bytearray(open('out/mini.dpack','rb').read()); n=struct.unpack('<Q',b[112:120])[0]; b[192+n]^=1
open('text-damaged.dpack','wb').write(b)"
"$dobermanc" inspect text-damaged.dpack > /dev/null 2> text-damaged.err; check "inspect refuses a damaged pattern text" 1 $?
expect_true "it says the digest does not match" grep -q "pattern-text blob does not match its digest" text-damaged.err
"$dobermanc" verify text-damaged.dpack --pubkey k.pub 2>/dev/null; check "verify refuses a damaged pattern text" 1 $?
"$dobermanc" build "$mini" --key k.key --out raw --no-compress >/dev/null 2>&1; check "build --no-compress" 0 $?
"$dobermanc" verify raw/mini.dpack --pubkey k.pub 2>/dev/null; check "verify an uncompressed pack" 0 $?
"$dobermanc" inspect raw/mini.dpack > raw-inspect.txt; check "inspect an uncompressed pack" 0 $?
expect_true "it lists its databases" grep -q "^database " raw-inspect.txt
expect_true "--no-compress stores raw databases" test -z "$(grep "(lz4 " raw-inspect.txt)"
expect_true "the compressed pack is smaller" test "$(stat -c %s out/mini.dpack)" -lt "$(stat -c %s raw/mini.dpack)"

chmod 644 k.key
"$dobermanc" build "$mini" --key k.key --out out2 2>err.txt; check "build refuses a readable key" 3 $?
expect_true "error says chmod 600" grep -q "chmod 600" err.txt
expect_true "no output on key refusal" test ! -e out2/mini.dpack
chmod 600 k.key

# A pack with errors writes nothing, and an earlier good pack is left as it was.
cp out/mini.dpack before.dpack
mkdir -p bad/rules && cp "$src/tests/golden/yaml/tier1_block.yaml" bad/rules/
printf 'pack:\n  name: mini\n  version: 1.0.0\n  revision: 1\ninclude: [rules/]\n' > bad/pack.yaml
"$dobermanc" build bad --key k.key --out out 2>/dev/null; check "build with errors" 1 $?
expect_true "earlier pack untouched" cmp -s before.dpack out/mini.dpack
expect_true "no temporary files left" test -z "$(ls out | grep -v '^mini.dpack$')"
"$dobermanc" --diagnostics json build bad --key k.key --out out >diag.json 2>/dev/null
expect_true "json diagnostics parse" python3 -c "
import json; d=json.load(open('diag.json')); assert d['errors']==1 and d['diagnostics'][0]['code']=='E3003'"
"$dobermanc" --diagnostics json build bad "$mini" --key k.key --out multi >diag2.json 2>/dev/null
expect_true "one JSON document for several manifests" python3 -c "
import json; d=json.load(open('diag2.json')); assert d['errors']==1, d"
"$dobermanc" --diagnostics json build "$mini" --key k.key --out multi >diag3.json 2>/dev/null
expect_true "a clean build still prints one JSON document" python3 -c "
import json; assert json.load(open('diag3.json')) == {'diagnostics': [], 'errors': 0}"

# Progress lines while building, only when stderr is a terminal (script(1) gives it one).
script -qec "'$dobermanc' build '$mini' --key k.key --out tty" /dev/null >tty.txt 2>&1
expect_true "progress lines on a terminal" grep -q "compiling databases, .* rules" tty.txt
"$dobermanc" build "$mini" --key k.key --out tty 2>notty.txt
expect_true "no progress lines when stderr is a file" bash -c "! grep -q 'compiling databases' notty.txt"

"$dobermanc" build /nonexistent --key k.key --out out 2>/dev/null; check "missing input" 3 $?
"$dobermanc" build "$mini" --out out 2>/dev/null; check "missing --key is usage" 2 $?
"$dobermanc" frobnicate 2>/dev/null; check "unknown subcommand" 2 $?
for sub in keygen build test inspect verify fmt convert; do
  "$dobermanc" $sub --help >/dev/null; check "$sub --help" 0 $?
done

# Reproducible: same sources, key and SOURCE_DATE_EPOCH give the same bytes.
SOURCE_DATE_EPOCH=1700000000 "$dobermanc" build "$mini" --key k.key --out r1 2>/dev/null
SOURCE_DATE_EPOCH=1700000000 "$dobermanc" build "$mini" --key k.key --out r2 2>/dev/null
expect_true "reproducible build" cmp -s r1/mini.dpack r2/mini.dpack
SOURCE_DATE_EPOCH=1700000001 "$dobermanc" build "$mini" --key k.key --out r3 2>/dev/null
expect_true "created time is in the signed header" bash -c "! cmp -s r1/mini.dpack r3/mini.dpack"
# ... and from any working directory (rule sources are recorded relative to the manifest).
(cd / && SOURCE_DATE_EPOCH=1700000000 "$dobermanc" build "$mini" --key "$work/k.key" --out "$work/r4" 2>/dev/null)
(cd "$mini" && SOURCE_DATE_EPOCH=1700000000 "$dobermanc" build . --key "$work/k.key" --out "$work/r5" 2>/dev/null)
expect_true "reproducible from another working directory" cmp -s r1/mini.dpack r4/mini.dpack
expect_true "reproducible with a relative path" cmp -s r1/mini.dpack r5/mini.dpack

"$dobermanc" test "$mini" >/dev/null 2>&1; check "test passes on mini" 0 $?
"$dobermanc" --diagnostics json test "$src/tests/golden/yaml/failing_examples.yaml" >tj.out 2>/dev/null
expect_true "test --diagnostics json prints only JSON on stdout" python3 -c "import json; json.load(open('tj.out'))"
"$dobermanc" test "$src/tests/golden/yaml/failing_examples.yaml" >/dev/null 2>&1; check "test fails on failing examples" 1 $?

# Red-team regressions. A symbolic link in the rules tree is refused, not followed (its target's
# lines would otherwise be quoted in diagnostics).
mkdir -p link/rules
printf 'root:x:0:0:SECRETLINE:/root:/bin/bash\n' > outside.yaml
ln -s "$work/outside.yaml" link/rules/evil.yaml
printf 'pack:\n  name: mini\n  version: 1.0.0\n  revision: 1\ninclude: [rules/]\n' > link/pack.yaml
"$dobermanc" build link --key k.key --out linkout >link.out 2>&1; check "symlinked rule file refused" 1 $?
expect_true "E1011 names the link" grep -q "E1011" link.out
expect_true "the target is not quoted" bash -c "! grep -q SECRETLINE link.out"
expect_true "no pack written from a tree with a link" test ! -e linkout/mini.dpack
# A FIFO named like a rule file does not hang the build.
mkdir -p fifo/rules && mkfifo fifo/rules/pipe.yaml
cp "$mini"/rules/*.yaml fifo/rules/ 2>/dev/null || true
printf 'pack:\n  name: mini\n  version: 1.0.0\n  revision: 1\ninclude: [rules/]\n' > fifo/pack.yaml
timeout 20 "$dobermanc" build fifo --key k.key --out fifoout >fifo.out 2>&1; check "FIFO in the rules tree is an I/O error, not a hang" 3 $?
expect_true "the FIFO is named" grep -q "pipe.yaml" fifo.out

# A date that does not exist is not an expiry.
# (mini.yaml includes ../../../rules/shell/tables.yaml: keep that path valid in the copy.)
mkdir -p rules/shell x/y/exp && cp "$src/rules/shell/tables.yaml" rules/shell/ && cp -r "$mini"/* x/y/exp/
ln -s x/y/exp exp
sed -i 's/expires: 2099-01-01/expires: 2027-02-30/' exp/mini.yaml
"$dobermanc" build exp --key k.key --out expout >exp.out 2>&1; check "expires 2027-02-30 refused" 1 $?
expect_true "E3012 for the impossible date" grep -q "E3012" exp.out
sed -i 's/2027-02-30/2099-02-29/' exp/mini.yaml
"$dobermanc" build exp --key k.key --out expout >/dev/null 2>&1; check "expires 2099-02-29 (no such day) refused" 1 $?
sed -i 's/2099-02-29/2096-02-29/' exp/mini.yaml
"$dobermanc" build exp --key k.key --out expout >/dev/null 2>&1; check "expires 2096-02-29 (a leap day) accepted" 0 $?

# --version names the runtime, the pack formats and the Hyperscan it builds with.
"$dobermanc" --version > version.txt; check "--version" 0 $?
expect_true "--version names envelope and Hyperscan versions" grep -q "envelope [0-9]*-[0-9]*; Hyperscan [0-9]" version.txt

# A build stopped by a signal or a file size limit leaves no partial pack, not even a temporary one.
mkdir -p sigout
(ulimit -f 8; "$dobermanc" build "$mini" --key k.key --out sigout >/dev/null 2>&1); check "build over RLIMIT_FSIZE fails as I/O" 3 $?
expect_true "no temporary file after a size-limited build" test -z "$(ls sigout)"

echo "$failures failure(s)"
[[ $failures -eq 0 ]]
