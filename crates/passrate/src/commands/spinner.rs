//! A spinner on stderr while a slow step runs with nothing else to show (loading the pool,
//! starting the sandbox), and a bar for counted work: only where a person watches (stderr a
//! terminal, not under CI, not `--quiet`), cleared when the step ends so it never mixes with
//! data or later lines.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress bars and spinners only where a person watches.
pub fn wants_progress() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none() && !super::quiet()
}

/// Runs `step` with a spinner saying `message` and the time spent so far.
pub fn during<T>(message: &'static str, step: impl FnOnce() -> T) -> T {
    if !wants_progress() {
        return step();
    }
    let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    spinner.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("a valid template"),
    );
    spinner.set_message(message);
    spinner.enable_steady_tick(Duration::from_millis(100));
    let out = step();
    spinner.finish_and_clear();
    out
}

/// A bar over `total` items of `what` (e.g. "samples"), with rate and ETA; `None` where no
/// person watches.
pub fn bar(total: usize, verb: &str, what: &str) -> Option<ProgressBar> {
    if !wants_progress() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{verb} {{bar:30}} {{pos}}/{{len}} {what}, {{per_sec}}, ETA {{eta}}"
        ))
        .expect("a valid template"),
    );
    Some(bar)
}
