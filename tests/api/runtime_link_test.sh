#!/usr/bin/env bash
# Fails when the runtime side links anything it must not: ANTLR, yaml-cpp or Hyperscan's compiler
# (libhs). doberman-guard may need libhs_runtime, libsodium, libxxhash, liblz4 and the C/C++ runtime only.
set -euo pipefail
guard="$1"
core="$2"
needed=$(readelf -d "$guard" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $5); print $5}')
echo "doberman-guard needs: $(echo $needed | tr '\n' ' ')"
status=0
for lib in $needed; do
  case "$lib" in
    libhs_runtime.so*|libsodium.so*|libxxhash.so*|liblz4.so*|libstdc++.so*|libm.so*|libgcc_s.so*|libc.so*|ld-linux*) ;;
    *) echo "FAIL: doberman-guard links $lib"; status=1 ;;
  esac
done
# doberman-guard is a static PIE by default (DOBERMAN_STATIC_GUARD): whatever it holds must not include
# the compiler side either (Hyperscan's compiler, yaml-cpp, ANTLR), defined or referenced.
symbols=$(nm "$guard" 2>/dev/null || true)
bad=$(grep -E ' (hs_compile|hs_expression|_ZN4YAML|_ZN6antlr4|_ZNK4YAML)' <<<"$symbols" || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: doberman-guard holds compiler-side symbols:"; echo "$bad" | head; status=1
fi
if ! grep -qE ' hs_scan$' <<<"$symbols"; then
  echo "FAIL: doberman-guard has no hs_scan symbol at all: the check above would prove nothing"; status=1
fi
# The static runtime core must not reference compiler-side symbols either.
if nm -u --defined-only "$core" >/dev/null 2>&1; then :; fi
bad=$(nm -u "$core" 2>/dev/null | grep -E ' (hs_compile|hs_expression|_ZN4YAML|_ZN6antlr4)' || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: runtime core references compiler-side symbols:"; echo "$bad" | head; status=1
fi
[[ $status -eq 0 ]] && echo "runtime link check passed"
exit $status
