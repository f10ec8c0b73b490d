//! The warm Java compiler's life cycle: when a compiler JVM is kept and when it is replaced.

mod common;

use passrate_sandbox::ExecStatus;

fn hello(j: &common::Jail, n: usize) {
    let out = j.java(
        "Hello",
        &format!("public class Hello {{ public static void main(String[] a) {{ System.out.println({n}); }} }}"),
    );
    assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), n.to_string());
}

/// The live compilers' leaves once `done` holds for them (a retired server's jail removes its
/// leaf as it exits, which may trail the execution's return on a loaded machine).
fn leaves_when(j: &common::Jail, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let leaves = j.compiler_leaves();
        if done(&leaves) || std::time::Instant::now() > deadline {
            return leaves;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn one_warm_compiler_serves_one_compilation_after_another() {
    let j = common::jail();
    let mut seen = Vec::new();
    for n in 0..4 {
        hello(&j, n);
        seen.push(j.compiler_leaves());
    }
    assert_eq!(seen[0].len(), 1, "{seen:?}");
    assert!(seen.iter().all(|s| *s == seen[0]), "{seen:?}");
}

#[test]
fn a_compiler_past_its_memory_bound_is_replaced() {
    // Any real JVM is past a 1-byte bound: each compilation then gets a fresh server, and the
    // retired one (its leaf with it) is gone once the execution returns.
    let j = common::jail_with_config(|c| c.javac_recycle_memory_bytes = 1);
    for n in 0..3 {
        hello(&j, n);
        let leaves = leaves_when(&j, |l| l.is_empty());
        assert!(leaves.is_empty(), "after compilation {n}: {leaves:?}");
    }
}

#[test]
fn a_compiler_past_its_count_is_replaced() {
    let j = common::jail_with_config(|c| c.javac_recycle_after = 2);
    hello(&j, 0);
    let first = j.compiler_leaves();
    assert_eq!(first.len(), 1, "{first:?}");
    hello(&j, 1);
    let leaves = leaves_when(&j, |l| l.is_empty());
    assert!(leaves.is_empty(), "{leaves:?}");
    hello(&j, 2);
    let third = j.compiler_leaves();
    assert_eq!(third.len(), 1, "{third:?}");
    assert_ne!(first, third);
}

#[test]
fn byte_identical_sources_reuse_a_compilation_and_its_errors() {
    let j = common::jail();
    let broken = "public class Broken { int f() { return; } }";
    let first = j.java("Broken", broken);
    let second = j.java("Broken", broken);
    for out in [&first, &second] {
        assert_eq!(out.status, ExecStatus::RuntimeError, "{out:?}");
        assert_eq!(out.step, 0, "the javac step must be the one that failed");
    }
    assert_eq!(first.stderr, second.stderr);
    // The stored compilation's own measurements: a second javac run would not repeat them
    // to the microsecond.
    assert_eq!(
        (first.cpu_us, first.wall_us),
        (second.cpu_us, second.wall_us)
    );
    // One byte more is another compilation, which still runs.
    let other = j.java("Broken", &format!("{broken} "));
    assert_eq!(other.status, ExecStatus::RuntimeError);
    assert_ne!(other.wall_us, first.wall_us);
    hello(&j, 7);
    hello(&j, 7);
}
