//! `passrate bench sandbox`: per language, the same program as a bare process, in a fresh
//! jail, and through the warm paths (Python fork server, warm Java compiler), measured
//! interleaved in one run (medians), plus executions per second with one slot and with every
//! slot.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args as ClapArgs;
use passrate_sandbox::runtimes::{CLEAN_ENV, command_line};
use passrate_sandbox::{ExecRequest, ExecStatus, InputFile, Program, Sandbox, SandboxConfig};

#[derive(ClapArgs)]
pub struct Args {
    /// Measurements per program and mode.
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Executions for each throughput figure.
    #[arg(long, default_value_t = 200)]
    throughput_runs: usize,
    /// One JSON object per figure instead of a table.
    #[arg(long)]
    json: bool,
}

struct Case {
    name: &'static str,
    files: Vec<(&'static str, &'static str)>,
    steps: Vec<Program>,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "exec /bin/true",
            files: vec![],
            steps: vec![Program::Exec {
                path: "/bin/true".into(),
                args: vec![],
            }],
        },
        Case {
            name: "python",
            files: vec![("main.py", "print('hello')\n")],
            steps: vec![Program::Python {
                script: "main.py".into(),
                args: vec![],
            }],
        },
        Case {
            name: "javascript",
            files: vec![("main.js", "console.log('hello');\n")],
            steps: vec![Program::Node {
                script: "main.js".into(),
                args: vec![],
            }],
        },
        Case {
            name: "java (javac + java)",
            files: vec![(
                "Hello.java",
                "public class Hello { public static void main(String[] a) { System.out.println(\"hello\"); } }\n",
            )],
            steps: vec![
                Program::Javac {
                    sources: vec!["Hello.java".into()],
                },
                Program::Java {
                    main_class: "Hello".into(),
                    args: vec![],
                },
            ],
        },
    ]
}

fn request(case: &Case) -> ExecRequest {
    let mut req = ExecRequest::single(case.steps[0].clone());
    req.steps = case.steps.clone();
    req.files = case
        .files
        .iter()
        .map(|(p, c)| InputFile {
            path: (*p).into(),
            contents: c.as_bytes().to_vec(),
            executable: false,
        })
        .collect();
    req
}

/// The same command lines the jail uses, run directly with the same clean environment.
fn run_bare(case: &Case, sandbox: &Sandbox, dir: &Path) -> anyhow::Result<Duration> {
    for (path, contents) in &case.files {
        fs_err::write(dir.join(path), contents)?;
    }
    let limits = passrate_sandbox::Limits::default();
    let start = Instant::now();
    for step in &case.steps {
        let cmd = command_line(step, &limits, sandbox.runtimes()).map_err(anyhow::Error::msg)?;
        let status = Command::new(&cmd.exe)
            .args(&cmd.argv[1..])
            .current_dir(dir)
            .env_clear()
            .envs(CLEAN_ENV.iter().filter_map(|kv| kv.split_once('=')))
            .stdout(std::process::Stdio::null())
            .status()
            .with_context(|| format!("failed to run {}", cmd.exe.display()))?;
        anyhow::ensure!(status.success(), "bare {} failed: {status}", case.name);
    }
    Ok(start.elapsed())
}

fn run_jail(case: &Case, sandbox: &Sandbox, warm: bool) -> anyhow::Result<Duration> {
    let req = request(case);
    let start = Instant::now();
    let out = if warm {
        sandbox.execute(&req)?
    } else {
        sandbox.execute_fresh_jail(&req)?
    };
    let elapsed = start.elapsed();
    anyhow::ensure!(
        out.status == ExecStatus::Ok,
        "jailed {} ended {:?}: {}",
        case.name,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(elapsed)
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    let mid = v.len() / 2;
    let d = if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2
    } else {
        v[mid]
    };
    d.as_secs_f64() * 1000.0
}

fn throughput(
    sandbox: &Sandbox,
    case: &Case,
    threads: usize,
    total: usize,
    warm: bool,
) -> anyhow::Result<f64> {
    let start = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || -> anyhow::Result<()> {
                    for _ in (t..total).step_by(threads) {
                        run_jail(case, sandbox, warm)?;
                    }
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join()
                .map_err(|_| anyhow::anyhow!("a benchmark thread panicked"))??;
        }
        Ok(())
    })?;
    Ok(total as f64 / start.elapsed().as_secs_f64())
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let sandbox = Sandbox::new(SandboxConfig::default())?;
    let dir = tempfile_dir()?;
    let slots = sandbox.slots();
    if !args.json {
        println!(
            "| program | bare process | fresh jail | warm path | fresh − bare | warm / bare | fresh / warm |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|");
    }
    for case in cases() {
        // Warm the page cache, the JVM's class-data archive, the slots and the compiler.
        run_bare(&case, &sandbox, &dir)?;
        run_jail(&case, &sandbox, false)?;
        run_jail(&case, &sandbox, true)?;
        let (mut bare, mut fresh, mut warm) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..args.runs {
            bare.push(run_bare(&case, &sandbox, &dir)?);
            fresh.push(run_jail(&case, &sandbox, false)?);
            warm.push(run_jail(&case, &sandbox, true)?);
        }
        let (b, f, w) = (median(bare), median(fresh), median(warm));
        if args.json {
            println!(
                "{}",
                serde_json::json!({"figure": "latency_ms_median", "program": case.name, "runs": args.runs, "bare": b, "fresh_jail": f, "warm": w})
            );
        } else {
            println!(
                "| {} | {b:.1} ms | {f:.1} ms | {w:.1} ms | {:.1} ms | {:.2}× | {:.2}× |",
                case.name,
                f - b,
                w / b,
                f / w
            );
        }
    }
    let py = &cases()[1];
    let mut rows = Vec::new();
    for (label, warm) in [("fresh jail", false), ("warm slot (fork server)", true)] {
        let one = throughput(&sandbox, py, 1, args.throughput_runs, warm)?;
        let all = throughput(&sandbox, py, slots, args.throughput_runs, warm)?;
        rows.push((label, one, all));
    }
    if args.json {
        for (label, one, all) in &rows {
            println!(
                "{}",
                serde_json::json!({"figure": "python_executions_per_second", "path": label, "executions": args.throughput_runs, "one_slot": one, "slots": slots, "all_slots": all})
            );
        }
    } else {
        println!();
        println!("| python executions per second | 1 slot | {slots} slots |");
        println!("|---|---:|---:|");
        for (label, one, all) in rows {
            println!("| {label} | {one:.1} | {all:.1} |");
        }
    }
    let _ = fs_err::remove_dir_all(&dir);
    Ok(0)
}

fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("passrate-bench-{}", std::process::id()));
    fs_err::create_dir_all(&dir)?;
    Ok(dir)
}
