#!/usr/bin/env bash
# The sandbox on pure cgroup v2, as most users run it: boots a real Linux kernel whose only
# cgroup hierarchy is v2 (User-Mode Linux: a kernel that runs as an ordinary process, no KVM),
# with memory, pids and cpu enabled for children and this machine's root filesystem
# read-only inside, and runs there, as root: `passrate sandbox check` (every cgroup role must
# come from v2), the sandbox's security corpus, its limits, concurrency, warm-path and v2
# regression tests, the runner's limits tests, `passrate evaluate` of every HumanEval
# canonical solution in the pool (pass) and every HumanEvalFix buggy variant (fail) in Python,
# JavaScript and Java, and `passrate check` of some of them.
#
# The kernel is fetched with this machine's apt (scripts/cgroup-v2/fetch-kernel.sh says which
# packages and why); when it cannot be fetched, this script says so and fails: it never skips.
# The test binaries are built here, on the host, and run in the guest (one CPU, slower).
# Needs root (the sandbox does). Environment: UML_DIR (kernel cache), VM_MEM, VM_TIMEOUT.
set -euo pipefail
cd "$(dirname "$0")/.."
here=scripts/cgroup-v2
log() { echo "test-cgroup-v2: $*" >&2; }

[ "$(id -u)" = 0 ] || { log "FAILED: must run as root (the sandbox creates cgroups and uid maps)"; exit 1; }

log "fetching the kernel"
if ! kernel=$("$here/fetch-kernel.sh"); then
  log "FAILED: no User-Mode Linux kernel could be fetched (see above); the cgroup v2 tests did not run"
  exit 1
fi

log "building the test binaries and passrate on the host"
build_json=$(mktemp)
cargo build -p passrate --bins --locked >&2
cargo test -p passrate-sandbox -p passrate-runner --no-run --locked --message-format=json > "$build_json"
# test target name -> executable, from cargo's own report (the hashes in the names change).
bin_of() {
  python3 - "$build_json" "$1" "$2" <<'PY'
import json, sys
path, package, name = sys.argv[1:]
found = [m["executable"] for m in map(json.loads, open(path))
         if m.get("reason") == "compiler-artifact" and m.get("executable")
         and m["target"]["name"] == name and m["target"]["kind"] == ["test"]
         and m["manifest_path"].endswith(f"/{package}/Cargo.toml")]
if not found:
    sys.exit(f"no test binary {package}/{name} in cargo's build report")
print(found[-1])
PY
}
# Two guests at once, one per host core (a guest has one CPU). Each runs a plan: one line per
# test binary, "<label>\t<binary>\t<libtest arguments>", or a step of passrate itself
# (@sandbox-check, @passrate-check, @passrate-evaluate; see guest-suite.sh). One test thread:
# one CPU, and the delegated-subtree tests move their whole process.
plans=$(mktemp -d)
trap 'rm -rf "$build_json" "$plans"' EXIT
sbx() { printf '%s\t%s\t%s\n' "sandbox/$1" "$(bin_of passrate-sandbox "$1")" "--test-threads=1 ${2:-}"; }
run() { printf '%s\t%s\t%s\n' "runner/$1" "$(bin_of passrate-runner "$1")" "--test-threads=1 ${2:-}"; }
{
  printf '@sandbox-check\n'
  sbx cgroup_v2 --include-ignored
  # The one test of the corpus that needs cgroup v1 hierarchies (there are none here) is
  # named, not silently passed: the summary lists it as filtered out.
  sbx security "--skip daemons_die_under_cgroup_v1_kill_too"
  sbx prestart
  printf '@passrate-check\n'
} > "$plans/1"
{
  sbx concurrency
  sbx python_slots
  # The warm compiler: serving compilations one after another, and replaced when its
  # cgroup's memory.current passes the bound. (The byte-for-byte reuse corpus and the
  # class-data archive tests exercise javac itself, not the cgroups: the host runs them.)
  sbx javac "one_warm_compiler_serves_one_compilation_after_another a_compiler_past_its_memory_bound_is_replaced"
  # The runner's limits: per-test CPU budgets stopping a stuck test (the cgroup's CPU time).
  # Left to the host, as they test the runtimes, not the cgroups, at the host's speed:
  # `tests_within_their_budgets_are_not_stopped` (budgets calibrated on the host; the guest
  # is several times slower), `cpu_report.rs` (per-test CPU from the runtimes' own clocks,
  # tick-granular in UML) and `out_of_memory.rs` (Python's heap cap, RLIMIT_DATA, after a
  # million-step loop that alone took over 20 s of the guest's CPU).
  run test_budgets "--skip tests_within_their_budgets_are_not_stopped"
  # Every HumanEval canonical solution of the pool passes and every HumanEvalFix buggy
  # variant fails, in all three languages, through `passrate evaluate` (extraction, runner,
  # sandbox: what the runner's own HumanEvalPack test checks, and more).
  printf '@passrate-evaluate\n'
} > "$plans/2"
cat "$plans"/1 "$plans"/2 >&2

log "booting two pure cgroup v2 guests ($kernel)"
start=$(date +%s)
pids=()
for n in 1 2; do
  # The test binaries find their crate's files through the paths compiled into them.
  VM_TIMEOUT=${VM_TIMEOUT:-1200} "$here/run-in-guest.sh" "$kernel" \
    "$PWD/$here/guest-suite.sh" "$plans/$n" "$PWD/target/debug/passrate" \
    > "$plans/out.$n" 2>&1 &
  pids+=($!)
done
rc=0
for n in 1 2; do
  wait "${pids[$((n - 1))]}" || rc=1
  echo "======== guest $n" >&2
  cat "$plans/out.$n" >&2
done
log "guest part: $(( $(date +%s) - start )) s wall (two guests at once)"
[ "$rc" = 0 ] || { log "FAILED (see above)"; exit 1; }
log "all passed on pure cgroup v2"
