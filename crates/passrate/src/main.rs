//! The `passrate` binary: command-line parsing, settings, presentation and exit codes.
//! All behaviour lives in the library crates; this crate wires them to a terminal.

mod commands;

fn main() {
    std::process::exit(commands::main());
}
