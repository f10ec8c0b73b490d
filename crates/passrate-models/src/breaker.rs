//! A per-model circuit breaker for connection-level failures.
//!
//! Without it, a dead endpoint costs every unit its full retry schedule: `(1 + max_retries)
//! × units` connection attempts, each up to `timeout`. The breaker counts consecutive
//! connection-level failures (refused, DNS, TLS, reset, timeout) across all of the model's
//! units; at the threshold it opens and attempts fail at once without sending. After the
//! cool-down one trial attempt is let through (half-open): if it gets any answer the breaker
//! closes, if it fails the breaker opens for another cool-down.
//!
//! An HTTP answer, even a 4xx or 5xx, proves the endpoint is reachable: it ends the streak.
//! Those failures are the retry loop's business, and a 401 or 404 is caught by the
//! pre-flight check instead.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// Whether the breaker lets attempts through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CircuitState {
    /// Attempts are sent.
    Closed,
    /// Attempts fail at once until the cool-down ends.
    Open,
    /// The cool-down has ended: one trial attempt decides.
    HalfOpen,
}

/// What the breaker has seen, for reports and tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircuitStats {
    pub state: CircuitState,
    /// Connection-level failures since the last answer.
    pub consecutive_failures: u32,
    /// Times the breaker has opened (including re-opening after a failed trial).
    pub times_opened: u32,
    /// Attempts refused without sending.
    pub fast_failures: u64,
    /// The last connection-level failure.
    pub last_error: Option<String>,
}

/// Why an attempt was refused without sending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub failures: u32,
    pub last_error: String,
}

#[derive(Debug)]
pub struct CircuitBreaker {
    /// 0 disables the breaker.
    threshold: u32,
    cooldown: Duration,
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    phase: Phase,
    consecutive: u32,
    times_opened: u32,
    fast_failures: u64,
    last_error: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Closed,
    Open {
        until: Instant,
    },
    /// The trial attempt is out; everyone else fails fast until it reports.
    Trial,
}

/// Leave to send one attempt. Report its result with [`Permit::succeeded`],
/// [`Permit::answered_with_error`] or [`Permit::connection_failed`]; a permit dropped
/// unreported (the attempt was cancelled) frees the trial slot for someone else.
#[derive(Debug)]
#[must_use = "report the attempt's result"]
pub struct Permit<'a> {
    breaker: &'a CircuitBreaker,
    trial: bool,
    reported: bool,
}

impl CircuitBreaker {
    /// Opens after `threshold` consecutive connection failures (0: never), for `cooldown`.
    pub fn new(threshold: u32, cooldown: Duration) -> CircuitBreaker {
        CircuitBreaker {
            threshold,
            cooldown,
            inner: Mutex::new(Inner {
                phase: Phase::Closed,
                consecutive: 0,
                times_opened: 0,
                fast_failures: 0,
                last_error: None,
            }),
        }
    }

    /// Asks to send one attempt now.
    pub fn admit(&self) -> Result<Permit<'_>, Refused> {
        let mut inner = self.lock();
        let trial = match inner.phase {
            Phase::Closed => false,
            Phase::Open { until } if Instant::now() >= until => {
                inner.phase = Phase::Trial;
                true
            }
            Phase::Open { .. } | Phase::Trial => {
                inner.fast_failures += 1;
                return Err(Refused {
                    failures: inner.consecutive,
                    last_error: inner.last_error.clone().unwrap_or_default(),
                });
            }
        };
        Ok(Permit {
            breaker: self,
            trial,
            reported: false,
        })
    }

    pub fn stats(&self) -> CircuitStats {
        let inner = self.lock();
        let state = match inner.phase {
            Phase::Closed => CircuitState::Closed,
            Phase::Open { until } if Instant::now() < until => CircuitState::Open,
            Phase::Open { .. } | Phase::Trial => CircuitState::HalfOpen,
        };
        CircuitStats {
            state,
            consecutive_failures: inner.consecutive,
            times_opened: inner.times_opened,
            fast_failures: inner.fast_failures,
            last_error: inner.last_error.clone(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // The state stays consistent whatever panicked while holding it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn answered(&self) {
        let mut inner = self.lock();
        inner.consecutive = 0;
        inner.phase = Phase::Closed;
    }

    fn failed(&self, trial: bool, error: String) {
        let mut inner = self.lock();
        inner.consecutive = inner.consecutive.saturating_add(1);
        inner.last_error = Some(error);
        let open = if trial {
            true
        } else {
            // Attempts sent before the breaker opened may still fail afterwards: they count,
            // but do not restart the cool-down or count as another opening.
            matches!(inner.phase, Phase::Closed)
                && self.threshold > 0
                && inner.consecutive >= self.threshold
        };
        if open {
            inner.phase = Phase::Open {
                until: Instant::now() + self.cooldown,
            };
            inner.times_opened += 1;
        }
    }

    fn abandoned(&self) {
        let mut inner = self.lock();
        if inner.phase == Phase::Trial {
            inner.phase = Phase::Open {
                until: Instant::now(),
            };
        }
    }
}

impl Permit<'_> {
    /// The attempt got a usable answer.
    pub fn succeeded(mut self) {
        self.reported = true;
        self.breaker.answered();
    }

    /// The endpoint answered, but with an error (an HTTP status, a malformed body, a
    /// command's failure): it is reachable, so the streak ends.
    pub fn answered_with_error(mut self) {
        self.reported = true;
        self.breaker.answered();
    }

    /// The attempt failed at the connection level.
    pub fn connection_failed(mut self, error: String) {
        self.reported = true;
        self.breaker.failed(self.trial, error);
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        if !self.reported && self.trial {
            self.breaker.abandoned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(breaker: &CircuitBreaker, error: &str) {
        breaker
            .admit()
            .expect("admitted")
            .connection_failed(error.into());
    }

    #[tokio::test(start_paused = true)]
    async fn opens_at_the_threshold_and_fails_fast() {
        let breaker = CircuitBreaker::new(3, Duration::from_secs(30));
        fail(&breaker, "refused 1");
        fail(&breaker, "refused 2");
        assert_eq!(breaker.stats().state, CircuitState::Closed);
        fail(&breaker, "refused 3");
        let stats = breaker.stats();
        assert_eq!(stats.state, CircuitState::Open);
        assert_eq!(stats.times_opened, 1);
        let refused = breaker.admit().unwrap_err();
        assert_eq!(
            refused,
            Refused {
                failures: 3,
                last_error: "refused 3".into()
            }
        );
        assert!(breaker.admit().is_err());
        assert_eq!(breaker.stats().fast_failures, 2);
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_ends_the_streak() {
        let breaker = CircuitBreaker::new(3, Duration::from_secs(30));
        fail(&breaker, "refused");
        fail(&breaker, "refused");
        // A 503 answer: the endpoint is alive.
        breaker.admit().unwrap().answered_with_error();
        fail(&breaker, "refused");
        fail(&breaker, "refused");
        assert_eq!(breaker.stats().state, CircuitState::Closed);
        assert_eq!(breaker.stats().consecutive_failures, 2);
        breaker.admit().unwrap().succeeded();
        assert_eq!(breaker.stats().consecutive_failures, 0);
    }

    #[tokio::test(start_paused = true)]
    async fn after_the_cooldown_one_trial_decides() {
        let breaker = CircuitBreaker::new(2, Duration::from_secs(30));
        fail(&breaker, "refused");
        fail(&breaker, "refused");
        tokio::time::advance(Duration::from_secs(29)).await;
        assert!(breaker.admit().is_err(), "still cooling down");
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(breaker.stats().state, CircuitState::HalfOpen);

        // One trial at a time; a failed trial opens it again for a full cool-down.
        let trial = breaker.admit().expect("the trial is let through");
        assert!(breaker.admit().is_err(), "only one trial");
        trial.connection_failed("still refused".into());
        assert_eq!(breaker.stats().state, CircuitState::Open);
        assert_eq!(breaker.stats().times_opened, 2);
        tokio::time::advance(Duration::from_secs(29)).await;
        assert!(breaker.admit().is_err());
        tokio::time::advance(Duration::from_secs(1)).await;

        // A successful trial closes it.
        breaker.admit().expect("second trial").succeeded();
        let stats = breaker.stats();
        assert_eq!(stats.state, CircuitState::Closed);
        assert_eq!(stats.consecutive_failures, 0);
        breaker.admit().unwrap().succeeded();
        breaker.admit().unwrap().succeeded();
    }

    #[tokio::test(start_paused = true)]
    async fn an_abandoned_trial_frees_the_slot() {
        let breaker = CircuitBreaker::new(1, Duration::from_secs(5));
        fail(&breaker, "refused");
        tokio::time::advance(Duration::from_secs(5)).await;
        drop(breaker.admit().expect("trial"));
        breaker.admit().expect("another trial").succeeded();
        assert_eq!(breaker.stats().state, CircuitState::Closed);
    }

    #[tokio::test(start_paused = true)]
    async fn late_failures_do_not_extend_the_cooldown() {
        let breaker = CircuitBreaker::new(2, Duration::from_secs(10));
        // Three attempts in flight at once; all fail, the third after the breaker opened.
        let permits: Vec<_> = (0..3).map(|_| breaker.admit().unwrap()).collect();
        let mut permits = permits.into_iter();
        permits.next().unwrap().connection_failed("a".into());
        permits.next().unwrap().connection_failed("b".into());
        tokio::time::advance(Duration::from_secs(6)).await;
        permits.next().unwrap().connection_failed("c".into());
        assert_eq!(breaker.stats().times_opened, 1);
        assert_eq!(breaker.stats().consecutive_failures, 3);
        tokio::time::advance(Duration::from_secs(4)).await;
        assert!(
            breaker.admit().is_ok(),
            "the cool-down counts from the opening"
        );
    }

    #[test]
    fn a_zero_threshold_never_opens() {
        let breaker = CircuitBreaker::new(0, Duration::from_secs(30));
        for _ in 0..100 {
            fail(&breaker, "refused");
        }
        assert_eq!(breaker.stats().state, CircuitState::Closed);
    }
}
