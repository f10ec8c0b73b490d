//! `passrate export`: one row per unit of a run (or of the runs behind a week's board), as
//! JSON Lines or CSV, for analysis elsewhere: model, task, language, sample, verdict, reason,
//! detail, the answer, the extracted code, tokens, cost and CPU time. Hidden tests' details are
//! never exported (`Verdict::public_detail`).

use std::collections::BTreeSet;

use passrate_schema::exit;
use passrate_store::{Store, UnitResult};
use serde_json::{Value as Json, json};

use super::CliError;
use super::output::print_data;
use super::run::runtime;
use super::store_args::StoreArgs;

#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["run", "week"]))]
pub struct Args {
    /// Every unit of this run.
    #[arg(long)]
    run: Option<String>,
    /// The units behind this week's board: each model's latest record's run.
    #[arg(long)]
    week: Option<String>,
    /// Only this model.
    #[arg(long)]
    model: Option<String>,
    #[arg(long, value_enum, default_value = "jsonl")]
    format: Format,
    #[command(flatten)]
    store: StoreArgs,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Format {
    Jsonl,
    Csv,
}

const COLUMNS: [&str; 15] = [
    "run_id",
    "model",
    "task",
    "language",
    "category",
    "tier",
    "sample",
    "verdict",
    "reason",
    "detail",
    "answer",
    "extracted_code",
    "input_tokens",
    "output_tokens",
    "cost_usd",
];

pub fn run(args: Args) -> Result<i32, CliError> {
    runtime()?.block_on(async {
        let store = args.store.open_existing().await?;
        let units = units(&store, &args).await;
        store.close().await;
        let units = units?;
        let mut out = String::new();
        if let Format::Csv = args.format {
            out.push_str(&COLUMNS.join(","));
            out.push_str(",cpu_ms\n");
        }
        for unit in &units {
            let row = row(unit);
            match args.format {
                Format::Jsonl => {
                    out.push_str(&row.to_string());
                    out.push('\n');
                }
                Format::Csv => {
                    let cells: Vec<String> = COLUMNS
                        .iter()
                        .chain(&["cpu_ms"])
                        .map(|c| csv_cell(&row[*c]))
                        .collect();
                    out.push_str(&cells.join(","));
                    out.push('\n');
                }
            }
        }
        print_data(&out)?;
        if units.is_empty() {
            super::notice!("no units to export");
        }
        Ok(exit::OK)
    })
}

async fn units(store: &Store, args: &Args) -> Result<Vec<UnitResult>, CliError> {
    // (run, model) pairs to export.
    let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
    if let Some(run_id) = &args.run {
        if store.run(run_id).await?.is_none() {
            return Err(CliError::Usage(format!("no run {run_id} in the store")));
        }
        for unit in store.completed_units(run_id).await? {
            pairs.insert((run_id.clone(), unit.model));
        }
    }
    if let Some(week) = &args.week {
        for stored in store.leaderboard(week).await? {
            pairs.insert((stored.record.run_id, stored.record.model));
        }
    }
    let mut units = Vec::new();
    for (run_id, model) in pairs {
        if args.model.as_ref().is_some_and(|m| m != &model) {
            continue;
        }
        let mut these = store.unit_results(&run_id, &model).await?;
        // Units whose last attempt was an infrastructure fault are still to do; they are
        // exported with that fault so the export accounts for every unit.
        let done: BTreeSet<(String, u32)> = these
            .iter()
            .map(|u| (u.task.clone(), u.sample_index))
            .collect();
        for fault in store.unit_faults(&run_id, &model).await? {
            if !done.contains(&(fault.task.clone(), fault.sample_index)) {
                these.push(fault);
            }
        }
        these.sort_by(|a, b| (&a.task, a.sample_index).cmp(&(&b.task, b.sample_index)));
        units.extend(these);
    }
    Ok(units)
}

fn row(u: &UnitResult) -> Json {
    let usage = u.usage.as_ref();
    let tokens = |k: &str| usage.and_then(|v| v["usage"][k].as_u64());
    json!({
        "run_id": u.run_id,
        "model": u.model,
        "task": u.task,
        "language": u.language,
        "category": u.category,
        "tier": u.tier.number(),
        "sample": u.sample_index,
        "verdict": if u.verdict.passed() { "pass" } else { "fail" },
        "reason": u.verdict.reason,
        "detail": u.verdict.public_detail(),
        "answer": u.raw_answer,
        "extracted_code": u.extracted_code,
        "input_tokens": tokens("input_tokens"),
        "output_tokens": tokens("output_tokens"),
        "cost_usd": usage.and_then(|v| v["cost_usd"].as_f64()),
        "cpu_ms": u.verdict.cpu_ms,
    })
}

/// RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled; null empty.
fn csv_cell(v: &Json) -> String {
    let text = match v {
        Json::Null => return String::new(),
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::csv_cell;
    use serde_json::json;

    #[test]
    fn csv_cells_quote_what_needs_it() {
        assert_eq!(csv_cell(&json!(null)), "");
        assert_eq!(csv_cell(&json!(3)), "3");
        assert_eq!(csv_cell(&json!("plain")), "plain");
        assert_eq!(csv_cell(&json!("a,b")), "\"a,b\"");
        assert_eq!(csv_cell(&json!("say \"hi\"\n")), "\"say \"\"hi\"\"\n\"");
    }
}
