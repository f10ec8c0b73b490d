//! The answer record (what the cache stores and the pipeline extracts code from), token
//! usage, cost, and per-run totals.

use passrate_schema::Language;
use serde::{Deserialize, Serialize};

use crate::config::Prices;

/// Version of the [`Answer`] record format.
pub const ANSWER_FORMAT_VERSION: u32 = 1;

/// Tokens the provider reported (either may be missing: many servers omit `usage`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
}

impl Usage {
    /// Cost in USD, when prices are configured and both counts are known.
    pub fn cost_usd(&self, prices: Option<&Prices>) -> Option<f64> {
        let prices = prices?;
        let input = self.input_tokens? as f64;
        let output = self.output_tokens? as f64;
        Some((input * prices.input_per_mtok + output * prices.output_per_mtok) / 1_000_000.0)
    }
}

/// Whether the model answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The raw text the model returned (code extraction happens later).
    Answered { text: String },
    /// The source has no answer for this unit (a replay without the task): a non-pass,
    /// reported as coverage, not an error.
    NoAnswer { detail: String },
}

impl Outcome {
    pub fn text(&self) -> Option<&str> {
        match self {
            Outcome::Answered { text } => Some(text),
            Outcome::NoAnswer { .. } => None,
        }
    }
}

/// One answer for one unit `(model, task, language, sample_index)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub format_version: u32,
    pub model: String,
    pub task: String,
    pub task_version: u32,
    pub language: Language,
    pub sample_index: u32,
    /// [`crate::Prompt::hash`] of the prompt sent.
    pub prompt_hash: String,
    /// [`crate::CacheKey`] of the unit.
    pub cache_key: String,
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    #[serde(default)]
    pub usage: Usage,
    /// Duration of the attempt that succeeded (queueing, rate-limit waits and failed
    /// attempts excluded: this measures the model, not our politeness).
    pub latency_ms: u64,
    /// Requests made (1 when the first succeeded; 0 for a replay).
    pub attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The provider's response (or the replay line) as received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<serde_json::Value>,
}

/// Where an answer came from in this run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Asked now.
    Fetched,
    /// Found in the answer cache: nothing was sent.
    Cached,
}

/// Sums over a run (or one model's part of it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunTotals {
    /// Answers with text.
    pub answered: u64,
    /// Units the source had no answer for.
    pub no_answer: u64,
    /// Units that ended in `api_error`.
    pub api_errors: u64,
    /// Answers taken from the cache (not re-asked, not re-paid).
    pub cached: u64,
    /// Requests sent this run.
    pub requests: u64,
    /// Tokens and cost of the answers fetched this run.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
    /// Fetched answers whose cost is unknown (no prices, or no usage reported).
    pub unpriced: u64,
    /// Sum of fetched answers' latencies.
    pub latency_ms: u64,
}

impl RunTotals {
    /// Adds one answer; cached answers count as such and add no spending.
    pub fn add(&mut self, answer: &Answer, origin: Origin) {
        match answer.outcome {
            Outcome::Answered { .. } => self.answered += 1,
            Outcome::NoAnswer { .. } => self.no_answer += 1,
        }
        if origin == Origin::Cached {
            self.cached += 1;
            return;
        }
        self.requests += u64::from(answer.attempts);
        self.input_tokens += answer.usage.input_tokens.unwrap_or(0);
        self.output_tokens += answer.usage.output_tokens.unwrap_or(0);
        self.latency_ms += answer.latency_ms;
        match answer.cost_usd {
            Some(cost) => self.cost_usd += cost,
            None if answer.attempts > 0 => self.unpriced += 1,
            None => {}
        }
    }

    /// Adds a unit that failed with `api_error` after `attempts` requests.
    pub fn add_api_error(&mut self, attempts: u32) {
        self.api_errors += 1;
        self.requests += u64::from(attempts);
    }

    /// Combines two totals (e.g. per model into per run).
    pub fn merge(&mut self, other: &RunTotals) {
        self.answered += other.answered;
        self.no_answer += other.no_answer;
        self.api_errors += other.api_errors;
        self.cached += other.cached;
        self.requests += other.requests;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cost_usd += other.cost_usd;
        self.unpriced += other.unpriced;
        self.latency_ms += other.latency_ms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(outcome: Outcome, usage: Usage, cost: Option<f64>, attempts: u32) -> Answer {
        Answer {
            format_version: ANSWER_FORMAT_VERSION,
            model: "m".into(),
            task: "t".into(),
            task_version: 1,
            language: Language::Python,
            sample_index: 0,
            prompt_hash: "p".into(),
            cache_key: "k".into(),
            outcome,
            finish_reason: None,
            usage,
            latency_ms: 10,
            attempts,
            cost_usd: cost,
            raw: None,
        }
    }

    #[test]
    fn cost_needs_prices_and_both_counts() {
        let prices = Prices {
            input_per_mtok: 2.5,
            output_per_mtok: 10.0,
        };
        let usage = Usage {
            input_tokens: Some(1_000),
            output_tokens: Some(500),
        };
        assert_eq!(usage.cost_usd(Some(&prices)), Some(0.0075));
        assert_eq!(usage.cost_usd(None), None);
        let partial = Usage {
            input_tokens: Some(1),
            output_tokens: None,
        };
        assert_eq!(partial.cost_usd(Some(&prices)), None);
    }

    #[test]
    fn totals_count_spending_only_for_fetched_answers() {
        let text = Outcome::Answered { text: "x".into() };
        let usage = Usage {
            input_tokens: Some(100),
            output_tokens: Some(20),
        };
        let mut totals = RunTotals::default();
        totals.add(&answer(text.clone(), usage, Some(0.5), 2), Origin::Fetched);
        totals.add(&answer(text.clone(), usage, Some(0.5), 1), Origin::Cached);
        totals.add(&answer(text, Usage::default(), None, 1), Origin::Fetched);
        totals.add(
            &answer(
                Outcome::NoAnswer {
                    detail: "none".into(),
                },
                Usage::default(),
                None,
                0,
            ),
            Origin::Fetched,
        );
        totals.add_api_error(6);
        assert_eq!(totals.answered, 3);
        assert_eq!(totals.no_answer, 1);
        assert_eq!(totals.cached, 1);
        assert_eq!(totals.requests, 2 + 1 + 6);
        assert_eq!(totals.input_tokens, 100);
        assert_eq!(totals.output_tokens, 20);
        assert_eq!(totals.cost_usd, 0.5);
        assert_eq!(totals.unpriced, 1);
        assert_eq!(totals.api_errors, 1);
        let mut run = RunTotals::default();
        run.merge(&totals);
        run.merge(&totals);
        assert_eq!(run.requests, 18);
        assert_eq!(run.cost_usd, 1.0);
    }

    #[test]
    fn the_record_round_trips_through_json() {
        let a = answer(
            Outcome::Answered {
                text: "def f(): pass".into(),
            },
            Usage::default(),
            None,
            1,
        );
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(json["outcome"]["status"], "answered");
        let back: Answer = serde_json::from_value(json).unwrap();
        assert_eq!(back, a);
    }
}
