#!/usr/bin/env bash
# Fetches a User-Mode Linux kernel (a Linux kernel that runs as an ordinary process: no KVM)
# with this machine's own apt, unpacks it under $UML_DIR (nothing is installed, the system's
# apt sources are not changed), and points it at a glibc unpacked beside it.
#
# Which packages, and why:
# - `user-mode-linux` from Debian sid (7.x). Bookworm's (6.1) and trixie's (6.12) builds panic
#   at the first exec on CPUs with AVX-512/AMX ("ptrace set fp regs failed, errno = 14": the
#   host's xstate is larger than those builds handle), which is this kind of machine.
# - `libc6` from Debian trixie (2.41): the sid kernel binary needs a newer glibc than
#   bookworm's 2.36; its ELF interpreter and rpath are pointed at the unpacked copy
#   (patchelf, installed with apt-get when missing).
#
# Prints the kernel's path on stdout. Fails, saying why, when the packages cannot be fetched:
# the cgroup v2 tests never skip silently.
set -euo pipefail
UML_DIR=${UML_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/passrate/uml-v2}
UML_PACKAGE=${UML_PACKAGE:-user-mode-linux/sid}
LIBC_PACKAGE=${LIBC_PACKAGE:-libc6/trixie}
log() { echo "fetch-kernel: $*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

kernel=$UML_DIR/uml/linux
if [ -x "$kernel" ] && [ -f "$UML_DIR/uml/.complete" ] && [ "${UML_REFETCH:-0}" != 1 ]; then
  log "using $(cat "$UML_DIR/uml/.complete") from $UML_DIR"
  echo "$kernel"; exit 0
fi

command -v apt-get >/dev/null || fail "apt-get not found: this script needs a Debian-family host"
if ! command -v patchelf >/dev/null; then
  log "installing patchelf (apt-get)"
  apt-get update -q >&2 || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q patchelf >&2 || fail "cannot install patchelf"
fi

# The Debian mirror this machine already uses (its first non-security source).
mirror=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -1 || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || fail "$keyring is missing (apt-get install debian-archive-keyring)"

apt=$UML_DIR/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/dl"
cat > "$apt/sources.list" <<L
deb [signed-by=$keyring] $mirror sid main
deb [signed-by=$keyring] $mirror trixie main
L
# A private source list, state and cache: the host's apt configuration stays as it was.
A=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
   # The private directories are root's: apt's unprivileged _apt user cannot write them.
   -o APT::Sandbox::User=root)
log "apt-get update (sid, trixie from $mirror)"
apt-get "${A[@]}" update -q >&2 || fail "apt-get update of sid/trixie from $mirror failed"
cd "$apt/dl"
rm -f ./*.deb
apt-get "${A[@]}" download "$UML_PACKAGE" "$LIBC_PACKAGE" >&2 ||
  fail "cannot download $UML_PACKAGE and $LIBC_PACKAGE from $mirror (no such package?)"

rm -rf "$UML_DIR/uml.new"
mkdir -p "$UML_DIR/uml.new"
for f in ./user-mode-linux_*.deb ./libc6_*.deb; do dpkg-deb -x "$f" "$UML_DIR/uml.new"; done
lib=$UML_DIR/uml/usr/lib/x86_64-linux-gnu   # final location, after the rename below
cp "$UML_DIR/uml.new/usr/bin/linux.uml" "$UML_DIR/uml.new/linux"
patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --set-rpath "$lib" "$UML_DIR/uml.new/linux"
rm -rf "$UML_DIR/uml"
mv "$UML_DIR/uml.new" "$UML_DIR/uml"
version=$("$kernel" --version 2>/dev/null | head -1 || true)
[ -n "$version" ] || fail "the unpacked kernel $kernel does not run"
ls "$UML_DIR"/uml/usr/lib/uml/modules/*/kernel/fs/overlayfs/overlay.ko >/dev/null 2>&1 ||
  fail "the package has no overlayfs module (needed for the guest's /tmp)"
echo "$(ls "$apt/dl")" | tr '\n' ' ' > "$UML_DIR/uml/.complete"
log "kernel $version ($(cat "$UML_DIR/uml/.complete"))"
echo "$kernel"
