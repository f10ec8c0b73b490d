//! The `command` adapter: run a program per attempt, request JSON on stdin, answer on stdout.
//!
//! Protocol: stdin receives one [`AdapterRequest`] as JSON, then EOF. The program prints
//! either the answer text as is, or a JSON object `{"text": "...", "usage": {"input_tokens":
//! N, "output_tokens": M}, "finish_reason": "stop"}` (or `{"no_answer": true}`). Exit 0 is
//! success; exit 75 (`EX_TEMPFAIL`) asks for a retry; any other status is a non-retryable
//! failure. On timeout the program's whole process group is killed. The program inherits
//! passrate's environment (so it can read its own API key) and runs in the current directory.

use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::{Adapter, AdapterRequest, BoxFuture, Completion};
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

    fn complete<'a>(
        &'a self,
        request: &'a AdapterRequest,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Completion, AttemptError>> {
        Box::pin(self.attempt(request, timeout))
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
