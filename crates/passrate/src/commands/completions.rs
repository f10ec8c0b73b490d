//! `passrate completions SHELL` and `passrate man`: generated from the same clap definition
//! as the parser, so they never drift from the options the binary accepts.

use clap::CommandFactory;
use passrate_schema::exit;

use super::CliError;

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

pub fn completions<C: CommandFactory>(args: CompletionsArgs) -> Result<i32, CliError> {
    let mut command = C::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "passrate", &mut script);
    write_stdout(&script)
}

/// The manual page of `passrate` with a section per subcommand (one page, as `man -l` reads).
pub fn man<C: CommandFactory>() -> Result<i32, CliError> {
    let command = C::command();
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .map_err(CliError::Stdout)?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        // Each subcommand's synopsis and options, named `passrate-NAME`, after the overview.
        let name = format!("passrate-{}", sub.get_name());
        let man = clap_mangen::Man::new(sub.clone().display_name(name));
        man.render_synopsis_section(&mut page)
            .and_then(|()| man.render_options_section(&mut page))
            .map_err(CliError::Stdout)?;
    }
    write_stdout(&page)
}

fn write_stdout(bytes: &[u8]) -> Result<i32, CliError> {
    super::output::print_bytes(bytes).map_err(CliError::Stdout)?;
    Ok(exit::OK)
}
