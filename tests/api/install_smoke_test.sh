#!/usr/bin/env bash
# Installs the build into a temporary prefix and compiles a C program against the installed header
# and library through pkg-config, as a host integrating the runtime would. The program loads the test
# pack and decides one call.
set -euo pipefail
build="$1"; packs="$2"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig"
cat > "$prefix/host.c" <<'C'
#include <doberman/doberman.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) {
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
cc -std=c11 -Wall -Werror "$prefix/host.c" -o "$prefix/host" $(pkg-config --cflags --libs doberman-runtime)
"$prefix/host" "$packs/r1/mini.dpack" "$packs/test.pub"
test -x "$prefix/bin/doberman-guard" && test -x "$prefix/bin/dobermanc"
echo "install smoke test passed"
