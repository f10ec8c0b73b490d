//! `passrate history MODEL`: every score record of a model, every version, oldest week first.

use std::fmt::Write;

use passrate_schema::exit;

use super::CliError;
use super::output::{print_data, print_json};
use super::run::runtime;
use super::store_args::StoreArgs;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The model id, as on the leaderboard.
    model: String,
    #[command(flatten)]
    store: StoreArgs,
    /// JSON Lines: one stored record per line.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<i32, CliError> {
    runtime()?.block_on(async {
        let store = args.store.open_existing().await?;
        let history = store.model_history(&args.model).await?;
        store.close().await;
        if history.is_empty() {
            super::notice!("no score records for model `{}`", args.model);
            return Ok(exit::OK);
        }
        if args.json {
            for record in &history {
                print_json("a score record", record)?;
            }
            return Ok(exit::OK);
        }
        let mut out = String::new();
        writeln!(
            out,
            "{:<9}  {:>7}  {:>6}  {:>14}  {:>10}  {:>8}  {:>5}  {:<30}  run",
            "week", "version", "score", "95% CI", "compliance", "coverage", "units", "evaluated at"
        )?;
        for stored in &history {
            let r = &stored.record;
            let o = &r.overall;
            writeln!(
                out,
                "{:<9}  {:>7}  {:>6.1}  {:>14}  {:>10.1}  {:>8.1}  {:>5}  {:<30}  {}",
                r.week,
                r.record_version,
                o.score * 100.0,
                format!("[{:.1}, {:.1}]", o.ci_low * 100.0, o.ci_high * 100.0),
                r.compliance_rate * 100.0,
                r.coverage * 100.0,
                o.total,
                r.evaluated_at,
                r.run_id
            )?;
        }
        print_data(&out)?;
        Ok(exit::OK)
    })
}
