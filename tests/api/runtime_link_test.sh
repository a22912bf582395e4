#!/usr/bin/env bash
# Fails when the runtime side links anything it must not: ANTLR, yaml-cpp or Hyperscan's compiler
# (libhs). doberman-guard may need libhs_runtime, libsodium, libxxhash and the C/C++ runtime only.
set -euo pipefail
guard="$1"
core="$2"
needed=$(readelf -d "$guard" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $5); print $5}')
echo "doberman-guard needs: $(echo $needed | tr '\n' ' ')"
status=0
for lib in $needed; do
  case "$lib" in
    libhs_runtime.so*|libsodium.so*|libxxhash.so*|libstdc++.so*|libm.so*|libgcc_s.so*|libc.so*|ld-linux*) ;;
    *) echo "FAIL: doberman-guard links $lib"; status=1 ;;
  esac
done
# The static runtime core must not reference compiler-side symbols either.
if nm -u --defined-only "$core" >/dev/null 2>&1; then :; fi
bad=$(nm -u "$core" 2>/dev/null | grep -E ' (hs_compile|hs_expression|_ZN4YAML|_ZN6antlr4)' || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: runtime core references compiler-side symbols:"; echo "$bad" | head; status=1
fi
[[ $status -eq 0 ]] && echo "runtime link check passed"
exit $status
