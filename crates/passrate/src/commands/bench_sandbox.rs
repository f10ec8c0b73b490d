//! `passrate bench sandbox`: per language, the same program as a bare process, in a fresh
//! jail, and through the warm paths (Python fork server; pre-started jails for Node and for
//! Java runs, after the warm Java compiler), measured interleaved in one run (medians), plus
//! executions per second with one slot and with every slot.
//!
//! The Node and Java programs are tiny launchers that load the program named on stdin, as
//! the runner's harnesses do with the candidate: a pre-started jail has the launcher running
//! and ready, and gets the program's files and its stdin at hand-over.

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
    files: Vec<(String, Vec<u8>)>,
    steps: Vec<Program>,
    /// Given on stdin (the launchers read the program's name there).
    stdin: &'static str,
    /// Files the launcher needs before its hand-over (`ExecRequest::prestart`).
    prestart: Option<Vec<String>>,
}

const NODE_LAUNCHER: &str = "const fs = require('fs');\n\
if (process.env.PASSRATE_PRESTARTED !== undefined) fs.writeSync(4, '\\n');\n\
require(require('path').resolve(fs.readFileSync(0, 'utf8').trim()));\n";

const JAVA_LAUNCHER: &str = "import java.io.*;\n\
public class Launch {\n\
    public static void main(String[] a) throws Exception {\n\
        if (System.getenv(\"PASSRATE_PRESTARTED\") != null) {\n\
            try (OutputStream o = new FileOutputStream(\"/proc/self/fd/4\")) { o.write('\\n'); }\n\
        }\n\
        String name = new String(System.in.readAllBytes()).trim();\n\
        Class.forName(name).getMethod(\"main\", String[].class).invoke(null, (Object) new String[0]);\n\
    }\n\
}\n";

const JAVA_HELLO: &str = "public class Hello { public static void main(String[] a) { System.out.println(\"hello\"); } }\n";

fn text(path: &str, contents: &str) -> (String, Vec<u8>) {
    (path.to_owned(), contents.as_bytes().to_vec())
}

/// Compiles the Java launcher once through the sandbox; its class files come back as hex.
fn java_launcher_classes(sandbox: &Sandbox) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut req = ExecRequest::single(Program::Javac {
        sources: vec!["Launch.java".into()],
        archive: false,
    });
    req.steps.push(Program::Exec {
        path: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "for f in *.class; do echo \"$f\"; od -An -v -tx1 \"$f\" | tr -d ' \\n'; echo; done"
                .into(),
        ],
    });
    req.files.push(InputFile {
        path: "Launch.java".into(),
        contents: JAVA_LAUNCHER.as_bytes().to_vec(),
        executable: false,
    });
    let out = sandbox.execute_fresh_jail(&req)?;
    anyhow::ensure!(
        out.status == ExecStatus::Ok,
        "compiling the Java launcher ended {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = String::from_utf8(out.stdout)?;
    let lines: Vec<&str> = dump.lines().collect();
    let mut classes = Vec::new();
    for pair in lines.chunks(2) {
        let [name, hex] = pair else {
            anyhow::bail!("odd class dump")
        };
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
            .collect::<Result<Vec<u8>, _>>()?;
        classes.push(((*name).to_owned(), bytes));
    }
    anyhow::ensure!(!classes.is_empty(), "no launcher classes");
    Ok(classes)
}

fn cases(sandbox: &Sandbox) -> anyhow::Result<Vec<Case>> {
    let launcher = java_launcher_classes(sandbox)?;
    let launcher_names: Vec<String> = launcher.iter().map(|(p, _)| p.clone()).collect();
    let mut java_files = vec![text("Hello.java", JAVA_HELLO)];
    java_files.extend(launcher);
    Ok(vec![
        Case {
            name: "exec /bin/true",
            files: vec![],
            steps: vec![Program::Exec {
                path: "/bin/true".into(),
                args: vec![],
            }],
            stdin: "",
            prestart: None,
        },
        Case {
            name: "python",
            files: vec![text("main.py", "print('hello')\n")],
            steps: vec![Program::Python {
                script: "main.py".into(),
                args: vec![],
            }],
            stdin: "",
            prestart: None,
        },
        Case {
            name: "javascript",
            files: vec![
                text("launch.js", NODE_LAUNCHER),
                text("main.js", "console.log('hello');\n"),
            ],
            steps: vec![Program::Node {
                script: "launch.js".into(),
                args: vec![],
            }],
            stdin: "main.js",
            prestart: Some(vec!["launch.js".into()]),
        },
        Case {
            name: "java (javac + java)",
            files: java_files,
            steps: vec![
                Program::Javac {
                    sources: vec!["Hello.java".into()],
                    archive: false,
                },
                Program::Java {
                    main_class: "Launch".into(),
                    args: vec![],
                },
            ],
            stdin: "Hello",
            prestart: Some(launcher_names),
        },
    ])
}

fn request(case: &Case) -> ExecRequest {
    let mut req = ExecRequest::single(case.steps[0].clone());
    req.steps = case.steps.clone();
    req.files = case
        .files
        .iter()
        .map(|(p, c)| InputFile {
            path: p.clone(),
            contents: c.clone(),
            executable: false,
        })
        .collect();
    req.stdin = case.stdin.as_bytes().to_vec();
    req.prestart = case.prestart.clone();
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
        let mut child = Command::new(&cmd.exe)
            .args(&cmd.argv[1..])
            .current_dir(dir)
            .env_clear()
            .envs(CLEAN_ENV.iter().filter_map(|kv| kv.split_once('=')))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .with_context(|| format!("failed to run {}", cmd.exe.display()))?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin.write_all(case.stdin.as_bytes())?;
        }
        let status = child.wait()?;
        anyhow::ensure!(status.success(), "bare {} failed: {status}", case.name);
    }
    Ok(start.elapsed())
}

fn run_jail(
    case: &Case,
    sandbox: &Sandbox,
    warm: bool,
    wait_prestart: bool,
) -> anyhow::Result<Duration> {
    let req = request(case);
    if warm && wait_prestart && req.prestart.is_some() {
        // Measure the pre-started path, not the start of its pool: wait (untimed) until a
        // replacement is ready, as it is whenever executions are not back to back.
        let deadline = Instant::now() + Duration::from_secs(30);
        while sandbox.prestarted_ready_for(&req) == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
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
                        run_jail(case, sandbox, warm, false)?;
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
    // Every sample compiles: the warm path runs the same source again and again, which the
    // compile cache would otherwise answer without javac (answers to score are distinct).
    let sandbox = Sandbox::new(SandboxConfig {
        javac_cache_bytes: 0,
        ..SandboxConfig::default()
    })?;
    let dir = tempfile_dir()?;
    let slots = sandbox.slots();
    let cases = cases(&sandbox)?;
    if !args.json {
        println!(
            "| program | bare process | fresh jail | warm path | fresh − bare | warm / bare | fresh / warm |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|");
    }
    for case in &cases {
        // Warm the page cache, the JVM's class-data archive, the slots, the compiler and the
        // pre-start pool.
        run_bare(case, &sandbox, &dir)?;
        run_jail(case, &sandbox, false, true)?;
        run_jail(case, &sandbox, true, true)?;
        let (mut bare, mut fresh, mut warm) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..args.runs {
            bare.push(run_bare(case, &sandbox, &dir)?);
            fresh.push(run_jail(case, &sandbox, false, true)?);
            warm.push(run_jail(case, &sandbox, true, true)?);
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
    let mut rows = Vec::new();
    for case in cases.iter().skip(1) {
        // Java's fresh path compiles cold each time: fewer executions keep the run short.
        let total = if case.name.starts_with("java (") {
            (args.throughput_runs / 4).max(1)
        } else {
            args.throughput_runs
        };
        for (path, warm) in [("fresh jail", false), ("warm path", true)] {
            let one = throughput(&sandbox, case, 1, total, warm)?;
            let all = throughput(&sandbox, case, slots, total, warm)?;
            rows.push((case.name, path, total, one, all));
        }
    }
    if args.json {
        for (program, path, total, one, all) in &rows {
            println!(
                "{}",
                serde_json::json!({"figure": "executions_per_second", "program": program, "path": path, "executions": total, "one_slot": one, "slots": slots, "all_slots": all})
            );
        }
    } else {
        println!();
        println!("| executions per second | path | executions | 1 slot | {slots} slots |");
        println!("|---|---|---:|---:|---:|");
        for (program, path, total, one, all) in rows {
            println!("| {program} | {path} | {total} | {one:.1} | {all:.1} |");
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
