#!/usr/bin/env bash
# run-in-guest.sh KERNEL CMD [ARGS...]
# Boots the User-Mode Linux KERNEL (from fetch-kernel.sh; no KVM needed) with this machine's
# root filesystem as its read-only root (hostfs over a read-only bind made in a private mount
# namespace, so the host enforces read-only too) and pure cgroup v2 (guest-init.sh), runs CMD
# as root in the current directory, and returns its stdout, stderr and exit code.
# Environment: VM_MEM (guest RAM, 4G), VM_TIMEOUT (seconds, 900), VM_SECCOMP (on); PASSRATE_*, RUST_*,
# CARGO_* and NEXTEST_* variables are passed in.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 KERNEL CMD [ARGS...]" >&2; exit 2; }
kernel=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
umldir=$(cd "$(dirname "$kernel")" && pwd)
mem=${VM_MEM:-4G}
timeout_s=${VM_TIMEOUT:-900}
# Not under /tmp: the guest's /tmp is its own (an overlay over the host's).
runs=$umldir/runs
mkdir -p "$runs"
run=$(mktemp -d "$runs/run.XXXXXX")
trap '[ "${VM_KEEP:-0}" = 1 ] || rm -rf "$run"' EXIT
mkdir "$run/root" "$run/out"
{
  for v in $(compgen -e); do
    case $v in PASSRATE_*|RUST_*|CARGO_*|NEXTEST_*) printf 'export %s=%q\n' "$v" "${!v}" ;; esac
  done
  printf 'cd %q || exit 125\nexec' "$PWD"
  printf ' %q' "$@"
  printf '\n'
} > "$run/cmd"

# UML keeps its guest RAM in a file under TMPDIR: /dev/shm is a tmpfs, so it stays in RAM.
# seccomp=on: UML intercepts its processes' system calls with seccomp instead of ptrace;
# page faults ran twice as fast (100 MB touched: 1.8 s of CPU instead of 3.8 s).
# con0 is the guest's console (its kernel messages go to uml.log); quiet keeps it short.
TMPDIR=/dev/shm timeout -k 10 "$timeout_s" unshare -m --propagation private sh -c '
  mount --bind / "$1/root" && mount -o remount,bind,ro "$1/root" && shift 2 && exec "$@"
' sh "$run" "$run" "$kernel" mem="$mem" rootfstype=hostfs rootflags="$run/root" ro \
  init="$here/guest-init.sh" umldir="$umldir" vmrun="$run" \
  seccomp="${VM_SECCOMP:-on}" \
  con=null con0=null,fd:1 ssl=null quiet loglevel=3 </dev/null >"$run/uml.log" 2>&1
uml_rc=$?
cat "$run/out/stdout" 2>/dev/null
cat "$run/out/stderr" >&2 2>/dev/null
rc=$(tr -dc 0-9 < "$run/out/rc" 2>/dev/null)
if [ -z "$rc" ]; then
  [ "$uml_rc" = 124 ] && echo "run-in-guest: timed out after ${timeout_s}s" >&2
  echo "run-in-guest: the guest gave no exit code (kernel exit $uml_rc); last lines of its logs:" >&2
  tail -n 40 "$run/uml.log" "$run/out/init.log" >&2 2>/dev/null
  exit 125
fi
exit "$rc"
