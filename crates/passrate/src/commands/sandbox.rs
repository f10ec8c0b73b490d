//! `passrate sandbox exec`: run one program in a fresh jail and report how it ended.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use passrate_sandbox::{
    ExecOutcome, ExecRequest, InputFile, Limits, Program, Sandbox, SandboxConfig,
};
use passrate_schema::exit;

#[derive(Subcommand)]
pub enum SandboxCommand {
    /// Run FILE in a fresh jail. Exit code 0 when the jail ran, whatever the program did.
    Exec(ExecArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Lang {
    Python,
    Javascript,
    Java,
    Exec,
}

#[derive(ClapArgs)]
pub struct ExecArgs {
    #[arg(long, value_enum)]
    lang: Lang,
    /// CPU time limit of the program (all its processes), from the cgroup.
    #[arg(long)]
    cpu_ms: Option<u64>,
    #[arg(long)]
    wall_ms: Option<u64>,
    #[arg(long)]
    memory_mib: Option<u64>,
    /// Heap of the runtime (Python RLIMIT_DATA, Node old space, Java -Xmx).
    #[arg(long)]
    heap_mib: Option<u64>,
    #[arg(long)]
    pids: Option<u32>,
    /// Print one JSON object instead of the program's output.
    #[arg(long)]
    json: bool,
    /// The program: a script, a `.java` source with `main`, or (with `--lang exec`) an
    /// executable path inside the jail.
    file: PathBuf,
    /// Arguments passed to the program.
    #[arg(last = true)]
    args: Vec<String>,
}

pub fn run(cmd: SandboxCommand) -> anyhow::Result<i32> {
    match cmd {
        SandboxCommand::Exec(args) => exec(args),
    }
}

fn exec(args: ExecArgs) -> anyhow::Result<i32> {
    let mut limits = Limits::default();
    if let Some(ms) = args.cpu_ms {
        limits.cpu_ms = ms;
        limits.wall_ms = ms * 2 + 3_000;
    }
    if let Some(ms) = args.wall_ms {
        limits.wall_ms = ms;
    }
    if let Some(m) = args.memory_mib {
        limits.memory_bytes = m << 20;
    }
    if let Some(m) = args.heap_mib {
        limits.heap_bytes = m << 20;
    }
    if let Some(p) = args.pids {
        limits.pids = p;
    }
    let mut files = Vec::new();
    let mut source = |name: &str| -> anyhow::Result<String> {
        let contents = fs_err::read(&args.file)?;
        files.push(InputFile {
            path: name.to_owned(),
            contents,
            executable: false,
        });
        Ok(name.to_owned())
    };
    let file_name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let steps = match args.lang {
        Lang::Python => vec![Program::Python {
            script: source("main.py")?,
            args: args.args.clone(),
        }],
        Lang::Javascript => {
            let name = if file_name.ends_with(".mjs") {
                "main.mjs"
            } else {
                "main.js"
            };
            vec![Program::Node {
                script: source(name)?,
                args: args.args.clone(),
            }]
        }
        Lang::Java => {
            let class = file_name
                .strip_suffix(".java")
                .context("a Java source file must end in .java")?
                .to_owned();
            let src = source(&file_name)?;
            vec![
                Program::Javac {
                    sources: vec![src],
                    archive: false,
                },
                Program::Java {
                    main_class: class,
                    args: args.args.clone(),
                },
            ]
        }
        Lang::Exec => vec![Program::Exec {
            path: args.file.display().to_string(),
            args: args.args.clone(),
        }],
    };
    let request = ExecRequest {
        steps,
        files,
        stdin: Vec::new(),
        channel_input: Vec::new(),
        limits,
        prestart: None,
        frame_budgets: None,
    };
    let sandbox = Sandbox::new(SandboxConfig::default())?;
    let outcome = sandbox.execute(&request)?;
    if args.json {
        println!("{}", outcome_json(&outcome));
    } else {
        use std::io::Write;
        std::io::stdout().write_all(&outcome.stdout)?;
        std::io::stderr().write_all(&outcome.stderr)?;
        eprintln!(
            "passrate: {} (exit {}, signal {}) cpu {} ms, wall {} ms, peak memory {}",
            outcome.status.as_str(),
            outcome.exit_code.map_or("-".into(), |c| c.to_string()),
            outcome.signal.map_or("-".into(), |s| s.to_string()),
            outcome.cpu_us / 1000,
            outcome.wall_us / 1000,
            outcome
                .peak_memory_bytes
                .map_or("unknown".into(), |b| format!(
                    "{:.1} MiB",
                    b as f64 / 1048576.0
                )),
        );
    }
    Ok(exit::OK)
}

fn outcome_json(o: &ExecOutcome) -> serde_json::Value {
    serde_json::json!({
        "status": o.status.as_str(),
        "exit_code": o.exit_code,
        "signal": o.signal,
        "cpu_ms": o.cpu_us as f64 / 1000.0,
        "wall_ms": o.wall_us as f64 / 1000.0,
        "peak_memory_bytes": o.peak_memory_bytes,
        "stdout": String::from_utf8_lossy(&o.stdout),
        "stderr": String::from_utf8_lossy(&o.stderr),
        "truncated": o.truncated,
        "step": o.step,
    })
}
