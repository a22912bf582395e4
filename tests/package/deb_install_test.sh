#!/usr/bin/env bash
# Installs the Debian package into a clean Debian 12 root and uses it as a person would
# (docs/packaging.md). Usage: deb_install_test.sh [PATH.deb]
#   Without a path the package is built first by scripts/package-deb in its own build directory,
#   $DOBERMAN_DEB_BUILD_DIR or build-deb/ of the source tree (never the build running this test).
#   The clean root is `mmdebstrap --variant=minbase bookworm` from the host's own Debian sources,
#   cached as a tarball in ${XDG_CACHE_HOME:-~/.cache}/doberman-debroot (rebuilt after 30 days), where
#   apt's package lists and the packages it downloads are kept too. Inside it, under chroot: apt-get
#   install ./doberman_*.deb with its dependencies from the mirror; --version of the tools; keygen,
#   build and sign the shipped pack sources as an unprivileged user; `rm -rf /` must be BLOCK from
#   doberman-guard check and from the Python module; pkg-config finds the runtime; the loader finds
#   the library; the systemd user units are there and name /usr/bin/doberman-guard; every file lies
#   under /usr; and apt-get remove takes it all away again.
# Skips (exit 77), saying why, only when not root or when the Debian mirror cannot be reached.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
start=$SECONDS
timings=()
lap() { timings+=("$(printf '%-34s %4ds' "$1" "$2")"); }
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || skip "needs root (bootstrapping a Debian root, chroot, mounts)"

# The host's own Debian sources, so that the root sees what the package's dependencies were built
# against: every Debian 'deb' index target of this architecture (suite and component as listed).
arch=$(dpkg --print-architecture)
mapfile -t sources < <(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
  'Created-By: Packages' 'Target-Of: deb' "Architecture: $arch" 'Origin: Debian' 2>/dev/null | sort -u)
if [[ ${#sources[@]} -eq 0 ]]; then sources=("http://deb.debian.org/debian/ bookworm main"); fi
# (grep reads it all: with pipefail, `grep -q` leaving early would fail the pipeline whenever
# printf meets the closed pipe, as it did once under load)
printf '%s\n' "${sources[@]}" | grep ' bookworm ' >/dev/null ||
  fail "the host's apt sources hold no Debian bookworm suite: ${sources[*]}"
for s in "${sources[@]}"; do
  read -r uri suite _ <<<"$s"
  url="${uri%/}/dists/$suite/InRelease"
  python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=20).read(1)' "$url" \
    2>/dev/null || skip "the Debian mirror is unreachable ($url)"
done
"$src/scripts/install-deps" --package

# The package.
deb=${1:-}
if [[ -z "$deb" ]]; then
  t=$SECONDS
  echo "== building the package (scripts/package-deb)"
  deb=$(DOBERMAN_BUILD_DIR="${DOBERMAN_DEB_BUILD_DIR:-$src/build-deb}" "$src/scripts/package-deb")
  lap "package build" $((SECONDS - t))
fi
[[ -f "$deb" ]] || fail "no package at '$deb'"
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
echo "== package $deb ($(stat -c %s "$deb") bytes)"
echo "Depends: $(dpkg-deb -f "$deb" Depends)"

# The clean root, cached.
cache=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/doberman-debroot
mkdir -p "$cache/archives/partial"
# One run at a time (they share the cache), and what a killed run left (ctest's timeout runs no
# traps): its mounts undone innermost first, then its directory.
exec 8>"$cache/.run.lock"
flock 8
for old in /var/tmp/doberman-debroot.*; do
  [[ -d "$old" ]] || continue
  awk -v d="$old/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r |
    while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
  if awk -v d="$old/" 'index($2, d) == 1 {found=1} END {exit !found}' /proc/self/mounts; then
    fail "cannot unmount what an earlier run left in $old"
  fi
  rm -rf --one-file-system "$old"
done
key=$(printf '%s\n' minbase bookworm "$arch" "${sources[@]}" | sha256sum | cut -c1-12)
tarball="$cache/bookworm-minbase-$arch-$key.tar"
t=$SECONDS
root_state=reused
if [[ ! -f "$tarball" ]] || [[ -n $(find "$tarball" -mtime +30) ]]; then root_state=created; fi
(
  flock 9
  if [[ -f "$tarball" ]] && [[ -z $(find "$tarball" -mtime +30) ]]; then exit 0; fi
  echo "== mmdebstrap --variant=minbase bookworm -> $tarball"
  lines=()
  for s in "${sources[@]}"; do lines+=("deb $s"); done
  # mmdebstrap hands apt a pipe by descriptor number; under ctest, descriptors the test runner left
  # open made apt's `cat >&11` fail ("Sub-process cat >&11 returned an error code (2)", then
  # SIGPIPE) every time, while the same command ran fine from a shell. Only stdin, stdout, stderr
  # and this subshell's lock stay open for it.
  for fd in $(ls /proc/$BASHPID/fd); do
    if [[ $fd -gt 2 && $fd -ne 9 ]]; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
  # A download from the mirror can also fail now and then: up to three attempts, the later ones
  # verbose, so a lasting failure shows apt's own message.
  built=0
  for attempt in 1 2 3; do
    rm -rf --one-file-system "$tarball.tmp"
    quiet=(--quiet)
    [[ $attempt -gt 1 ]] && quiet=(--verbose)
    if mmdebstrap "${quiet[@]}" --format=tar --variant=minbase --architectures="$arch" bookworm \
         "$tarball.tmp" "${lines[@]}"; then
      built=1
      break
    fi
    echo "mmdebstrap attempt $attempt failed" >&2
    sleep 10
  done
  [[ $built -eq 1 ]] || { rm -rf --one-file-system "$tarball.tmp"; exit 1; }
  mv "$tarball.tmp" "$tarball"
  find "$cache" -maxdepth 1 -name 'bookworm-minbase-*.tar' ! -path "$tarball" -delete
) 9>"$cache/.lock" || fail "mmdebstrap failed"
root_secs=$((SECONDS - t))
work=$(mktemp -d /var/tmp/doberman-debroot.XXXXXX)
root="$work/root"
mounts=()
cleanup() {
  local m ok=1
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    m=${mounts[i]}
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
    if mountpoint -q "$m"; then echo "cleanup: $m is still mounted" >&2; ok=0; fi
  done
  # Never delete through a mount that is still there (one of them is the host's /dev).
  if [[ $ok -eq 1 ]]; then rm -rf --one-file-system "$work"; else echo "cleanup: left $work" >&2; fi
}
trap cleanup EXIT
mkdir -p "$root"
# In memory when possible (about 400 MB): unpacking and throwing away the root then costs no disk I/O.
if mount -t tmpfs -o size=2G,mode=755 doberman-debroot "$root" 2>/dev/null; then mounts+=("$root"); fi
tar -C "$root" --exclude="./dev/*" -xf "$tarball" || fail "cannot unpack $tarball"
lap "clean root: tarball $root_state" "$root_secs"
lap "clean root: extracted" $((SECONDS - t - root_secs))
bind() { mkdir -p "$2"; mount "${@:3}" "$1" "$2"; mounts+=("$2"); }
mount -t proc proc "$root/proc"; mounts+=("$root/proc")
bind /dev "$root/dev" --bind
mkdir -p "$cache/lists/partial"
bind "$cache/archives" "$root/var/cache/apt/archives" --bind
bind "$cache/lists" "$root/var/lib/apt/lists" --bind
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
# A throwaway root: dpkg need not fsync every file it unpacks (what mmdebstrap itself does).
echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/unsafe-io"
mkdir -p "$root/tmp/pkg" && cp "$deb" "$root/tmp/pkg/"
path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
as_root() { chroot "$root" /usr/bin/env -i PATH=$path HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
as_user() { chroot --userspec=4242:4242 "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin \
              HOME=/home/tester LANG=C.UTF-8 "$@"; }

# Install, dependencies from the mirror.
t=$SECONDS
as_root apt-get update -qq || fail "apt-get update in the clean root"
lap "apt-get update" $((SECONDS - t))
t=$SECONDS
as_root bash -c 'cd /tmp/pkg && apt-get install -y ./doberman_*.deb' > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "apt-get install ./doberman_*.deb"; }
sed -n '/NEW packages will be installed/,/^[0-9]* upgraded/p' "$work/install.log"
lap "apt-get install ./doberman_*.deb" $((SECONDS - t))

# As a user would.
t=$SECONDS
as_root useradd -m -u 4242 -U tester
echo "== doberman-guard --version"; as_user doberman-guard --version || fail "doberman-guard --version"
echo "== dobermanc --version"; as_user dobermanc --version || fail "dobermanc --version"
as_user mkdir -m 700 -p /tmp/k
as_user dobermanc keygen --out /tmp/k/dev || fail "dobermanc keygen"
as_user dobermanc build /usr/share/doberman/packs --key /tmp/k/dev.key --out /tmp/out ||
  fail "dobermanc build /usr/share/doberman/packs"
payload='{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}'
out=$(echo "$payload" | as_user doberman-guard check --pack /tmp/out/default.dpack --pubkey /tmp/k/dev.pub) ||
  fail "doberman-guard check exited non-zero: $out"
echo "doberman-guard check 'rm -rf /': $out"
[[ "$out" == '{"verdict":"BLOCK",'* ]] || fail "doberman-guard check: expected BLOCK"
out=$(as_user python3 -c '
import doberman, sys
pack = doberman.load("/tmp/out/default.dpack", "/tmp/k/dev.pub")
d = pack.decide(sys.argv[1])
print(doberman.__file__, d.verdict, d.rules)' "$payload") || fail "python3: import doberman and decide"
echo "python3 'rm -rf /': $out"
[[ "$out" == /usr/lib/python3/dist-packages/doberman.*' BLOCK '* ]] || fail "the Python module: expected BLOCK"
as_root apt-get install -y -qq pkg-config > "$work/pkg-config.log" 2>&1 ||
  { cat "$work/pkg-config.log"; fail "apt-get install pkg-config"; }
version=$(dpkg-deb -f "$deb" Version)
out=$(as_user pkg-config --modversion doberman-runtime) || fail "pkg-config --modversion doberman-runtime"
echo "pkg-config --modversion doberman-runtime: $out ($(as_user pkg-config --libs doberman-runtime))"
[[ "$out" == "${version%%-*}" ]] || fail "pkg-config: version $out, package $version"
[[ $(as_user /sbin/ldconfig -p) == *'libdoberman_runtime.so.1 '* ]] || fail "the loader cache lacks libdoberman_runtime.so.1"
as_user ls -l /usr/lib/systemd/user/doberman-guard.service /usr/lib/systemd/user/doberman-guard.socket ||
  fail "systemd user units"
grep -q '^ExecStart=/usr/bin/doberman-guard serve ' "$root/usr/lib/systemd/user/doberman-guard.service" ||
  fail "doberman-guard.service does not start /usr/bin/doberman-guard"
outside=$(as_root dpkg -L doberman | grep -v -e '^/usr/' -e '^/usr$' -e '^/\.$' || true)
[[ -z "$outside" ]] || fail "files outside /usr: $outside"
echo "dpkg -L doberman: $(as_root dpkg -L doberman | wc -l) paths, all under /usr"
lap "checks as a user" $((SECONDS - t))

# Removal.
t=$SECONDS
as_root apt-get remove -y -qq doberman > "$work/remove.log" 2>&1 ||
  { cat "$work/remove.log"; fail "apt-get remove doberman"; }
for f in /usr/bin/dobermanc /usr/bin/doberman-guard /usr/bin/doberman-hook /usr/share/doberman \
         /usr/lib/systemd/user/doberman-guard.service; do
  [[ ! -e "$root$f" ]] || fail "$f is left after apt-get remove"
done
! as_user python3 -c 'import doberman' 2>/dev/null || fail "import doberman works after apt-get remove"
[[ $(as_user /sbin/ldconfig -p) != *libdoberman_runtime* ]] || fail "the loader still lists libdoberman_runtime"
echo "apt-get remove -y doberman: removed"
as_root apt-get autoclean -qq >/dev/null 2>&1 || true  # keep only current packages in the cache
lap "remove" $((SECONDS - t))

lap "whole test" $((SECONDS - start))
echo "== timings"
printf '  %s\n' "${timings[@]}"
echo "PASS"
