#!/usr/bin/env bash
# Page faults per warm Python execution, the figure that moves with the fork server's and
# the harness's Python work (each object touched after a fork is a page copied). Runs
# `passrate bench runner --only python` under `perf record -e page-faults` and counts, per
# child that installed the seccomp filter (an execution), its faults, and per fork server
# cycle (between two forks) the server's own. Needs root and perf.
#   bash bench/python-faults.sh [PASSRATE_BINARY] [ROUNDS]
set -euo pipefail
bin=${1:-target/release/passrate}
rounds=${2:-2}
data=$(mktemp -t passrate-faults.XXXXXX)
trap 'rm -f "$data"' EXIT
perf record -q -c 1 -e page-faults -e syscalls:sys_enter_clone -e syscalls:sys_enter_prctl \
    -e syscalls:sys_enter_exit_group -o "$data" -- \
    "$bin" bench runner --runs "$rounds" --only python --no-plus >/dev/null 2>&1
perf script -i "$data" -F comm,pid,event,trace 2>/dev/null | /usr/bin/python3 -c '
import collections, sys
events = collections.defaultdict(list)
for line in sys.stdin:
    f = line.split()
    if len(f) < 3 or not f[0].startswith("python3"):
        continue
    pid, event = f[1], f[2]
    if event.startswith("page-faults"):
        events[pid].append("F")
    elif "clone" in event:
        events[pid].append("C")
    elif "prctl" in event and "option: 0x00000016" in line:  # PR_SET_SECCOMP
        events[pid].append("S")
    elif "exit_group" in event:
        events[pid].append("X")
cycles, children = [], []
for seq in events.values():
    if seq.count("C") > 20:  # a fork server
        count = None
        for e in seq:
            if e == "C":
                if count is not None:
                    cycles.append(count)
                count = 0
            elif e == "F" and count is not None:
                count += 1
    elif "S" in seq and "X" in seq:
        children.append(seq.count("F"))
if not cycles or not children:
    sys.exit("no warm Python executions seen (root and perf needed)")
med = lambda v: sorted(v)[len(v) // 2]
print("executions %d: page faults per execution median %d, mean %.1f; fork server per cycle median %d, mean %.1f"
      % (len(children), med(children), sum(children) / len(children), med(cycles), sum(cycles) / len(cycles)))
'
