//! Backoff between attempts: exponential with jitter, and `Retry-After` parsing.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::time::{Duration, SystemTime};

use crate::config::Limits;

/// When to try again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base: Duration,
    pub max: Duration,
    pub max_retry_after: Duration,
}

impl RetryPolicy {
    pub fn from_limits(limits: &Limits) -> RetryPolicy {
        RetryPolicy {
            max_retries: limits.max_retries,
            base: limits.retry_base,
            max: limits.retry_max,
            max_retry_after: limits.max_retry_after,
        }
    }

    /// The wait before retry number `retry` (1-based). "Equal jitter": a uniformly random
    /// point in the upper half of `min(max, base·2^(retry-1))`, so clients that failed
    /// together do not retry together. A server's `Retry-After` (capped at
    /// `max_retry_after`) is a lower bound.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let exponent = retry.saturating_sub(1).min(30);
        let ceiling = self.base.saturating_mul(1u32 << exponent).min(self.max);
        let jittered = ceiling / 2 + ceiling.mul_f64(random_fraction() / 2.0);
        match retry_after {
            Some(asked) => asked.min(self.max_retry_after).max(jittered),
            None => jittered,
        }
    }
}

/// A number in [0, 1). Jitter needs no reproducibility or quality, only variation between
/// clients, so std's randomly keyed hasher is enough (and avoids a RNG dependency).
fn random_fraction() -> f64 {
    let bits = RandomState::new().hash_one(std::time::Instant::now());
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// Parses a `Retry-After` value: delay-seconds (integer, or decimal as some gateways send)
/// or an HTTP-date, relative to `now`. A date in the past means "now".
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 5,
            base: Duration::from_millis(100),
            max: Duration::from_millis(1_000),
            max_retry_after: Duration::from_secs(10),
        }
    }

    #[test]
    fn delays_grow_exponentially_within_jitter_bounds_and_cap() {
        let p = policy();
        for (retry, ceiling_ms) in [
            (1, 100),
            (2, 200),
            (3, 400),
            (4, 800),
            (5, 1000),
            (40, 1000),
        ] {
            for _ in 0..50 {
                let d = p.delay(retry, None).as_secs_f64() * 1000.0;
                assert!(
                    d >= ceiling_ms as f64 / 2.0 - 1e-6 && d <= ceiling_ms as f64 + 1e-6,
                    "retry {retry}: {d} ms"
                );
            }
        }
        let distinct: std::collections::HashSet<_> = (0..20).map(|_| p.delay(3, None)).collect();
        assert!(distinct.len() > 1, "jitter varies");
    }

    #[test]
    fn retry_after_is_a_lower_bound_up_to_the_cap() {
        let p = policy();
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(3_600))),
            Duration::from_secs(10)
        );
        assert!(p.delay(4, Some(Duration::ZERO)) >= Duration::from_millis(400));
    }

    #[test]
    fn retry_after_accepts_seconds_and_http_dates() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after(" 1.5 ", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:07 GMT", now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
    }
}
