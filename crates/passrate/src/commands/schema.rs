//! `passrate schema`: the JSON Schemas of the documents passrate reads and writes, generated
//! from the schema crate's types (the same files are committed under
//! `crates/passrate-schema/schemas/`).

use passrate_schema::{SCHEMA_NAMES, exit, json_schema};

use super::CliError;
use super::output::print_data;

#[derive(clap::Args)]
pub struct Args {
    /// Which document (without it, the names are listed).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(SCHEMA_NAMES))]
    name: Option<String>,
}

pub fn run(args: Args) -> Result<i32, CliError> {
    match args.name {
        None => print_data(&(SCHEMA_NAMES.join("\n") + "\n"))?,
        Some(name) => {
            // clap only lets the names through that `json_schema` knows.
            let schema = json_schema(&name)
                .ok_or_else(|| CliError::Usage(format!("no schema named `{name}`")))?;
            let text = serde_json::to_string_pretty(&schema).map_err(CliError::json("schema"))?;
            print_data(&(text + "\n"))?;
        }
    }
    Ok(exit::OK)
}
