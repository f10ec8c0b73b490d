//! Requests-per-minute limiting: a token bucket whose callers reserve their slot.
//!
//! A caller takes a token if one is there; otherwise it reserves the next one (the count
//! goes negative) and sleeps until it is due. Reserving under the lock and sleeping outside
//! it keeps callers in arrival order without holding the lock while waiting.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

#[derive(Debug)]
pub struct RateLimiter {
    per_second: f64,
    capacity: f64,
    state: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

impl RateLimiter {
    /// `burst` requests may start back to back; then one every `60 / requests_per_minute` s.
    pub fn new(requests_per_minute: f64, burst: u32) -> RateLimiter {
        let capacity = f64::from(burst.max(1));
        RateLimiter {
            per_second: requests_per_minute / 60.0,
            capacity,
            state: Mutex::new(Bucket {
                tokens: capacity,
                updated: Instant::now(),
            }),
        }
    }

    /// Waits until this caller may send a request.
    pub async fn acquire(&self) {
        let wait = {
            let mut bucket = self.state.lock().expect("rate limiter lock");
            let now = Instant::now();
            let elapsed = now.duration_since(bucket.updated).as_secs_f64();
            bucket.tokens = (bucket.tokens + elapsed * self.per_second).min(self.capacity);
            bucket.updated = now;
            bucket.tokens -= 1.0;
            if bucket.tokens >= 0.0 {
                Duration::ZERO
            } else {
                Duration::from_secs_f64(-bucket.tokens / self.per_second)
            }
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn requests_are_spaced_after_the_burst() {
        let limiter = RateLimiter::new(60.0, 2);
        let start = Instant::now();
        let mut times = Vec::new();
        for _ in 0..5 {
            limiter.acquire().await;
            times.push(start.elapsed());
        }
        let secs: Vec<u64> = times.iter().map(|t| t.as_millis() as u64).collect();
        assert_eq!(secs, vec![0, 0, 1000, 2000, 3000]);
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_callers_get_distinct_slots() {
        let limiter = std::sync::Arc::new(RateLimiter::new(600.0, 1));
        let start = Instant::now();
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let limiter = limiter.clone();
                tokio::spawn(async move {
                    limiter.acquire().await;
                    start.elapsed().as_millis() as u64
                })
            })
            .collect();
        let mut times = Vec::new();
        for h in handles {
            times.push(h.await.unwrap());
        }
        times.sort();
        assert_eq!(times, vec![0, 100, 200, 300]);
    }
}
