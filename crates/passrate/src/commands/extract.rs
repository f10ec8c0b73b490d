//! `passrate extract`: one model answer (a file or stdin) to the candidate code, or with
//! `--json` to the whole extraction (code, compliance, reason, detail, extractor version).

use std::io::Read;
use std::path::PathBuf;

use passrate_extract::{ExtractRequest, extract};
use passrate_schema::{Category, Language, exit};

use super::CliError;
use super::output::{print_data, print_json};

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

pub fn run(args: Args) -> Result<i32, CliError> {
    let raw = read_input(&args.file, "the answer")?;
    let prompt = match &args.prompt {
        Some(path) => Some(
            fs_err::read(path)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|source| CliError::ReadInput {
                    what: "the prompt".into(),
                    source,
                })?,
        ),
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
    if args.json {
        print_json("the extraction", &extraction)?;
    } else {
        print_data(&extraction.code)?;
        match (extraction.reason, &extraction.detail) {
            (Some(reason), Some(detail)) => eprintln!("not compliant: {reason}: {detail}"),
            (Some(reason), None) => eprintln!("not compliant: {reason}"),
            (None, _) => {}
        }
    }
    // A verdict was reached either way; compliance is data, not an error.
    Ok(exit::OK)
}

/// A file's bytes, or stdin's for `-`.
pub fn read_input(file: &str, what: &str) -> Result<Vec<u8>, CliError> {
    if file == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|source| CliError::ReadInput {
                what: format!("{what} from stdin"),
                source,
            })?;
        return Ok(buf);
    }
    // fs_err's error names the path.
    fs_err::read(file).map_err(|source| CliError::ReadInput {
        what: what.to_string(),
        source,
    })
}
