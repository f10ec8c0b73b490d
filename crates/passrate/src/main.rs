//! The `passrate` binary: command-line parsing, settings, presentation and exit codes.
//! All behaviour lives in the library crates; this crate wires them to a terminal.

mod commands;

fn main() {
    // The sandbox's jail process is this same binary, started by the sandbox library. It
    // must branch off before anything else runs (no threads, no runtime, no argument parser).
    if std::env::args_os().nth(1).is_some_and(|a| a == "__jail") {
        passrate_sandbox::jail_main();
    }
    std::process::exit(commands::main());
}
