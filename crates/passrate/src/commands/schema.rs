//! `passrate schema`: the JSON Schemas of the documents passrate reads and writes, generated
//! from the schema crate's types (the same files are committed under
//! `crates/passrate-schema/schemas/`).

use passrate_schema::{SCHEMA_NAMES, exit, json_schema};

#[derive(clap::Args)]
pub struct Args {
    /// Which document (without it, the names are listed).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(SCHEMA_NAMES))]
    name: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    match args.name {
        None => {
            for name in SCHEMA_NAMES {
                println!("{name}");
            }
        }
        Some(name) => {
            let schema =
                json_schema(&name).ok_or_else(|| anyhow::anyhow!("no schema named `{name}`"))?;
            println!("{}", serde_json::to_string_pretty(&schema)?);
        }
    }
    Ok(exit::OK)
}
