//! One work queue for intake's per-task stages (build, screen, validate, strength): `threads`
//! scoped workers take the next item in turn, so a slow task never holds up the others, and
//! results come back in the items' order whatever order they finish in.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `f(item)` for every item on `threads` workers, results in the items' order. After each,
/// `finished(item, result, done)` is called (for progress) with the count of items finished
/// so far, this one included.
pub fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
    finished: impl Fn(&T, &R, usize) + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(i) else { break };
                    let result = f(item);
                    finished(item, &result, done.fetch_add(1, Ordering::SeqCst) + 1);
                    results.lock().expect("no panics while locked")[i] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("no panics while locked")
        .into_iter()
        .map(|r| r.expect("every item mapped"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_items_order_and_every_item_is_counted_once() {
        let items: Vec<u64> = (0..50).collect();
        let counts = std::sync::Mutex::new(Vec::new());
        let out = super::map_in_order(
            &items,
            4,
            |x| {
                // Later items finish first.
                std::thread::sleep(std::time::Duration::from_micros(50 - *x));
                x * 2
            },
            |x, result, done| {
                assert_eq!(*result, x * 2);
                counts.lock().unwrap().push(done);
            },
        );
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        let mut counts = counts.into_inner().unwrap();
        counts.sort_unstable();
        assert_eq!(counts, (1..=50).collect::<Vec<_>>());
    }
}
