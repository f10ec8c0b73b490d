//! Data on stdout. A reader that stopped reading (`| head`) is not an error; any other write
//! failure (a full disk) is, instead of the panic `println!` would end in.

use std::io::Write;

use super::CliError;

pub fn print_bytes(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

pub fn print_data(text: &str) -> Result<(), CliError> {
    print_bytes(text.as_bytes()).map_err(CliError::Stdout)
}

/// One JSON document on a line of its own (JSON Lines).
pub fn print_json<T: serde::Serialize>(what: &'static str, value: &T) -> Result<(), CliError> {
    let mut line = serde_json::to_string(value).map_err(CliError::json(what))?;
    line.push('\n');
    print_data(&line)
}
