#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a C host against it the four ways a host
# integrating the runtime would: pkg-config (shared, static), CMake find_package (shared, static) and
# the Python module.
# Each consumer loads the test pack and must BLOCK `rm -rf /`. Then the prefix is moved elsewhere and
# the CMake consumers are built again (relocatable), and the shared library's exports, soname and
# dependencies are checked.
set -euo pipefail
build="$1"; packs="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libdoberman_runtime.a)")
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$work/src"
cat > "$work/src/host.c" <<'C'
#include <doberman/doberman.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  FILE* f = fopen(argv[2], "r");
  char line[256], b64[128] = {0};
  if (!f || !fgets(line, sizeof line, f) || !fgets(line, sizeof line, f) || !fgets(b64, sizeof b64, f)) return 2;
  fclose(f);
  /* decode base64 (the key file's third line) */
  static const char* alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  doberman_public_key key; unsigned acc = 0; int bits = 0, n = 0;
  for (char* p = b64; *p && *p != '=' && *p != '\n'; ++p) {
    acc = (acc << 6) | (unsigned)(strchr(alpha, *p) - alpha); bits += 6;
    if (bits >= 8 && n < 32) { bits -= 8; key.bytes[n++] = (unsigned char)(acc >> bits); }
  }
  doberman_load_options o = {0};
  o.struct_size = sizeof o; o.trusted_keys = &key; o.trusted_key_count = 1;
  doberman_pack* pack = NULL; char err[256];
  if (doberman_pack_load_file(argv[1], &o, &pack, err, sizeof err) != DOBERMAN_OK) { puts(err); return 3; }
  doberman_scratch* s = NULL;
  doberman_scratch_create(pack, &s);
  doberman_call c = {0};
  c.struct_size = sizeof c; c.command.data = "rm -rf /"; c.command.size = 8;
  doberman_result r = {0}; r.struct_size = sizeof r;
  doberman_decide(pack, s, &c, &r);
  printf("%s\n", doberman_verdict_name(r.verdict));
  doberman_scratch_free(s); doberman_pack_free(pack);
  return r.verdict == DOBERMAN_BLOCK ? 0 : 4;
}
C
cat > "$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(doberman_consumer C)
find_package(doberman-runtime 0.1 CONFIG REQUIRED)
add_executable(host host.c)
target_link_libraries(host PRIVATE doberman::runtime)
CMAKE

run_host() {  # label, binary
  local out
  out=$("$2" "$packs/r1/mini.dpack" "$packs/test.pub") || fail "$1: the consumer answered '$out' (exit $?)"
  [[ "$out" == BLOCK ]] || fail "$1: expected BLOCK, got '$out'"
  echo "$1: BLOCK"
}
links_shared() {  # label, binary, expected (yes|no)
  local got=no
  readelf -d "$2" | grep 'NEEDED.*libdoberman_runtime\.so\.1' >/dev/null && got=yes
  [[ "$got" == "$3" ]] || fail "$1: links libdoberman_runtime.so.1: $got, expected $3"
}

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# pkg-config, shared (run with the prefix's library directory on the loader path).
cc -std=c11 -Wall -Werror "$work/src/host.c" -o "$work/host-pc-shared" \
  $(pkg-config --cflags --libs doberman-runtime)
links_shared pkg-config-shared "$work/host-pc-shared" yes
LD_LIBRARY_PATH="$libdir" run_host pkg-config-shared "$work/host-pc-shared"
# pkg-config, static.
cc -std=c11 -Wall -Werror "$work/src/host.c" -o "$work/host-pc-static" \
  $(pkg-config --cflags --libs doberman-runtime-static)
links_shared pkg-config-static "$work/host-pc-static" no
run_host pkg-config-static "$work/host-pc-static"

build_cmake() {  # label, prefix, static ON/OFF
  cmake -S "$work/src" -B "$work/build-$1" -DCMAKE_PREFIX_PATH="$2" -DDOBERMAN_RUNTIME_STATIC="$3" \
    >"$work/$1.log" 2>&1 || { cat "$work/$1.log"; fail "$1: cmake configure"; }
  cmake --build "$work/build-$1" >>"$work/$1.log" 2>&1 || { cat "$work/$1.log"; fail "$1: cmake build"; }
}
build_cmake cmake-shared "$prefix" OFF
links_shared cmake-shared "$work/build-cmake-shared/host" yes
run_host cmake-shared "$work/build-cmake-shared/host"   # CMake set the RPATH to the prefix
build_cmake cmake-static "$prefix" ON
links_shared cmake-static "$work/build-cmake-static/host" no
run_host cmake-static "$work/build-cmake-static/host"

# Relocatable: the same prefix moved elsewhere still configures, builds and runs.
mv "$prefix" "$work/moved"
build_cmake moved-shared "$work/moved" OFF
run_host moved-shared "$work/build-moved-shared/host"
build_cmake moved-static "$work/moved" ON
run_host moved-static "$work/build-moved-static/host"
# The Python module, imported from the moved prefix (it carries the runtime itself).
pymod=$(find "$work/moved" -name 'doberman.cpython-*.so' | head -1)
[[ -n "$pymod" ]] || fail "no Python module installed"
out=$(PYTHONPATH=$(dirname "$pymod") python3 -c '
import sys, doberman
d = doberman.load(sys.argv[1], sys.argv[2]).decide(
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
print(d.verdict)' "$packs/default/default.dpack" "$packs/test.pub") || fail "python: $out"
[[ "$out" == BLOCK ]] || fail "python: expected BLOCK, got '$out'"
echo "python (installed in ${pymod#"$work/moved/"}): BLOCK"
mv "$work/moved" "$prefix"
# A version the package is not compatible with is refused.
sed -i 's/doberman-runtime 0.1 CONFIG/doberman-runtime 9.0 CONFIG/' "$work/src/CMakeLists.txt"
if cmake -S "$work/src" -B "$work/build-v9" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
  fail "find_package(doberman-runtime 9.0) accepted version $(grep -o 'PACKAGE_VERSION "[^"]*"' "$libdir/cmake/doberman-runtime/doberman-runtimeConfigVersion.cmake")"
fi

# The shared library: soname from the ABI version, only doberman_* exported, no compiler side.
so="$libdir/libdoberman_runtime.so.1"
[[ -e "$so" ]] || fail "no $so"
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" == libdoberman_runtime.so.1 ]] || fail "soname is '$soname'"
exports=$(nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' | sed 's/@.*//')
[[ -n "$exports" ]] || fail "the shared library exports nothing"
other=$(grep -v '^doberman_' <<<"$exports" || true)
[[ -z "$other" ]] || fail "exports beyond doberman_*: $(head -5 <<<"$other" | tr '\n' ' ')"
for f in doberman_pack_load_file doberman_decide doberman_runtime_version; do
  grep -qx "$f" <<<"$exports" || fail "$f is not exported"
done
needed=$(readelf -d "$so" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $5); print $5}' | tr '\n' ' ')
for lib in $needed; do
  case "$lib" in
    libhs_runtime.so*|libsodium.so*|libxxhash.so*|liblz4.so*|libstdc++.so*|libm.so*|libgcc_s.so*|libc.so*|ld-linux*) ;;
    *) fail "libdoberman_runtime.so links $lib" ;;
  esac
done
echo "shared library: soname $soname, $(wc -l <<<"$exports") exports (all doberman_*), needs: $needed"
test -x "$prefix/bin/doberman-guard" && test -x "$prefix/bin/dobermanc"
for tool in doberman-guard dobermanc; do
  for f in "share/man/man1/$tool.1" "share/bash-completion/completions/$tool" \
           "share/zsh/vendor-completions/_$tool"; do
    [[ -s "$prefix/$f" ]] || fail "not installed: $f"
  done
done
echo "install smoke test passed"
