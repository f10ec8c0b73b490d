//! The intake cache: results of recording and validation keyed by the content hash of
//! everything that determines them, so regenerating the pool only executes what changed.
//!
//! * A key is blake3 over the cache's *fingerprint* (the runner's harness sources and
//!   options, this crate's [`INTAKE_VERSION`]) and the JSON of the inputs: a raw task spec
//!   for recording, or (language, answer code, the tests that language runs, comparators,
//!   limits, calibration) for one evaluation. Two tasks that evaluate the same code on the
//!   same tests in the same language (a base task's Java reference and the Java target of a
//!   translation of it) share one key, so each distinct execution runs once per generation.
//! * In memory, each key is computed once even when several workers ask for it at the same
//!   time (the others wait for the first).
//! * On disk (optional, `dir/<kind>/<key>.json`), successful computations persist across
//!   runs. Infrastructure errors are never stored: they are retried next time.
//!
//! The cache never changes a result: a hit returns exactly what the execution returned when
//! it was stored. Delete the directory (or pass no directory) after upgrading a language
//! runtime, which the fingerprint cannot see.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Bump when recording, building or validation logic changes what a cached entry means.
/// 2: intake's `run_calls` hold each call to the calls' allowance (the runner's options,
/// which the fingerprint covers, did not change).
pub const INTAKE_VERSION: u32 = 2;

/// A result as its JSON bytes: compact in memory (a whole import's results stay resident)
/// and what the disk holds, so a hit only parses.
type Slot = Arc<OnceLock<Result<Arc<[u8]>, String>>>;

/// Memo of intake computations, optionally persisted in a directory.
#[derive(Debug)]
pub struct Cache {
    dir: Option<PathBuf>,
    fingerprint: String,
    slots: Mutex<HashMap<(String, String), Slot>>,
    hits: AtomicUsize,
    misses: AtomicUsize,
}

/// Hit and miss counts (memory and disk hits together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    pub hits: usize,
    pub misses: usize,
}

impl Cache {
    /// A cache for executions whose behaviour `fingerprint` identifies; `dir` persists it.
    pub fn new(dir: Option<PathBuf>, fingerprint: &str) -> Cache {
        Cache {
            dir,
            fingerprint: format!("passrate-pool-intake/{INTAKE_VERSION}\n{fingerprint}"),
            slots: Mutex::new(HashMap::new()),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
        }
    }

    /// A cache that only deduplicates within this process.
    pub fn in_memory(fingerprint: &str) -> Cache {
        Cache::new(None, fingerprint)
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// The key of `input` in this cache.
    pub fn key<I: Serialize + ?Sized>(&self, kind: &str, input: &I) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(self.fingerprint.as_bytes());
        hasher.update(b"\n");
        hasher.update(kind.as_bytes());
        hasher.update(b"\n");
        let json = serde_json::to_vec(input).expect("cache inputs always serialise");
        hasher.update(&json);
        hasher.finalize().to_hex().to_string()
    }

    fn path(&self, kind: &str, key: &str) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(kind).join(format!("{key}.json")))
    }

    /// Returns the stored value for `key`, or computes it with `compute` (once per key, even
    /// with concurrent callers). `Err` from `compute` is an infrastructure failure: returned
    /// to every waiting caller but never persisted.
    pub fn get_or_compute<T, F>(&self, kind: &str, key: &str, compute: F) -> Result<T, String>
    where
        T: Serialize + DeserializeOwned,
        F: FnOnce() -> Result<T, String>,
    {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots
                .entry((kind.to_owned(), key.to_owned()))
                .or_default()
                .clone()
        };
        let mut computed_here = false;
        let stored = slot.get_or_init(|| {
            if let Some(path) = self.path(kind, key)
                && let Ok(bytes) = fs_err::read(&path)
                && serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok()
            {
                return Ok(bytes.into());
            }
            computed_here = true;
            self.misses.fetch_add(1, Ordering::Relaxed);
            let bytes =
                compute().and_then(|v| serde_json::to_vec(&v).map_err(|e| e.to_string()))?;
            if let Some(path) = self.path(kind, key) {
                // A cache that cannot be written only costs time next run.
                let _ = write_atomically(&path, &bytes);
            }
            Ok(bytes.into())
        });
        if !computed_here {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        if stored.is_err() && computed_here {
            // Failures are not remembered in memory either: a retry executes again.
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            let k = (kind.to_owned(), key.to_owned());
            if slots.get(&k).is_some_and(|s| Arc::ptr_eq(s, &slot)) {
                slots.remove(&k);
            }
        }
        let bytes = stored.clone()?;
        serde_json::from_slice(&bytes).map_err(|e| format!("cache entry {kind}/{key}: {e}"))
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        fs_err::create_dir_all(parent)?;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    fs_err::write(&tmp, bytes)?;
    fs_err::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_once_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        let calls = AtomicUsize::new(0);
        let cache = Cache::new(Some(dir.path().to_path_buf()), "fp");
        let key = cache.key("k", &("a", 1));
        let f = || {
            calls.fetch_add(1, Ordering::SeqCst);
            Ok::<_, String>(vec![1, 2, 3])
        };
        assert_eq!(cache.get_or_compute("k", &key, f).unwrap(), vec![1, 2, 3]);
        assert_eq!(cache.get_or_compute("k", &key, f).unwrap(), vec![1, 2, 3]);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // A new process (new cache object) reads the disk entry.
        let again = Cache::new(Some(dir.path().to_path_buf()), "fp");
        assert_eq!(again.get_or_compute("k", &key, f).unwrap(), vec![1, 2, 3]);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(again.stats(), CacheStats { hits: 1, misses: 0 });
        // Another fingerprint is another key.
        let other = Cache::new(Some(dir.path().to_path_buf()), "fp2");
        assert_ne!(other.key("k", &("a", 1)), key);
    }

    #[test]
    fn errors_are_retried_in_memory() {
        let cache = Cache::in_memory("fp");
        let key = cache.key("k", "x");
        let r: Result<u32, String> = cache.get_or_compute("k", &key, || Err("boom".into()));
        assert_eq!(r, Err("boom".into()));
        let r: Result<u32, String> = cache.get_or_compute("k", &key, || Ok(7));
        assert_eq!(r, Ok(7));
    }

    #[test]
    fn errors_are_not_persisted() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(Some(dir.path().to_path_buf()), "fp");
        let key = cache.key("k", "x");
        let r: Result<u32, String> = cache.get_or_compute("k", &key, || Err("boom".into()));
        assert_eq!(r, Err("boom".into()));
        let fresh = Cache::new(Some(dir.path().to_path_buf()), "fp");
        let r: Result<u32, String> = fresh.get_or_compute("k", &key, || Ok(7));
        assert_eq!(r, Ok(7));
    }
}
