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
        // Each subcommand as a section of its own after the overview: its synopsis and
        // options as subsections (clap_mangen renders them as whole-page sections).
        let name = format!("passrate {}", sub.get_name());
        let man = clap_mangen::Man::new(sub.clone().bin_name(name.clone()));
        let mut body = Vec::new();
        man.render_synopsis_section(&mut body)
            .and_then(|()| man.render_options_section(&mut body))
            .map_err(CliError::Stdout)?;
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        page.extend_from_slice(
            format!(".SH \"{}\"\n{}\n", name.to_uppercase(), roff_text(&about)).as_bytes(),
        );
        for line in String::from_utf8_lossy(&body).lines() {
            // The string definitions repeat the page's own preamble.
            if line.starts_with(".ie ") || line.starts_with(".el ") {
                continue;
            }
            let line = match line {
                ".SH SYNOPSIS" => ".SS Synopsis",
                ".SH OPTIONS" => ".SS Options",
                other => other,
            };
            page.extend_from_slice(line.as_bytes());
            page.push(b'\n');
        }
    }
    write_stdout(&page)
}

/// Text for a roff body line: hyphens and a leading dot or quote escaped.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

fn write_stdout(bytes: &[u8]) -> Result<i32, CliError> {
    super::output::print_bytes(bytes).map_err(CliError::Stdout)?;
    Ok(exit::OK)
}
