//! `passrate sandbox exec`: run one program in a fresh jail and report how it ended.
//! `passrate sandbox check`: what the sandbox finds on this host, and whether every limit is
//! enforceable, with a hint for each missing piece.

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
    /// What the sandbox finds on this host (cgroup version per role, user namespaces,
    /// seccomp, runtimes) and whether every limit is enforceable. Exit code 0 when it is,
    /// 4 (sandbox unavailable) when something is missing, with a hint for each.
    Check(CheckArgs),
}

#[derive(ClapArgs)]
pub struct CheckArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Lang {
    Python,
    Javascript,
    Java,
    Exec,
}

const MIN_MEMORY_MIB: u64 = Limits::MIN_MEMORY_BYTES >> 20;
const MAX_MIB: u64 = Limits::MAX_BYTES >> 20;

#[derive(ClapArgs)]
pub struct ExecArgs {
    #[arg(long, value_enum)]
    lang: Lang,
    // Every limit has the range the sandbox accepts (`Limits::check`), so a value that
    // would wrap in a conversion is a usage error naming the flag, not a tiny limit.
    /// CPU time limit of the program (all its processes), from the cgroup (sets the wall
    /// time to twice it plus 3 s unless --wall-ms is given).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=Limits::MAX_CPU_MS))]
    cpu_ms: Option<u64>,
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=Limits::MAX_WALL_MS))]
    wall_ms: Option<u64>,
    #[arg(long, value_parser = clap::value_parser!(u64).range(MIN_MEMORY_MIB..=MAX_MIB))]
    memory_mib: Option<u64>,
    /// Heap of the runtime (Python RLIMIT_DATA, Node old space, Java -Xmx).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_MIB))]
    heap_mib: Option<u64>,
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(Limits::MAX_PIDS)))]
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
        SandboxCommand::Check(args) => check(args),
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

/// One finding of `sandbox check`: what was looked at, whether it is usable, and how to fix
/// it when it is not.
#[derive(serde::Serialize)]
struct Finding {
    ok: bool,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

impl Finding {
    fn from_result(result: Result<String, (String, String)>) -> Finding {
        match result {
            Ok(detail) => Finding {
                ok: true,
                detail,
                hint: None,
            },
            Err((detail, hint)) => Finding {
                ok: false,
                detail,
                hint: Some(hint),
            },
        }
    }
}

fn split_unavailable(e: passrate_sandbox::SandboxError) -> (String, String) {
    match e {
        passrate_sandbox::SandboxError::Unavailable { what, hint } => (what, hint),
        other => (
            format!("{:#}", anyhow::Error::from(other)),
            "see the error above".to_owned(),
        ),
    }
}

/// Whether the host has swap at all: without it, a memory limit cannot be escaped by
/// swapping, whatever the cgroup offers.
fn host_has_swap() -> bool {
    fs_err::read_to_string("/proc/swaps").is_ok_and(|s| s.lines().skip(1).any(|l| !l.is_empty()))
}

fn check(args: CheckArgs) -> anyhow::Result<i32> {
    use passrate_sandbox::cgroup::{Base, Layout, Version};

    let config = SandboxConfig::default();
    let version = |b: &Base| match b.version {
        Version::V1 => "v1",
        Version::V2 => "v2",
    };
    let userns = Finding::from_result(
        passrate_sandbox::check_user_namespaces()
            .map(|()| "user namespaces available, running as root".to_owned())
            .map_err(split_unavailable),
    );
    let seccomp = Finding::from_result(
        passrate_sandbox::seccomp::kernel_supports_filters()
            .map(|()| "seccomp filters available".to_owned())
            .map_err(|e| {
                (
                    e,
                    "use a kernel built with CONFIG_SECCOMP_FILTER (every distribution kernel is)"
                        .to_owned(),
                )
            }),
    );

    // The cgroup roles, each on its own (Sandbox::new stops at the first gap).
    let survey = Layout::survey(
        config.cgroups,
        config.cgroup_v2_root.as_deref(),
        &config.cgroup_group,
    );
    let mut roles = Vec::new();
    let mut cgroup_error = None;
    let mut served: std::collections::BTreeMap<&str, Base> = Default::default();
    let mut swap_note = String::new();
    match survey {
        Ok(survey) => {
            let v1_memsw = survey.v1_memsw;
            for (role, result) in [
                ("memory", survey.memory),
                ("pids", survey.pids),
                ("cpu", survey.cpu),
                ("kill", survey.kill),
            ] {
                match result {
                    Ok(base) => {
                        roles.push(serde_json::json!({
                            "role": role, "version": version(&base), "dir": base.dir,
                        }));
                        served.insert(role, base);
                    }
                    Err(e) => {
                        let (what, hint) = split_unavailable(e);
                        roles.push(serde_json::json!({
                            "role": role, "version": null, "problem": what, "hint": hint,
                        }));
                    }
                }
            }
            if let Some(memory) = served.get("memory") {
                let no_swap = match memory.version {
                    Version::V2 => memory.dir.join("memory.swap.max").exists(),
                    Version::V1 => v1_memsw,
                };
                swap_note = if no_swap {
                    ", no swap".to_owned()
                } else if !host_has_swap() {
                    " (the host has no swap)".to_owned()
                } else {
                    " — but swap is not limited: the host has swap and the cgroup cannot cap it"
                        .to_owned()
                };
            }
        }
        Err(e) => cgroup_error = Some(split_unavailable(e)),
    }
    // The layout as the sandbox really resolves it, with a real jail: the only honest probe
    // of namespaces, mounts and seccomp together (Sandbox::new runs /bin/true in one).
    let all_prereqs = userns.ok && seccomp.ok && cgroup_error.is_none() && served.len() == 4;
    let jail = if all_prereqs {
        Finding::from_result(
            Sandbox::new(SandboxConfig {
                prestarted: 0,
                ..SandboxConfig::default()
            })
            .map(|sandbox| {
                let layout = sandbox.cgroup_layout();
                format!(
                    "a jail ran /bin/true (memory from cgroup {}, pids {}, CPU {}, kill {})",
                    version(&layout.memory),
                    version(&layout.pids),
                    version(&layout.cpu),
                    version(&layout.kill)
                )
            })
            .map_err(split_unavailable),
        )
    } else {
        Finding {
            ok: false,
            detail: "not tried: a prerequisite above is missing".to_owned(),
            hint: Some("fix the missing pieces above first".to_owned()),
        }
    };

    let role = |name: &str, what: &str| -> Finding {
        match served.get(name) {
            Some(b) => Finding {
                ok: true,
                detail: format!("{what} (cgroup {}, {})", version(b), b.dir.display()),
                hint: None,
            },
            None => Finding {
                ok: false,
                detail: format!("no cgroup serves the {name} role"),
                hint: Some(format!("see the `{name}` cgroup role above")),
            },
        }
    };
    let in_jail = |what: &str| -> Finding {
        Finding {
            ok: jail.ok,
            detail: what.to_owned(),
            hint: (!jail.ok).then(|| "needs a working jail (above)".to_owned()),
        }
    };
    let limits: Vec<(&str, Finding)> = vec![
        ("memory", {
            let mut f = role("memory", "cgroup memory limit");
            if f.ok {
                f.detail.push_str(&swap_note);
                if swap_note.contains("not limited") {
                    f.ok = false;
                    f.hint = Some(
                        "turn swap off (`swapoff -a`), or enable swap accounting (v1: boot with \
                         `swapaccount=1`; v2 has `memory.swap.max` when the kernel has CONFIG_MEMCG_SWAP)"
                            .to_owned(),
                    );
                }
            }
            f
        }),
        ("processes", role("pids", "cgroup pids limit")),
        (
            "cpu_time",
            role("cpu", "CPU time from the cgroup, killed at the limit"),
        ),
        (
            "wall_clock",
            role("kill", "wall-clock timer, then the whole cgroup killed"),
        ),
        (
            "heap",
            in_jail("Python RLIMIT_DATA, Node --max-old-space-size, Java -Xmx"),
        ),
        (
            "work_dir",
            in_jail("a size- and inode-capped tmpfs per execution"),
        ),
        (
            "output",
            in_jail("capped reads of stdout and stderr, then kill"),
        ),
    ];
    let runtimes = passrate_sandbox::runtimes::Runtimes::resolve();
    let runtime = |r: &Option<passrate_sandbox::runtimes::Runtime>| match r {
        Some(r) => serde_json::json!({ "path": r.path, "version": r.version }),
        None => serde_json::Value::Null,
    };
    let enforceable = userns.ok && seccomp.ok && jail.ok && limits.iter().all(|(_, f)| f.ok);

    if args.json {
        let report = serde_json::json!({
            "enforceable": enforceable,
            "user_namespaces": userns,
            "seccomp": seccomp,
            "cgroup": {
                "preference": config.cgroups,
                "v2_root": config.cgroup_v2_root,
                "roles": roles,
                "error": cgroup_error.as_ref().map(|(what, hint)| serde_json::json!({"problem": what, "hint": hint})),
            },
            "jail": jail,
            "limits": limits.iter().map(|(name, f)| serde_json::json!({
                "limit": name, "enforceable": f.ok, "detail": f.detail, "hint": f.hint,
            })).collect::<Vec<_>>(),
            "runtimes": {
                "python": runtime(&runtimes.python),
                "node": runtime(&runtimes.node),
                "java": runtime(&runtimes.java),
                "javac": runtime(&runtimes.javac),
            },
        });
        println!("{report}");
    } else {
        let mark = |ok: bool| if ok { "ok     " } else { "MISSING" };
        let line = |name: &str, f: &Finding| {
            println!("{} {name}: {}", mark(f.ok), f.detail);
            if let Some(h) = &f.hint {
                println!("          hint: {h}");
            }
        };
        line("user namespaces", &userns);
        line("seccomp", &seccomp);
        if let Some((what, hint)) = &cgroup_error {
            println!("{} cgroups: {what}\n          hint: {hint}", mark(false));
        }
        for r in &roles {
            let name = r["role"].as_str().unwrap_or("");
            match r["version"].as_str() {
                Some(v) => println!(
                    "{} cgroup role {name}: {v} ({})",
                    mark(true),
                    r["dir"].as_str().unwrap_or("")
                ),
                None => println!(
                    "{} cgroup role {name}: {}\n          hint: {}",
                    mark(false),
                    r["problem"].as_str().unwrap_or(""),
                    r["hint"].as_str().unwrap_or("")
                ),
            }
        }
        line("jail", &jail);
        for (name, f) in &limits {
            line(&format!("limit {name}"), f);
        }
        for (name, r) in [
            ("python", &runtimes.python),
            ("node", &runtimes.node),
            ("java", &runtimes.java),
            ("javac", &runtimes.javac),
        ] {
            match r {
                Some(r) => println!("runtime {name}: {} ({})", r.path.display(), r.version),
                None => println!(
                    "runtime {name}: not found (tasks in that language cannot run; see \
                     crates/passrate-sandbox/README.md, \"Runtimes and overrides\")"
                ),
            }
        }
        println!(
            "{}",
            if enforceable {
                "every limit is enforceable on this host"
            } else {
                "NOT every limit is enforceable on this host: see the hints above"
            }
        );
    }
    Ok(if enforceable {
        exit::OK
    } else {
        exit::SANDBOX_UNAVAILABLE
    })
}
