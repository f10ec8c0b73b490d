//! A call that exhausts the heap fails alone, the same way every time, and the calls after it
//! still run. Regression (mbpp/392's reference on its largest inputs): the failed call's
//! frames, held by the exception's traceback, kept its memory while the harness encoded the
//! error, whose own allocations then failed now and then and ended the process instead.

mod common;

use common::{int, runner};
use passrate_schema::{Language, Value};

#[test]
fn a_call_that_exhausts_the_heap_fails_alone_every_time() {
    let code = "def get_max_sum(n):\n\tres = [0]\n\tfor i in range(1, n + 1):\n\t\tres.append(max(res[i // 2] + res[i // 3] + res[i // 4] + res[i // 5], i))\n\treturn res[n]\n";
    let calls: Vec<Vec<Value>> = [10, 1_000_000, 60, 999_999, 2, 1_000_001]
        .into_iter()
        .map(|n| vec![int(n)])
        .collect();
    for run in 0..6 {
        let out = runner()
            .run_calls(Language::Python, code, "get_max_sum", None, &calls)
            .unwrap_or_else(|e| panic!("run {run}: {e}"));
        let summary: Vec<String> = out
            .iter()
            .map(|o| match o {
                Ok(v) => v.to_string(),
                Err(e) => e.kind.clone(),
            })
            .collect();
        assert_eq!(
            summary,
            [
                "12",
                "MemoryError",
                "106",
                "MemoryError",
                "2",
                "MemoryError"
            ],
            "run {run}"
        );
    }
}
