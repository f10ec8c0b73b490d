//! `passrate bench extract`: answers extracted per second on one core over the bundled
//! corpus of real model answers (median of several rounds).

use std::io::Write;

use anyhow::Context;
use passrate_extract::bench::{BenchAnswer, bench_corpus};
use passrate_extract::corpus;
use passrate_schema::exit;

#[derive(clap::Args)]
pub struct Args {
    /// Timed rounds over the corpus (after one warm-up round); the median is reported.
    #[arg(long, default_value_t = 7)]
    rounds: usize,
    /// Print the figures as one JSON object.
    #[arg(long)]
    json: bool,
}

/// The figure the design asks for.
const TARGET_PER_SEC: f64 = 5_000.0;

pub fn run(args: Args) -> anyhow::Result<i32> {
    let entries = corpus::real_answers().context("failed to load the bundled answer corpus")?;
    let answers: Vec<BenchAnswer> = entries
        .iter()
        .map(|e| BenchAnswer {
            request: e.request(),
            raw: e.answer.as_bytes().to_vec(),
        })
        .collect();
    eprintln!(
        "extracting {} real answers, {} rounds, on this thread",
        answers.len(),
        args.rounds
    );
    let figures = bench_corpus(&answers, args.rounds);
    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut stdout, &figures).context("failed to write JSON")?;
        writeln!(stdout).context("failed to write to stdout")?;
    } else {
        writeln!(
            stdout,
            "extract: {:.0} answers/s median (min {:.0}, max {:.0}; {:.1} µs/answer) over {} answers ({} KiB), {} compliant; target ≥ {:.0}/s",
            figures.median_answers_per_sec,
            figures.min_answers_per_sec,
            figures.max_answers_per_sec,
            figures.median_us_per_answer,
            figures.answers,
            figures.input_bytes / 1024,
            figures.compliant,
            TARGET_PER_SEC,
        )
        .context("failed to write to stdout")?;
    }
    Ok(exit::OK)
}
