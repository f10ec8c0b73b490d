//! Java application class-data archives (AppCDS): a JAR of trusted classes (a harness) and a
//! static CDS archive of those classes and the JDK classes a typical run loads, dumped with
//! the flags the runs use. A JVM that maps it skips parsing, verifying and linking those
//! classes, and (with relocation mode 0) relocating the archive.
//!
//! Built by the host, once per sandbox, from trusted inputs only (sources and a class list
//! compiled into the caller, never candidate input or sandbox output): `javac -proc:none`,
//! `jar` and `java -Xshare:dump` run only JDK code. The directory is owned by host root,
//! `0555` with `0444` files, removed when the sandbox drops, and bound read-only (nosuid,
//! nodev) at the same path into jails, where the candidate's uid cannot write, replace or
//! chmod it. The JVM validates the archive's header, flags and the JAR's size and mtime at
//! each start and runs without it when anything differs (`-Xshare:auto`): same verdicts,
//! slower.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::runtimes::{self, Runtimes};

/// Where archive directories live on the host (one per sandbox: `<group>-<pid>-<nanos>`).
/// Not under `/tmp`: inside a jail that is the candidate's work dir.
pub const ARCHIVE_ROOT: &str = "/run/passrate-java";

const JAR: &str = "app.jar";
const JSA: &str = "app.jsa";

/// Trusted inputs of a Java class-data archive. Never candidate input.
#[derive(Clone, Debug)]
pub struct JavaArchiveSpec {
    /// Java sources `(relative path, text)`, compiled on the host with the sandbox's `javac`
    /// (same options as the jail's) into the archive's JAR.
    pub sources: Vec<(String, String)>,
    /// The classes to archive, in `-XX:DumpLoadedClassList` format (JDK and JAR classes;
    /// names that do not resolve are skipped by the dump).
    pub class_list: String,
}

/// An installed archive, as the jail needs it to build a `java` command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JavaArchive {
    /// The directory holding `app.jar` and `app.jsa` (bound read-only at the same path).
    pub dir: PathBuf,
    /// Top-level classes of the JAR (binary names). Only runs whose main class is one of
    /// them use the archive: the JAR then comes first on the class path, so its classes
    /// cannot be shadowed by the work dir's, and no other program's classes are shadowed.
    pub main_classes: Vec<String>,
}

impl JavaArchive {
    pub fn jar(&self) -> PathBuf {
        self.dir.join(JAR)
    }

    pub fn jsa(&self) -> PathBuf {
        self.dir.join(JSA)
    }

    pub fn serves(&self, main_class: &str) -> bool {
        self.main_classes.iter().any(|c| c == main_class)
    }

    /// The options a run adds (before `-cp`). Relocation mode 0 maps the archive at its
    /// dump-time address (JDK 17u's default, 1, relocates every pointer of it at each start);
    /// the candidate already runs arbitrary code in that JVM, so the address it hides from
    /// it protects nothing.
    pub fn run_options(&self) -> Vec<String> {
        vec![
            format!("-XX:SharedArchiveFile={}", self.jsa().display()),
            "-XX:+UnlockDiagnosticVMOptions".into(),
            "-XX:ArchiveRelocationMode=0".into(),
        ]
    }

    /// The class path of a run: the JAR first, then the work dir.
    pub fn class_path(&self) -> String {
        format!("{}:.", self.jar().display())
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .env_clear()
        .envs(
            runtimes::CLEAN_ENV
                .iter()
                .filter_map(|kv| kv.split_once('=')),
        )
        .output()
        .map_err(|e| format!("failed to run {what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn io(what: &str) -> impl FnOnce(std::io::Error) -> String + '_ {
    move |e| format!("failed to {what}: {e}")
}

/// Top-level class names (dotted) of the class files under `dir`.
fn top_level_classes(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
    for entry in fs_err::read_dir(dir).map_err(io("list the compiled classes"))? {
        let entry = entry.map_err(io("list the compiled classes"))?;
        let path = entry.path();
        if path.is_dir() {
            top_level_classes(root, &path, out)?;
        } else if let Some(stem) = path
            .strip_prefix(root)
            .ok()
            .and_then(|p| p.to_str())
            .and_then(|p| p.strip_suffix(".class"))
            && !stem.contains('$')
        {
            out.push(stem.replace('/', "."));
        }
    }
    Ok(())
}

/// Builds the archive into `dir` (created here, `0555` when done). On error the caller
/// removes `dir`.
pub fn build(
    spec: &JavaArchiveSpec,
    rts: &Runtimes,
    heap_mib: u64,
    dir: &Path,
) -> Result<JavaArchive, String> {
    use std::os::unix::fs::PermissionsExt;
    let java = rts
        .java
        .as_ref()
        .ok_or("java is not installed on this host")?;
    let javac = rts
        .javac
        .as_ref()
        .ok_or("javac is not installed on this host")?;
    let jar_tool = javac.path.with_file_name("jar");
    let parent = dir.parent().ok_or("the archive directory has no parent")?;
    fs_err::create_dir_all(parent).map_err(io("create the archive root"))?;
    fs_err::set_permissions(parent, std::fs::Permissions::from_mode(0o755))
        .map_err(io("set the archive root's mode"))?;
    fs_err::create_dir(dir).map_err(io("create the archive directory"))?;
    fs_err::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(io("set the archive directory's mode"))?;
    let build = dir.join("build");
    let classes = build.join("classes");
    fs_err::create_dir_all(&classes).map_err(io("create the build directory"))?;
    let mut sources = Vec::new();
    for (name, text) in &spec.sources {
        // Relative paths: sources of packages may share a file name (`org/junit/Test.java`,
        // `org/junit/jupiter/api/Test.java`).
        let relative = Path::new(name)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !relative || !name.ends_with(".java") {
            return Err(format!("bad archive source name {name:?}"));
        }
        let path = build.join(name);
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent).map_err(io("create an archive source directory"))?;
        }
        fs_err::write(&path, text).map_err(io("write an archive source"))?;
        sources.push(name.clone());
    }
    run(
        Command::new(&javac.path)
            .current_dir(&build)
            .args(runtimes::javac_options())
            .args(["-d", "classes"])
            .args(&sources),
        "javac (archive classes)",
    )?;
    let mut main_classes = Vec::new();
    top_level_classes(&classes, &classes, &mut main_classes)?;
    main_classes.sort();
    if main_classes.is_empty() {
        return Err("the archive sources compiled to no class".into());
    }
    let jar = dir.join(JAR);
    run(
        Command::new(&jar_tool)
            .current_dir(&build)
            .arg("--create")
            .arg(format!("--file={}", jar.display()))
            .arg("--no-manifest")
            .args(["-C", "classes", "."]),
        "jar (archive classes)",
    )?;
    let list = build.join("classes.lst");
    fs_err::write(&list, &spec.class_list).map_err(io("write the class list"))?;
    let jsa = dir.join(JSA);
    // The run's own flags (GC, compiler, heap), so that the JVM accepts the archive as is.
    run(
        Command::new(&java.path)
            .current_dir(&build)
            .args(runtimes::java_run_options(heap_mib))
            .arg("-Xshare:dump")
            .arg(format!("-XX:SharedClassListFile={}", list.display()))
            .arg(format!("-XX:SharedArchiveFile={}", jsa.display()))
            .arg("-cp")
            .arg(&jar),
        "java -Xshare:dump",
    )?;
    fs_err::remove_dir_all(&build).map_err(io("remove the build directory"))?;
    for file in [&jar, &jsa] {
        fs_err::set_permissions(file, std::fs::Permissions::from_mode(0o444))
            .map_err(io("set an archive file's mode"))?;
    }
    fs_err::set_permissions(dir, std::fs::Permissions::from_mode(0o555))
        .map_err(io("set the archive directory's mode"))?;
    Ok(JavaArchive {
        dir: dir.to_path_buf(),
        main_classes,
    })
}

/// The `java` command (as an `exec` step) that checks, inside a jail, that a JVM started with
/// the run's flags maps the archive (`-Xshare:on` fails otherwise).
pub fn check_command(
    archive: &JavaArchive,
    rts: &Runtimes,
    heap_mib: u64,
) -> Option<(String, Vec<String>)> {
    let java = rts.java.as_ref()?;
    let mut args = runtimes::java_run_options(heap_mib);
    args.push("-Xshare:on".into());
    args.extend(archive.run_options());
    args.extend([
        "-cp".into(),
        archive.jar().display().to_string(),
        "-version".into(),
    ]);
    Some((java.path.display().to_string(), args))
}

/// A fresh directory name for a sandbox of cgroup group `group`.
pub fn new_dir(group: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Path::new(ARCHIVE_ROOT).join(format!("{group}-{}-{nanos}", std::process::id()))
}

/// Removes archive directories whose process is gone (a crashed host, or a sandbox that was
/// never dropped, as in a `static`), whatever their group: nothing else uses them.
pub fn clean_leftovers() {
    let Ok(entries) = fs_err::read_dir(ARCHIVE_ROOT) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        // `<group>-<pid>-<nanos>`; the group may contain dashes.
        let mut parts = name.rsplit('-');
        let (Some(_nanos), Some(pid)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs_err::remove_dir_all(entry.path());
        }
    }
}
