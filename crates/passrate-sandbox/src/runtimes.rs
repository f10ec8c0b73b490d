//! The host's real interpreters, resolved once (never a pyenv shim), and the command lines
//! and clean environment each program kind runs with.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::api::{Limits, Program};
use crate::java_archive::JavaArchive;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runtime {
    /// Canonical path of the executable (symlinks resolved).
    pub path: PathBuf,
    pub version: String,
}

/// Interpreters and compilers found on the host. A missing one makes only its language
/// unavailable; asking for it then is a clear error.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runtimes {
    pub python: Option<Runtime>,
    pub node: Option<Runtime>,
    pub java: Option<Runtime>,
    pub javac: Option<Runtime>,
    /// The sandbox's Java class-data archive, once built (`Sandbox::install_java_archive`):
    /// runs of its main classes map it, and jails bind its directory read-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub java_archive: Option<JavaArchive>,
}

fn canonical(candidates: &[&str]) -> Option<PathBuf> {
    candidates
        .iter()
        .find_map(|c| std::fs::canonicalize(c).ok())
        .filter(|p| !p.starts_with("/root") && !p.to_string_lossy().contains("/shims/"))
}

fn version_of(path: &Path, arg: &str) -> String {
    let out = Command::new(path)
        .arg(arg)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output();
    match out {
        Ok(out) => {
            let text = if out.stdout.is_empty() {
                out.stderr
            } else {
                out.stdout
            };
            String::from_utf8_lossy(&text)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_owned()
        }
        Err(_) => String::new(),
    }
}

/// A JDK tool's version from its JDK's `release` file (`<home>/release`,
/// `JAVA_RUNTIME_VERSION`), where it has one: asking `javac -version` starts a JVM with the
/// compiler, about a quarter of a second that every `passrate check` paid.
fn jdk_version(tool: &Path) -> Option<String> {
    let home = tool.parent()?.parent()?;
    let release = fs_err::read_to_string(home.join("release")).ok()?;
    let field = |name: &str| {
        release.lines().find_map(|l| {
            l.strip_prefix(name)
                .and_then(|v| v.strip_prefix('='))
                .map(|v| v.trim().trim_matches('"').to_owned())
        })
    };
    let version = field("JAVA_RUNTIME_VERSION").or_else(|| field("JAVA_VERSION"))?;
    let implementor = field("IMPLEMENTOR").unwrap_or_default();
    Some(format!("{implementor} JDK {version}").trim().to_owned())
}

impl Runtimes {
    /// Looks for system interpreters. `PASSRATE_PYTHON`, `PASSRATE_NODE`, `PASSRATE_JAVA_HOME`
    /// override the defaults.
    pub fn resolve() -> Runtimes {
        let env = |k: &str| std::env::var(k).ok();
        let python = env("PASSRATE_PYTHON")
            .and_then(|p| std::fs::canonicalize(p).ok())
            .or_else(|| canonical(&["/usr/bin/python3", "/usr/local/bin/python3"]));
        let node = env("PASSRATE_NODE")
            .and_then(|p| std::fs::canonicalize(p).ok())
            .or_else(|| canonical(&["/usr/bin/node", "/usr/local/bin/node", "/usr/bin/nodejs"]));
        let java_home = env("PASSRATE_JAVA_HOME").map(PathBuf::from);
        let java = match &java_home {
            Some(h) => std::fs::canonicalize(h.join("bin/java")).ok(),
            None => canonical(&["/usr/bin/java"]),
        };
        let javac = match &java_home {
            Some(h) => std::fs::canonicalize(h.join("bin/javac")).ok(),
            None => canonical(&["/usr/bin/javac"]),
        };
        Runtimes {
            python: python.map(|p| Runtime {
                version: version_of(&p, "--version"),
                path: p,
            }),
            node: node.map(|p| Runtime {
                version: version_of(&p, "--version"),
                path: p,
            }),
            java: java.map(|p| Runtime {
                version: jdk_version(&p).unwrap_or_else(|| version_of(&p, "-version")),
                path: p,
            }),
            javac: javac.map(|p| Runtime {
                version: jdk_version(&p).unwrap_or_else(|| version_of(&p, "-version")),
                path: p,
            }),
            java_archive: None,
        }
    }

    /// Host directories outside the default binds that the runtimes need inside the jail.
    pub fn extra_binds(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for rt in [&self.python, &self.node, &self.java, &self.javac]
            .into_iter()
            .flatten()
        {
            if !rt.path.starts_with("/usr") {
                // e.g. /opt/jdk/bin/java → bind /opt/jdk
                if let Some(home) = rt.path.parent().and_then(Path::parent) {
                    out.push(home.to_path_buf());
                }
            }
        }
        if let Some(archive) = &self.java_archive {
            out.push(archive.dir.clone());
        }
        out.sort();
        out.dedup();
        out
    }
}

/// How one step is started inside the jail.
pub struct CommandLine {
    pub exe: PathBuf,
    pub argv: Vec<String>,
    /// RLIMIT_DATA for runtimes whose heap cannot be capped by a flag.
    pub data_limit: Option<u64>,
}

fn need<'a>(rt: &'a Option<Runtime>, name: &str) -> Result<&'a Runtime, String> {
    rt.as_ref().ok_or_else(|| {
        format!("{name} is not installed on this host (or set its PASSRATE_* override)")
    })
}

/// Node keeps the string-hash seed baked into its start-up snapshot instead of rehashing the
/// snapshot for a new one. Any `--hash-seed` (or the default random seed) makes each isolate
/// derive hash secrets from it (a search for three 64-bit primes, Miller-Rabin with a slow
/// modular multiply) and rehash every table of the snapshot: with the cheapest fixed seed
/// (1672) that still cost ~1 ms of each start (~4%). The baked-in seed is fixed for a given
/// binary, so hashing is as deterministic as with a fixed seed. A random seed protects a
/// long-lived process from inputs crafted to collide; here each process runs one candidate,
/// which could only slow itself down.
const NODE_KEEP_SNAPSHOT_SEED: &str = "--no-rehash-snapshot";

/// JVM options for fast start of short programs: one GC thread, C1 only, shared archive.
/// G1, not the serial collector: in JDK 17 only G1 maps the archived heap objects of a CDS
/// archive (interned strings, class mirrors, the module graph, lambda forms), which the
/// serial collector must rebuild at each start. `java Hello` with the default archive:
/// 36 ms of CPU against 47 ms (`perf stat -r 20`, load ~10); HumanEval's 164 Java solutions
/// through `bench runner --only java`: 6.6 s of execution CPU against 8.0 s (two
/// alternating runs each, load 15–17).
/// C1 compiles a method after 1,000 calls rather than 200: in a run of a few hundred
/// milliseconds most methods crossing the default are start-up code that never pays back
/// its compilation, while loops still compile on their back-edge count (left at its default).
/// HumanEval's 164 Java solutions through `bench runner --only java`: 7.5 s of CPU
/// against 8.2 s (medians of four alternating runs each, load 8–14).
const JVM_FAST_START: [&str; 9] = [
    "-XX:+UseG1GC",
    "-XX:ParallelGCThreads=1",
    "-XX:ConcGCThreads=1",
    "-XX:TieredStopAtLevel=1",
    "-XX:Tier3InvocationThreshold=1000",
    "-XX:Tier3MinInvocationThreshold=1000",
    "-XX:Tier3CompileThreshold=5000",
    "-XX:-UsePerfData",
    "-Xshare:auto",
];

/// The options of every `java` run before its class path: [`JVM_FAST_START`], the heap cap
/// and the stack size. A class-data archive is dumped with the same ones.
pub fn java_run_options(heap_mib: u64) -> Vec<String> {
    let mut options: Vec<String> = JVM_FAST_START.iter().map(|s| s.to_string()).collect();
    options.extend([format!("-Xmx{heap_mib}m"), "-Xss8m".into()]);
    options
}

/// javac's options besides `-d` and the JVM's (both compile paths, and the class-data
/// archive's classes). String concatenation as StringBuilder calls: javac's default
/// (invokedynamic) makes the run's first `a + b` spin method handles, ~40 ms of CPU per JVM.
pub fn javac_options() -> [&'static str; 5] {
    [
        "-proc:none",
        "-encoding",
        "UTF-8",
        "-nowarn",
        "-XDstringConcat=inline",
    ]
}

pub fn command_line(
    program: &Program,
    limits: &Limits,
    rts: &Runtimes,
) -> Result<CommandLine, String> {
    let heap_mib = (limits.heap_bytes >> 20).max(1);
    let with_args = |exe: &Runtime, mut argv: Vec<String>, args: &[String]| {
        argv.insert(0, exe.path.display().to_string());
        argv.extend(args.iter().cloned());
        argv
    };
    Ok(match program {
        Program::Python { script, args } => {
            let rt = need(&rts.python, "python3")?;
            CommandLine {
                exe: rt.path.clone(),
                argv: with_args(
                    rt,
                    python_flags(rt)
                        .into_iter()
                        .chain([script.clone()])
                        .collect(),
                    args,
                ),
                data_limit: Some(limits.heap_bytes),
            }
        }
        Program::Node { script, args } => {
            let rt = need(&rts.node, "node")?;
            CommandLine {
                exe: rt.path.clone(),
                argv: with_args(
                    rt,
                    vec![
                        format!("--max-old-space-size={heap_mib}"),
                        NODE_KEEP_SNAPSHOT_SEED.to_owned(),
                        script.clone(),
                    ],
                    args,
                ),
                data_limit: None,
            }
        }
        Program::Javac { sources, archive } => {
            let rt = need(&rts.javac, "javac")?;
            let mut argv: Vec<String> = JVM_FAST_START.iter().map(|o| format!("-J{o}")).collect();
            argv.push("-J-Xmx128m".into());
            argv.extend(javac_options().map(String::from));
            argv.extend(["-d".into(), ".".into()]);
            if *archive {
                let archive = rts
                    .java_archive
                    .as_ref()
                    .ok_or("javac against the class-data archive, but none is installed")?;
                argv.extend(["-cp".into(), archive.class_path()]);
            }
            CommandLine {
                exe: rt.path.clone(),
                argv: with_args(rt, argv, sources),
                data_limit: None,
            }
        }
        Program::Java { main_class, args } => {
            let rt = need(&rts.java, "java")?;
            let mut argv = java_run_options(heap_mib);
            match rts.java_archive.as_ref().filter(|a| a.serves(main_class)) {
                Some(archive) => {
                    argv.extend(archive.run_options());
                    argv.extend(["-cp".into(), archive.class_path()]);
                }
                None => argv.extend(["-cp".into(), ".".into()]),
            }
            argv.push(main_class.clone());
            CommandLine {
                exe: rt.path.clone(),
                argv: with_args(rt, argv, args),
                data_limit: None,
            }
        }
        Program::Exec { path, args } => {
            let exe = if path.starts_with('/') {
                PathBuf::from(path)
            } else {
                Path::new("/tmp").join(path)
            };
            let mut argv = vec![path.clone()];
            argv.extend(args.iter().cloned());
            CommandLine {
                exe,
                argv,
                data_limit: None,
            }
        }
    })
}

/// Interpreter flags of every sandboxed Python (fresh jails and the fork server): no user
/// site (`-s`), no `site` module (`-S`), no bytecode writes (`-B`), and from 3.11 on the
/// script's directory kept off `sys.path` (`-P`). Not `-I`/`-E`: they ignore the environment,
/// which is passrate's own anyway (`CLEAN_ENV`), and with it `PYTHONHASHSEED=0`; string
/// hashing would then be seeded per process (per warm slot, whose children share the fork
/// server's seed), so the iteration order of a set of strings, and a verdict that depends on
/// it, would change from run to run.
pub fn python_flags(rt: &Runtime) -> Vec<String> {
    let mut flags: Vec<String> = vec!["-s".into(), "-S".into(), "-B".into()];
    if python_minor(&rt.version).is_some_and(|minor| minor >= 11) {
        flags.push("-P".into());
    }
    flags
}

/// The minor version of a Python 3 `--version` line ("Python 3.11.2" -> 11).
fn python_minor(version: &str) -> Option<u32> {
    let number = version.trim().strip_prefix("Python 3.")?;
    number.split('.').next()?.parse().ok()
}

/// The whole environment of a sandboxed program. Nothing is inherited from the host: a
/// stray variable costs time (NODE_EXTRA_CA_CERTS: ~35 ms per Node start) or leaks secrets.
pub const CLEAN_ENV: &[&str] = &[
    "PATH=/usr/local/bin:/usr/bin:/bin",
    "HOME=/tmp",
    "TMPDIR=/tmp",
    "LANG=C.UTF-8",
    "LC_ALL=C.UTF-8",
    "PYTHONHASHSEED=0",
    "PYTHONDONTWRITEBYTECODE=1",
    "PYTHONIOENCODING=utf-8",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn python(version: &str) -> Runtime {
        Runtime {
            path: "/usr/bin/python3".into(),
            version: version.into(),
        }
    }

    #[test]
    fn python_flags_never_ignore_the_environment() {
        for v in ["Python 3.9.18", "Python 3.11.2", "Python 3.13.0", "garbage"] {
            let flags = python_flags(&python(v));
            assert!(
                !flags.iter().any(|f| f == "-I" || f == "-E"),
                "{v}: {flags:?}"
            );
            assert!(flags.iter().any(|f| f == "-s"), "{v}: {flags:?}");
        }
        assert!(python_flags(&python("Python 3.11.2")).contains(&"-P".to_owned()));
        assert!(!python_flags(&python("Python 3.10.12")).contains(&"-P".to_owned()));
    }

    #[test]
    fn jdk_versions_come_from_the_release_file_beside_the_tools() {
        let jdk = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(jdk.path().join("bin")).unwrap();
        let javac = jdk.path().join("bin/javac");
        assert_eq!(jdk_version(&javac), None, "no release file: ask the tool");
        fs_err::write(
            jdk.path().join("release"),
            "IMPLEMENTOR=\"Debian\"\nJAVA_RUNTIME_VERSION=\"17.0.15+6-Debian-1deb12u1\"\nJAVA_VERSION=\"17.0.15\"\n",
        )
        .unwrap();
        assert_eq!(
            jdk_version(&javac).as_deref(),
            Some("Debian JDK 17.0.15+6-Debian-1deb12u1")
        );
        fs_err::write(jdk.path().join("release"), "JAVA_VERSION=\"21.0.1\"\n").unwrap();
        assert_eq!(jdk_version(&javac).as_deref(), Some("JDK 21.0.1"));
    }
}
