//! Pre-started executions (`ExecRequest::prestart`): a jail started ahead of time with only
//! the harness, handed one execution, then destroyed. Each test checks that the execution
//! really went through a pre-started jail, that it is isolated like a fresh one, and that
//! nothing of the start-up (files, processes, CPU, memory) shows in the execution.

mod common;

use std::time::{Duration, Instant};

use passrate_sandbox::{ExecOutcome, ExecRequest, ExecStatus, InputFile, Program};

/// A minimal harness: says it is ready when pre-started, runs `start` (start-up work), reads
/// its request from fd 3, then runs the candidate file named in it.
fn harness(start: &str) -> String {
    format!(
        "const fs = require('fs');\n\
         const pre = process.env.PASSRATE_PRESTARTED !== undefined;\n\
         delete process.env.PASSRATE_PRESTARTED;\n\
         {start}\n\
         if (pre) fs.writeSync(4, '\\n');\n\
         const req = JSON.parse(fs.readFileSync(3, 'utf8'));\n\
         console.log('prestarted=' + pre);\n\
         require('/tmp/' + req.file);\n"
    )
}

fn request(start: &str, candidate: &str, limits_cpu_ms: u64) -> ExecRequest {
    let mut req = ExecRequest::single(Program::Node {
        script: "harness.js".into(),
        args: vec![],
    });
    req.files = vec![
        InputFile {
            path: "harness.js".into(),
            contents: harness(start).into_bytes(),
            executable: false,
        },
        InputFile {
            path: "candidate.js".into(),
            contents: candidate.as_bytes().to_vec(),
            executable: false,
        },
    ];
    req.channel_input = br#"{"file":"candidate.js"}"#.to_vec();
    req.prestart = Some(vec!["harness.js".into()]);
    req.limits.cpu_ms = limits_cpu_ms;
    req
}

/// Runs `req` once a pre-started jail is ready (the first execution of a kind starts them).
fn run_prestarted(j: &common::Jail, req: &ExecRequest) -> ExecOutcome {
    let deadline = Instant::now() + Duration::from_secs(60);
    while j.sandbox.prestarted_ready() == 0 {
        assert!(Instant::now() < deadline, "no jail was pre-started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = j.run(req);
    assert!(
        common::stdout(&out).contains("prestarted=true"),
        "not run in a pre-started jail: {out:?}"
    );
    out
}

#[test]
fn a_prestarted_execution_gets_its_files_input_and_a_clean_channel() {
    let j = common::jail();
    let candidate = "const fs = require('fs');\n\
                     console.log('input=' + fs.readFileSync(0, 'utf8'));\n\
                     fs.writeSync(4, 'result');\n";
    let mut req = request("", candidate, 2_000);
    req.stdin = b"from stdin".to_vec();
    let first = j.run(&req);
    assert_eq!(first.status, ExecStatus::Ok, "{first:?}");
    assert!(common::stdout(&first).contains("prestarted=false"));
    let out = run_prestarted(&j, &req);
    assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
    assert!(common::stdout(&out).contains("input=from stdin"), "{out:?}");
    // The ready byte is the sandbox's, not the program's output.
    assert_eq!(out.channel_output, b"result");
}

#[test]
fn nothing_carries_over_between_prestarted_executions() {
    let j = common::jail();
    let candidate = "const fs = require('fs');\n\
                     console.log('seen=' + fs.existsSync('/tmp/left') + ',' + fs.existsSync('/dev/shm/left'));\n\
                     fs.writeFileSync('/tmp/left', 'x');\n\
                     fs.writeFileSync('/dev/shm/left', 'x');\n\
                     const { spawn } = require('child_process');\n\
                     spawn('/bin/sleep', ['30'], { detached: true, stdio: 'ignore' }).unref();\n";
    let req = request("", candidate, 2_000);
    j.run(&req);
    for _ in 0..3 {
        let out = run_prestarted(&j, &req);
        assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
        assert!(common::stdout(&out).contains("seen=false,false"), "{out:?}");
    }
}

#[test]
fn startup_cpu_does_not_count_against_the_candidate() {
    let j = common::jail();
    // 600 ms of start-up work, then a 300 ms budget for a candidate that needs almost none:
    // counted from the program's start, it would time out.
    let start = "const t = process.cpuUsage(); while (process.cpuUsage(t).user < 600000) {}";
    let req = request(start, "console.log('done');\n", 300);
    j.run(&req);
    let out = run_prestarted(&j, &req);
    assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
    assert!(out.cpu_us < 300_000, "{out:?}");
    // And the budget still binds the candidate.
    let spin = request(start, "while (true) {}\n", 300);
    j.run(&spin);
    let out = run_prestarted(&j, &spin);
    assert_eq!(out.status, ExecStatus::Timeout, "{out:?}");
}

#[test]
fn startup_memory_does_not_show_in_the_peak() {
    let j = common::jail();
    let memory = &j.sandbox.cgroup_layout().memory;
    if memory.version == passrate_sandbox::cgroup::Version::V2 {
        // v2's memory.peak resets (per descriptor) only from Linux 6.12; before, the peak
        // is reported as measured, start-up included. The pure v2 guest of
        // scripts/test-cgroup-v2.sh runs a newer kernel, so there this test is real.
        let resettable = std::fs::OpenOptions::new()
            .write(true)
            .open(memory.dir.join("memory.peak"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"reset\n"))
            .is_ok();
        if !resettable {
            eprintln!("skipped: this kernel's cgroup v2 memory.peak cannot be reset");
            return;
        }
    }
    let python = j
        .sandbox
        .runtimes()
        .python
        .as_ref()
        .expect("python")
        .path
        .clone();
    let start = format!(
        "require('child_process').execFileSync({:?}, ['-c', 'b = bytearray(150 << 20)']);",
        python.display().to_string()
    );
    let req = request(&start, "console.log('small');\n", 2_000);
    j.run(&req);
    let out = run_prestarted(&j, &req);
    assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
    let peak = out.peak_memory_bytes.expect("a peak is reported");
    assert!(peak < 120 << 20, "start-up memory counted: {peak}");
}
