//! `passrate extract`: one model answer (a file or stdin) to the candidate code, or with
//! `--json` to the whole extraction (code, compliance, reason, detail, extractor version).

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use passrate_extract::{ExtractRequest, extract};
use passrate_schema::{Category, Language, exit};

#[derive(clap::Args)]
pub struct Args {
    /// Language of the task: python, javascript (js) or java.
    #[arg(long, value_parser = parse_language)]
    lang: Language,
    /// Function (or method) the tests call.
    #[arg(long)]
    entry_point: String,
    /// Java: the class that holds the method. Python/JS: the class a class-level task asks for.
    #[arg(long = "class")]
    class_name: Option<String>,
    /// Task category (function_completion, unit_test_writing, documentation_generation, …).
    #[arg(long, default_value = "function_completion", value_parser = parse_category)]
    category: Category,
    /// File with the code prompt a completion-style answer continues.
    #[arg(long)]
    prompt: Option<PathBuf>,
    /// Print the extraction as one JSON object instead of the code.
    #[arg(long)]
    json: bool,
    /// The answer file, or `-` for stdin.
    file: String,
}

fn parse_language(s: &str) -> Result<Language, String> {
    Language::parse(s).ok_or_else(|| format!("unknown language `{s}` (python, javascript, java)"))
}

fn parse_category(s: &str) -> Result<Category, String> {
    Category::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        format!("unknown category `{s}` ({})", names.join(", "))
    })
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let raw = if args.file == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("failed to read the answer from stdin")?;
        buf
    } else {
        match fs_err::read(&args.file) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(exit::BAD_INPUT);
            }
        }
    };
    let prompt = match &args.prompt {
        Some(path) => match fs_err::read(path) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(exit::BAD_INPUT);
            }
        },
        None => None,
    };
    let request = ExtractRequest {
        language: args.lang,
        entry_point: args.entry_point,
        class_name: args.class_name,
        signature: None,
        category: args.category,
        prompt,
    };
    let extraction = extract(&request, &raw);
    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut stdout, &extraction).context("failed to write JSON")?;
        writeln!(stdout).context("failed to write to stdout")?;
    } else {
        stdout
            .write_all(extraction.code.as_bytes())
            .context("failed to write to stdout")?;
        match (extraction.reason, &extraction.detail) {
            (Some(reason), Some(detail)) => eprintln!("not compliant: {reason}: {detail}"),
            (Some(reason), None) => eprintln!("not compliant: {reason}"),
            (None, _) => {}
        }
    }
    // A verdict was reached either way; compliance is data, not an error.
    Ok(exit::OK)
}
