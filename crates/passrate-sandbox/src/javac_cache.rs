//! Results of the warm Java compiler, reused for byte-identical inputs.
//!
//! Why this is sound: a warm compilation is a function of its source files and its class
//! path alone. The options are fixed (`JavacServer.java`: `-proc:none`, so no code from a
//! source runs and nothing else is read), the class path is the server's empty work dir
//! (classes are kept in memory, never written) or the class-data archive's JAR (host-built,
//! read-only, at a path unique to this sandbox and never rewritten while it lives), and the
//! JDK is the one this sandbox resolved at start (the cache lives and dies with the
//! `Sandbox`). The key is the class path and the sources themselves (names and bytes,
//! compared in full, not a hash), so an entry only ever answers a request that would have
//! compiled to the same classes or the same errors: a compile error stays a compile error,
//! with its diagnostics. Only the compilation is skipped; the run step still executes in a
//! fresh jail, as for any answer. A compilation that timed out, or on which javac itself
//! crashed, is never stored, and an entry whose compilation took more CPU than the request's
//! budget is not used (the request compiles, and times out, as without the cache). The CPU
//! and wall time reported are those measured when the entry was compiled.
//!
//! Intake compiles each reference twice (the two validation runs of the determinism
//! check): ~30 % of a pool import's compilations repeat one seen before.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::api::InputFile;
use crate::javac::CompileOutcome;

type Key = (Option<String>, Vec<(String, Vec<u8>)>);

#[derive(Default)]
struct State {
    entries: HashMap<Key, CompileOutcome>,
    /// Insertion order, for eviction (oldest first).
    order: VecDeque<Key>,
    bytes: usize,
}

/// A byte-bounded map from a compilation's sources to its outcome.
pub(crate) struct CompileCache {
    capacity: usize,
    state: Mutex<State>,
}

fn key(sources: &[InputFile], class_path: Option<&str>) -> Key {
    (
        class_path.map(str::to_owned),
        sources
            .iter()
            .map(|f| (f.path.clone(), f.contents.clone()))
            .collect(),
    )
}

fn cost(key: &Key, outcome: &CompileOutcome) -> usize {
    let sources: usize = key.0.as_ref().map_or(0, String::len)
        + key.1.iter().map(|(p, c)| p.len() + c.len()).sum::<usize>();
    let classes: usize = outcome
        .classes
        .iter()
        .map(|f| f.path.len() + f.contents.len())
        .sum();
    // Twice the key: it is held by the map and by the eviction order.
    2 * sources + classes + outcome.diagnostics.len() + 128
}

/// Whether an outcome may be reused for the same sources.
fn storable(outcome: &CompileOutcome) -> bool {
    !outcome.timed_out && !outcome.diagnostics.starts_with("javac crashed")
}

impl CompileCache {
    /// A cache holding at most `capacity` bytes (0: nothing is stored).
    pub(crate) fn new(capacity: usize) -> CompileCache {
        CompileCache {
            capacity,
            state: Mutex::new(State::default()),
        }
    }

    /// The stored outcome for these sources and class path, if its compilation fit in
    /// `cpu_ms`.
    pub(crate) fn get(
        &self,
        sources: &[InputFile],
        class_path: Option<&str>,
        cpu_ms: u64,
    ) -> Option<CompileOutcome> {
        if self.capacity == 0 {
            return None;
        }
        let key = key(sources, class_path);
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let outcome = state.entries.get(&key)?;
        (outcome.cpu_us <= cpu_ms.saturating_mul(1000)).then(|| outcome.clone())
    }

    pub(crate) fn put(
        &self,
        sources: &[InputFile],
        class_path: Option<&str>,
        outcome: &CompileOutcome,
    ) {
        if self.capacity == 0 || !storable(outcome) {
            return;
        }
        let key = key(sources, class_path);
        let size = cost(&key, outcome);
        if size > self.capacity {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.entries.contains_key(&key) {
            return;
        }
        while state.bytes + size > self.capacity {
            let Some(old) = state.order.pop_front() else {
                break;
            };
            if let Some(o) = state.entries.remove(&old) {
                state.bytes -= cost(&old, &o);
            }
        }
        state.bytes += size;
        state.order.push_back(key.clone());
        state.entries.insert(key, outcome.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(name: &str, text: &str) -> Vec<InputFile> {
        vec![InputFile {
            path: name.into(),
            contents: text.as_bytes().to_vec(),
            executable: false,
        }]
    }

    fn outcome(ok: bool, timed_out: bool, diagnostics: &str) -> CompileOutcome {
        CompileOutcome {
            ok,
            timed_out,
            diagnostics: diagnostics.into(),
            classes: vec![InputFile {
                path: "A.class".into(),
                contents: vec![0xca, 0xfe, 0xba, 0xbe],
                executable: false,
            }],
            cpu_us: 30_000,
            wall_us: 40_000,
            server_memory_bytes: None,
            reused_context: false,
        }
    }

    #[test]
    fn only_byte_identical_sources_share_an_outcome() {
        let cache = CompileCache::new(1 << 20);
        let a = source("A.java", "class A {}");
        cache.put(&a, None, &outcome(true, false, ""));
        assert!(cache.get(&a, None, 10_000).is_some_and(|o| o.ok));
        assert!(
            cache
                .get(&source("A.java", "class A {} "), None, 10_000)
                .is_none()
        );
        assert!(
            cache
                .get(&source("B.java", "class A {}"), None, 10_000)
                .is_none()
        );
    }

    #[test]
    fn a_compile_error_stays_a_compile_error() {
        let cache = CompileCache::new(1 << 20);
        let a = source("A.java", "class A { int f() { return; } }");
        cache.put(
            &a,
            None,
            &outcome(false, false, "A.java:1: error: missing return value"),
        );
        let hit = cache.get(&a, None, 10_000).expect("stored");
        assert!(!hit.ok);
        assert!(hit.diagnostics.contains("error"));
    }

    #[test]
    fn timeouts_crashes_and_over_budget_entries_are_not_reused() {
        let cache = CompileCache::new(1 << 20);
        let (a, b) = (source("A.java", "a"), source("B.java", "b"));
        cache.put(
            &a,
            None,
            &outcome(false, true, "compilation exceeded its CPU budget"),
        );
        cache.put(&b, None, &outcome(false, false, "javac crashed: x"));
        assert!(cache.get(&a, None, 10_000).is_none());
        assert!(cache.get(&b, None, 10_000).is_none());
        let c = source("C.java", "c");
        cache.put(&c, None, &outcome(true, false, ""));
        assert!(cache.get(&c, None, 29).is_none(), "stored at 30 ms of CPU");
        assert!(cache.get(&c, None, 30).is_some());
    }

    #[test]
    fn the_cache_stays_within_its_bytes() {
        let one = cost(
            &key(&source("A.java", "0"), None),
            &outcome(true, false, ""),
        );
        let cache = CompileCache::new(3 * one);
        for i in 0..10 {
            cache.put(
                &source("A.java", &i.to_string()),
                None,
                &outcome(true, false, ""),
            );
        }
        let state = cache.state.lock().unwrap();
        assert!(state.bytes <= 3 * one);
        assert_eq!(state.entries.len(), 3);
        drop(state);
        assert!(cache.get(&source("A.java", "9"), None, 10_000).is_some());
        assert!(cache.get(&source("A.java", "0"), None, 10_000).is_none());
        assert!(
            CompileCache::new(0)
                .get(&source("A.java", "9"), None, 10_000)
                .is_none()
        );
    }

    #[test]
    fn the_class_path_is_part_of_the_key() {
        let cache = CompileCache::new(1 << 20);
        let a = source(
            "T.java",
            "import org.junit.Test; class T { @Test void t() {} }",
        );
        cache.put(
            &a,
            Some("/run/passrate-java/x/app.jar"),
            &outcome(true, false, ""),
        );
        assert!(
            cache
                .get(&a, Some("/run/passrate-java/x/app.jar"), 10_000)
                .is_some()
        );
        assert!(cache.get(&a, None, 10_000).is_none());
        assert!(
            cache
                .get(&a, Some("/run/passrate-java/y/app.jar"), 10_000)
                .is_none()
        );
    }
}
