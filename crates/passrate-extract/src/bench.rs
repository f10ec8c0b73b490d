//! Throughput of extraction over a set of answers, for `passrate bench extract`.

use std::time::Instant;

use serde::Serialize;

use crate::{ExtractRequest, extract};

/// One answer to extract, with its request.
#[derive(Clone, Debug)]
pub struct BenchAnswer {
    pub request: ExtractRequest,
    pub raw: Vec<u8>,
}

/// What a benchmark measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchFigures {
    pub answers: usize,
    pub rounds: usize,
    /// Median over rounds, answers per second on the calling thread.
    pub median_answers_per_sec: f64,
    pub min_answers_per_sec: f64,
    pub max_answers_per_sec: f64,
    /// Mean extraction time per answer in the median round, microseconds.
    pub median_us_per_answer: f64,
    /// Answers found compliant (the same every round).
    pub compliant: usize,
    pub input_bytes: usize,
}

/// Extracts every answer `rounds` times (after one warm-up round) on the calling thread.
pub fn bench_corpus(answers: &[BenchAnswer], rounds: usize) -> BenchFigures {
    let rounds = rounds.max(1);
    let mut compliant = 0;
    for a in answers {
        compliant += usize::from(extract(&a.request, &a.raw).compliant);
    }
    let mut rates = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for a in answers {
            std::hint::black_box(extract(&a.request, std::hint::black_box(&a.raw)));
        }
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        rates.push(answers.len() as f64 / secs);
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    BenchFigures {
        answers: answers.len(),
        rounds,
        median_answers_per_sec: median,
        min_answers_per_sec: rates[0],
        max_answers_per_sec: rates[rates.len() - 1],
        median_us_per_answer: if median > 0.0 { 1e6 / median } else { 0.0 },
        compliant,
        input_bytes: answers.iter().map(|a| a.raw.len()).sum(),
    }
}
