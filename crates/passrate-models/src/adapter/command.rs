//! The `command` adapter: run a program per attempt, request JSON on stdin, answer on stdout.
//!
//! Protocol: stdin receives one [`AdapterRequest`] as JSON, then EOF. The program prints
//! either the answer text as is, or a JSON object `{"text": "...", "usage": {"input_tokens":
//! N, "output_tokens": M}, "finish_reason": "stop"}` (or `{"no_answer": true}`). Exit 0 is
//! success; exit 75 (`EX_TEMPFAIL`) asks for a retry; any other status is a non-retryable
//! failure. On timeout the program's whole process group is killed. The program inherits
//! passrate's environment (so it can read its own API key) and runs in the current directory.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::{Adapter, AdapterRequest, BoxFuture, Completion, PreflightFailure};
use crate::answer::{Outcome, Usage};
use crate::error::AttemptError;

/// Output kept per stream; beyond it the program is failed (a runaway printer).
const OUTPUT_LIMIT: u64 = 16 * 1024 * 1024;
const EX_TEMPFAIL: i32 = 75;

#[derive(Debug)]
pub struct CommandAdapter {
    argv: Vec<String>,
    fingerprint: String,
}

impl CommandAdapter {
    pub fn new(argv: Vec<String>) -> CommandAdapter {
        let fingerprint = serde_json::to_string(&argv).expect("strings serialise");
        CommandAdapter { argv, fingerprint }
    }

    async fn attempt(
        &self,
        request: &AdapterRequest,
        timeout: Duration,
    ) -> Result<Completion, AttemptError> {
        let input = serde_json::to_vec(request).expect("requests serialise");
        let mut command = Command::new(&self.argv[0]);
        command
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Own group, so a timeout kills what the program started too.
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| {
            AttemptError::Command(format!("failed to start `{}`: {e}", self.argv[0]))
        })?;
        let pid = child.id();
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");

        let run = async {
            // A program may answer without reading all of stdin: a broken pipe is not an
            // error in itself, its exit status decides.
            let write = async {
                let _ = stdin.write_all(&input).await;
                drop(stdin);
            };
            let (_, out, err, status) = tokio::join!(
                write,
                read_capped(stdout),
                read_capped(stderr),
                child.wait()
            );
            (out, err, status)
        };
        let (out, err, status) = match tokio::time::timeout(timeout, run).await {
            Ok(done) => done,
            Err(_) => {
                kill_group(pid);
                return Err(AttemptError::Timeout(timeout));
            }
        };
        let status = status.map_err(|e| AttemptError::Command(format!("failed to wait: {e}")))?;
        let stderr_tail = tail(&String::from_utf8_lossy(&err.unwrap_or_default()), 400);
        if !status.success() {
            return Err(match status.code() {
                Some(EX_TEMPFAIL) => AttemptError::CommandTempFail(stderr_tail),
                Some(code) => AttemptError::Command(format!("exit status {code}: {stderr_tail}")),
                None => AttemptError::Command(format!("killed by a signal: {stderr_tail}")),
            });
        }
        let out = out.map_err(AttemptError::Command)?;
        let text = String::from_utf8(out)
            .map_err(|_| AttemptError::Command("stdout is not valid UTF-8".into()))?;
        Ok(parse_reply(text))
    }
}

impl Adapter for CommandAdapter {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn preflight<'a>(
        &'a self,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<String, PreflightFailure>> {
        // Running the program would cost a real answer (and maybe money): only check that
        // spawning it can work.
        let result = resolve_program(&self.argv[0])
            .map(|path| format!("program {} is executable", path.display()))
            .map_err(PreflightFailure::fatal);
        Box::pin(async move { result })
    }

    fn complete<'a>(
        &'a self,
        request: &'a AdapterRequest,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Completion, AttemptError>> {
        Box::pin(self.attempt(request, timeout))
    }
}

/// Resolves `program` as spawning does: a name with a slash is a path (relative to the
/// current directory), any other name is looked up in each `PATH` directory in turn.
fn resolve_program(program: &str) -> Result<PathBuf, String> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return match executable(&path) {
            Ok(()) => Ok(path),
            Err(problem) => Err(format!("program `{program}` {problem}")),
        };
    }
    // execvp's own fallback when PATH is unset.
    let search = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
    let mut not_executable = None;
    for dir in std::env::split_paths(&search) {
        let candidate = dir.join(program);
        match executable(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(problem) if candidate.exists() && not_executable.is_none() => {
                not_executable = Some(format!("{} {problem}", candidate.display()));
            }
            Err(_) => {}
        }
    }
    Err(match not_executable {
        Some(found) => format!("program `{program}` is not runnable from PATH: {found}"),
        None => format!("program `{program}` is not found on PATH"),
    })
}

/// Why `path` cannot be executed, if it cannot.
fn executable(path: &Path) -> Result<(), String> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("does not exist".into());
        }
        Err(e) => return Err(format!("cannot be inspected: {e}")),
    };
    if !metadata.is_file() {
        return Err("is not a file".into());
    }
    let c_path =
        CString::new(path.as_os_str().as_bytes()).map_err(|_| "contains a NUL byte".to_string())?;
    // SAFETY: access(2) reads a NUL-terminated path we own for the duration of the call.
    // It answers for this process's user and the mount (noexec), which mode bits do not.
    let allowed = unsafe { libc::access(c_path.as_ptr(), libc::X_OK) } == 0;
    if allowed {
        Ok(())
    } else {
        Err(format!(
            "is not executable: {}",
            std::io::Error::last_os_error()
        ))
    }
}

async fn read_capped(stream: impl AsyncRead + Unpin) -> Result<Vec<u8>, String> {
    let mut buffer = Vec::new();
    let mut limited = stream.take(OUTPUT_LIMIT + 1);
    limited
        .read_to_end(&mut buffer)
        .await
        .map_err(|e| format!("failed to read output: {e}"))?;
    if buffer.len() as u64 > OUTPUT_LIMIT {
        return Err(format!("output exceeds {OUTPUT_LIMIT} bytes"));
    }
    Ok(buffer)
}

fn kill_group(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) else {
        return;
    };
    // SAFETY: kill(2) with a negative pid signals the process group we created with
    // process_group(0); it has no memory-safety preconditions.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

fn tail(text: &str, limit: usize) -> String {
    let text = text.trim();
    if text.len() <= limit {
        return text.to_string();
    }
    let mut start = text.len() - limit;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

#[derive(Deserialize)]
struct Reply {
    text: Option<String>,
    #[serde(default)]
    no_answer: bool,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

fn parse_reply(stdout: String) -> Completion {
    let trimmed = stdout.trim();
    if trimmed.starts_with('{')
        && let Ok(raw) = serde_json::from_str::<serde_json::Value>(trimmed)
        && let Ok(reply) = serde_json::from_value::<Reply>(raw.clone())
        && (reply.text.is_some() || reply.no_answer)
    {
        let outcome = match reply.text {
            Some(text) if !reply.no_answer => Outcome::Answered { text },
            _ => Outcome::NoAnswer {
                detail: "the command reported no answer".into(),
            },
        };
        return Completion {
            outcome,
            usage: reply.usage.unwrap_or_default(),
            finish_reason: reply.finish_reason,
            raw: Some(raw),
        };
    }
    Completion {
        outcome: Outcome::Answered { text: stdout },
        usage: Usage::default(),
        finish_reason: None,
        raw: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_resolve_like_spawning_does() {
        assert!(resolve_program("sh").unwrap().ends_with("sh"));
        assert_eq!(
            resolve_program("/bin/sh").unwrap(),
            PathBuf::from("/bin/sh")
        );
        assert_eq!(
            resolve_program("passrate-no-such-program").unwrap_err(),
            "program `passrate-no-such-program` is not found on PATH"
        );
        assert_eq!(
            resolve_program("/nonexistent/ask.py").unwrap_err(),
            "program `/nonexistent/ask.py` does not exist"
        );
        assert_eq!(
            resolve_program("/tmp").unwrap_err(),
            "program `/tmp` is not a file"
        );
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("ask.sh");
        fs_err::write(&script, "#!/bin/sh\n").unwrap();
        let err = resolve_program(&script.display().to_string()).unwrap_err();
        assert!(
            err.starts_with(&format!("program `{}` is not executable", script.display())),
            "{err}"
        );
    }

    #[test]
    fn replies_are_json_or_plain_text() {
        let c = parse_reply(
            r#"{"text": "def f(): pass", "usage": {"input_tokens": 3, "output_tokens": 4}}"#.into(),
        );
        assert_eq!(c.outcome.text(), Some("def f(): pass"));
        assert_eq!(c.usage.output_tokens, Some(4));
        let c = parse_reply("{\"no_answer\": true}\n".into());
        assert!(matches!(c.outcome, Outcome::NoAnswer { .. }));
        // A JSON object that is not a reply is the answer text itself.
        let c = parse_reply("{\"a\": 1}".into());
        assert_eq!(c.outcome.text(), Some("{\"a\": 1}"));
        let c = parse_reply("print(1)\n".into());
        assert_eq!(c.outcome.text(), Some("print(1)\n"));
    }
}
