//! The Java class-data archive (`Sandbox::install_java_archive`), through the real sandbox:
//! runs of its main classes map it, a candidate cannot change it, and an archive the JVM
//! refuses (corrupted, mismatched) changes no outcome.

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use common::jail;
use passrate_sandbox::{ExecOutcome, ExecRequest, ExecStatus, InputFile, JavaArchiveSpec, Program};

/// A trusted "harness": loads the class named on stdin and runs its `main`.
const LAUNCH: &str = r#"
import java.io.*;
public class Launch {
    public static void main(String[] args) throws Exception {
        String name = new BufferedReader(new InputStreamReader(System.in)).readLine().trim();
        Class.forName(name).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
    }
}
"#;

const CLASS_LIST: &str = "# a comment line\nLaunch\njava/lang/Object\njava/io/BufferedReader\njava/io/InputStreamReader\njava/util/ArrayList\njava/util/HashMap\n";

/// The candidate: prints a fixed result on stdout and, on stderr, the archive's mappings.
const PROBE: &str = r#"
import java.nio.file.*;
import java.util.*;
public class Probe {
    public static void main(String[] args) throws Exception {
        List<Integer> xs = new ArrayList<>(List.of(3, 1, 2));
        Collections.sort(xs);
        System.out.println("sorted " + xs);
        for (String line : Files.readAllLines(Paths.get("/proc/self/maps"))) {
            if (line.endsWith(".jsa")) System.err.println(line);
        }
    }
}
"#;

fn spec() -> JavaArchiveSpec {
    JavaArchiveSpec {
        sources: vec![("Launch.java".into(), LAUNCH.into())],
        class_list: CLASS_LIST.into(),
    }
}

fn probe_request(main_class: &str) -> ExecRequest {
    let mut req = ExecRequest::single(Program::Javac {
        sources: vec!["Probe.java".into()],
        archive: false,
    });
    req.steps.push(Program::Java {
        main_class: main_class.into(),
        args: vec![],
    });
    req.files.push(InputFile {
        path: "Probe.java".into(),
        contents: PROBE.as_bytes().to_vec(),
        executable: false,
    });
    req.stdin = b"Probe\n".to_vec();
    req
}

fn stderr(out: &ExecOutcome) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_run_of_an_archived_main_class_maps_the_archive_unrelocated() {
    let j = jail();
    let archive = j.sandbox.install_java_archive(&spec()).expect("builds");
    assert_eq!(archive.main_classes, vec!["Launch".to_owned()]);
    assert_eq!(j.sandbox.java_archive(), Some(archive.clone()));
    let out = j.run(&probe_request("Launch"));
    assert_eq!(out.status, ExecStatus::Ok, "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "sorted [1, 2, 3]\n");
    let jsa = archive.jsa().display().to_string();
    let maps = stderr(&out);
    assert!(maps.contains(&jsa), "the archive is not mapped: {maps}");
    // Relocation mode 0: mapped at its dump-time base, not relocated at each start.
    assert!(
        maps.lines().any(|l| l.starts_with("800000000-")),
        "the archive is not at its dump-time address: {maps}"
    );
    // A task's heap override (another -Xmx than the dump's) still maps it.
    let mut bigger = probe_request("Launch");
    bigger.limits.heap_bytes = 200 << 20;
    let out = j.run(&bigger);
    assert_eq!(out.status, ExecStatus::Ok, "{}", stderr(&out));
    assert!(stderr(&out).contains(&jsa), "{}", stderr(&out));
    // A program whose main class is not in the archive keeps the JDK's default archive and
    // its own class path.
    let mut other = probe_request("Probe");
    other.stdin.clear();
    let out = j.run(&other);
    assert_eq!(out.status, ExecStatus::Ok, "{}", stderr(&out));
    assert!(!stderr(&out).contains(&jsa), "{}", stderr(&out));
    // Dropping the sandbox removes the directory.
    let dir = archive.dir.clone();
    assert!(dir.is_dir());
    drop(j);
    assert!(!dir.exists(), "{} is left behind", dir.display());
}

#[test]
fn a_candidate_cannot_write_replace_or_chmod_the_archive() {
    let j = jail();
    let archive = j.sandbox.install_java_archive(&spec()).expect("builds");
    let before: Vec<Vec<u8>> = [archive.jar(), archive.jsa()]
        .iter()
        .map(|p| fs_err::read(p).expect("readable"))
        .collect();
    let (dir, jar, jsa) = (
        archive.dir.display().to_string(),
        archive.jar().display().to_string(),
        archive.jsa().display().to_string(),
    );
    let attempts = [
        format!("echo x > {jsa}"),
        format!("echo x >> {jar}"),
        format!("chmod 666 {jsa}"),
        format!("chmod 777 {dir}"),
        format!("rm -f {jsa}"),
        format!("mv {jar} {dir}/moved.jar"),
        format!("cp /tmp/x {jsa}"),
        format!("touch {dir}/new"),
        format!("ln -s /tmp/x {dir}/link"),
        format!("touch -d 2000-01-01 {jar}"),
        format!("truncate -s 0 {jsa}"),
    ];
    let script = format!(
        "echo x > /tmp/x; {}",
        attempts
            .iter()
            .map(|a| format!("if {a} 2>/dev/null; then echo 'ALLOWED: {a}'; fi"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let out = j.sh(&script);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{}", stderr(&out));
    // A Java candidate, from an archived run, fares no better.
    let mut req = probe_request("Launch");
    req.files[0].contents = format!(
        r#"
import java.io.*;
public class Probe {{
    public static void main(String[] args) throws Exception {{
        File jsa = new File("{jsa}");
        System.out.println(jsa.setWritable(true) + " " + jsa.delete() + " " + jsa.setLastModified(0));
        try (FileOutputStream out = new FileOutputStream(jsa, true)) {{ out.write(1); System.out.println("written"); }}
        catch (IOException e) {{ System.out.println("denied"); }}
    }}
}}
"#
    )
    .into_bytes();
    let out = j.run(&req);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "false false false\ndenied\n",
        "{}",
        stderr(&out)
    );
    let after: Vec<Vec<u8>> = [archive.jar(), archive.jsa()]
        .iter()
        .map(|p| fs_err::read(p).expect("readable"))
        .collect();
    assert!(before == after, "the archive changed");
    for (path, mode) in [
        (archive.dir.clone(), 0o555),
        (archive.jar(), 0o444),
        (archive.jsa(), 0o444),
    ] {
        let meta = fs_err::metadata(&path).expect("exists");
        assert_eq!(
            meta.permissions().mode() & 0o7777,
            mode,
            "{}",
            path.display()
        );
        assert_eq!((meta.uid(), meta.gid()), (0, 0), "{}", path.display());
    }
    assert_eq!(
        fs_err::read_dir(&archive.dir).expect("dir").count(),
        2,
        "only the JAR and the archive"
    );
}

/// Rewrites a read-only archive file as host root would (the only one who can).
fn rewrite(path: &Path, change: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = fs_err::read(path).expect("readable");
    change(&mut bytes);
    fs_err::write(path, bytes).expect("root writes");
}

#[test]
fn an_archive_the_jvm_refuses_changes_no_outcome() {
    let j = jail();
    let archive = j.sandbox.install_java_archive(&spec()).expect("builds");
    let jsa_name = archive.jsa().display().to_string();
    let reference = j.run(&probe_request("Launch"));
    assert_eq!(reference.status, ExecStatus::Ok, "{}", stderr(&reference));
    assert!(stderr(&reference).contains(&jsa_name));
    let same = |what: &str| {
        let out = j.run(&probe_request("Launch"));
        assert_eq!(out.status, reference.status, "{what}: {}", stderr(&out));
        assert_eq!(out.stdout, reference.stdout, "{what}");
        assert_eq!(out.channel_output, reference.channel_output, "{what}");
        assert!(
            !stderr(&out).contains(&jsa_name),
            "{what}: the JVM mapped it: {}",
            stderr(&out)
        );
    };
    let original = fs_err::read(archive.jsa()).expect("readable");
    // A JAR that is not the one dumped (its modification time differs).
    let jar = fs_err::File::options()
        .write(true)
        .open(archive.jar())
        .expect("root opens");
    jar.set_modified(std::time::SystemTime::UNIX_EPOCH)
        .expect("set mtime");
    same("a JAR with another modification time");
    drop(jar);
    // Header corruption: magic, then version/flags.
    rewrite(&archive.jsa(), |b| b[0] ^= 0xff);
    same("a wrong magic number");
    fs_err::write(archive.jsa(), &original).expect("restore");
    rewrite(&archive.jsa(), |b| {
        b[4..40].iter_mut().for_each(|x| *x ^= 0x5a)
    });
    same("a corrupted header");
    // Truncated, and empty.
    rewrite(&archive.jsa(), |b| b.truncate(b.len() / 2));
    same("a truncated archive");
    fs_err::write(archive.jsa(), b"").expect("empty");
    same("an empty archive");
}

#[test]
fn a_failed_build_installs_nothing_and_runs_go_on() {
    let j = jail();
    let broken = JavaArchiveSpec {
        sources: vec![(
            "Launch.java".into(),
            "public class Launch { syntax error".into(),
        )],
        class_list: CLASS_LIST.into(),
    };
    let err = j
        .sandbox
        .install_java_archive(&broken)
        .expect_err("does not compile");
    assert!(err.to_string().contains("javac"), "{err}");
    assert!(j.sandbox.java_archive().is_none());
    let leftovers: Vec<_> = std::fs::read_dir(passrate_sandbox::java_archive::ARCHIVE_ROOT)
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(&format!("{}-", j.group))
                })
                .collect()
        })
        .unwrap_or_default();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let out = j.run(&probe_request("Launch"));
    // Launch is not compiled here: the run fails as it would have without any archive.
    assert_ne!(out.status, ExecStatus::Ok);
    // A working spec can still be installed afterwards, once.
    j.sandbox.install_java_archive(&spec()).expect("builds");
    assert!(j.sandbox.install_java_archive(&spec()).is_err());
}

/// Regression: the installer held the archive's write lock while its check waited for a
/// slot, and an execution that had taken the slot waited for the read lock.
#[test]
fn installing_while_executions_start_does_not_deadlock() {
    let j = common::jail_with(passrate_sandbox::CgroupPreference::Auto, 1);
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        let sandbox = j.sandbox.clone();
        s.spawn(move || {
            let installed = sandbox.install_java_archive(&spec()).is_ok();
            let _ = done.send(installed);
        });
        // Executions that take the only slot while the archive is being built.
        for _ in 0..5 {
            std::thread::sleep(std::time::Duration::from_millis(150));
            let out = j.sh("true");
            assert_eq!(out.status, ExecStatus::Ok);
        }
        let installed = finished
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("the install finishes");
        assert!(installed);
    });
}

/// Archive sources at package paths (two files of one name), for compiling against the JAR.
fn library_spec() -> JavaArchiveSpec {
    let mut spec = spec();
    spec.sources.extend([
        (
            "lib/a/Util.java".into(),
            "package lib.a; public class Util { public static String name() { return \"a\"; } }"
                .into(),
        ),
        (
            "lib/b/Util.java".into(),
            "package lib.b; public class Util { public static String name() { return \"b\"; } }"
                .into(),
        ),
    ]);
    spec
}

/// `Use` needs the archive's `lib.*` classes to compile.
fn use_request() -> ExecRequest {
    let mut req = ExecRequest::single(Program::Javac {
        sources: vec!["Use.java".into()],
        archive: true,
    });
    req.steps.push(Program::Java {
        main_class: "Launch".into(),
        args: vec![],
    });
    req.files.push(InputFile {
        path: "Use.java".into(),
        contents: b"public class Use { public static void main(String[] a) { System.out.println(lib.a.Util.name() + lib.b.Util.name()); } }".to_vec(),
        executable: false,
    });
    req.stdin = b"Use\n".to_vec();
    req
}

#[test]
fn javac_compiles_against_the_archive_on_both_compile_paths() {
    for warm in [true, false] {
        let j = common::jail_with_config(|c| c.java_compile_server = warm);
        // No archive yet: refused, never compiled without the class path.
        assert!(j.sandbox.execute(&use_request()).is_err(), "warm {warm}");
        if warm {
            // A warm compiler started now cannot read the archive installed below.
            let out = j.run(&probe_request("Probe"));
            assert_eq!(out.status, ExecStatus::Ok, "{}", stderr(&out));
        }
        let archive = j
            .sandbox
            .install_java_archive(&library_spec())
            .expect("builds");
        assert!(archive.main_classes.contains(&"lib.b.Util".to_owned()));
        for _ in 0..2 {
            let out = j.run(&use_request());
            assert_eq!(out.status, ExecStatus::Ok, "warm {warm}: {}", stderr(&out));
            assert_eq!(String::from_utf8_lossy(&out.stdout), "ab\n", "warm {warm}");
        }
        // Without the flag the same source does not compile: the class path is per request.
        let mut plain = use_request();
        plain.steps[0] = Program::Javac {
            sources: vec!["Use.java".into()],
            archive: false,
        };
        let out = j.run(&plain);
        assert_eq!(out.step, 0, "warm {warm}");
        assert_ne!(out.status, ExecStatus::Ok, "warm {warm}");
    }
}
