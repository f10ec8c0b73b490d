"""The physical floor of the runner benchmark: the canonical solutions called directly.

No harness, no isolation, no process per sample, no comparison of results: every solution is
exec'd in this one process and called on its inputs, and the CPU time of that is the work no
evaluator can avoid. On N cores no evaluator finishes in less than cpu_seconds / N.

    floor.py humaneval  DATA                 prompt + solution + check(entry_point), 164 tasks
    floor.py humaneval+ DATA [EXCLUDED_ID…]  every base and extra input of HumanEval+

Prints one JSON line: {"peer", "seconds" (wall), "cpu_seconds", "passed", "total", "calls"}.
Run with the interpreter the sandbox uses (/usr/bin/python3), not a pyenv shim. A baseline for
`passrate bench runner --peers` only, like the peers it is timed beside: it runs the datasets'
canonical solutions, never a model's answer, and nothing falls back to it.
"""

import copy
import gzip
import json
import sys
import time


def load(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def humaneval(data):
    problems = load(data + "/humaneval/HumanEval.jsonl.gz")
    passed = 0
    start, cpu = time.perf_counter(), time.process_time()
    for p in problems:
        program = "%s%s\n%s\ncheck(%s)\n" % (
            p["prompt"], p["canonical_solution"], p["test"], p["entry_point"])
        try:
            exec(program, {"__name__": "floor"})
            passed += 1
        except Exception:
            pass
    return {"peer": "floor: humaneval", "seconds": time.perf_counter() - start,
            "cpu_seconds": time.process_time() - cpu, "passed": passed,
            "total": len(problems), "calls": len(problems)}


def humaneval_plus(data, excluded):
    problems = [p for p in load(data + "/humanevalplus/HumanEvalPlus.jsonl.gz")
                if p["task_id"] not in excluded]
    # Some extra inputs are big integers beyond CPython's default conversion limit.
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    sys.setrecursionlimit(100_000)
    passed = calls = 0
    start, cpu = time.perf_counter(), time.process_time()
    for p in problems:
        scope = {"__name__": "floor"}
        exec(p["prompt"] + p["canonical_solution"], scope)
        fn = scope[p["entry_point"]]
        ok = True
        for args in p["base_input"] + p["plus_input"]:
            calls += 1
            try:
                # Inputs are copied per call, as every evaluator must (solutions may mutate them).
                fn(*copy.deepcopy(args))
            except Exception:
                ok = False
        passed += ok
    return {"peer": "floor: humaneval+", "seconds": time.perf_counter() - start,
            "cpu_seconds": time.process_time() - cpu, "passed": passed,
            "total": len(problems), "calls": calls}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("humaneval", "humaneval+"):
        sys.exit(__doc__)
    which, data, excluded = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    out = humaneval(data) if which == "humaneval" else humaneval_plus(data, excluded)
    out["seconds"] = round(out["seconds"], 4)
    out["cpu_seconds"] = round(out["cpu_seconds"], 4)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
