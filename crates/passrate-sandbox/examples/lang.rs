use passrate_sandbox::*;
fn main() {
    let sb = Sandbox::new(SandboxConfig::default()).unwrap();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lang = args[0].as_str();
    let file = std::fs::read(&args[1]).unwrap();
    let name = std::path::Path::new(&args[1])
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let steps = match lang {
        "python" => vec![Program::Python {
            script: name.clone(),
            args: vec![],
        }],
        "node" => vec![Program::Node {
            script: name.clone(),
            args: vec![],
        }],
        "java" => vec![
            Program::Javac {
                sources: vec![name.clone()],
            },
            Program::Java {
                main_class: name.trim_end_matches(".java").into(),
                args: vec![],
            },
        ],
        _ => panic!(),
    };
    let mut req = ExecRequest::single(steps[0].clone());
    req.steps = steps;
    req.files = vec![InputFile {
        path: name,
        contents: file,
        executable: false,
    }];
    req.channel_input = b"hello-channel".to_vec();
    if let Some(ms) = args.get(2) {
        req.limits.cpu_ms = ms.parse().unwrap();
        req.limits.wall_ms = 3 * req.limits.cpu_ms + 1000;
    }
    let t = std::time::Instant::now();
    let out = sb.execute(&req);
    eprintln!("elapsed {:?}", t.elapsed());
    match out {
        Ok(o) => {
            println!(
                "{:?} step={} exit={:?} sig={:?} cpu={}us wall={}us peak={:?}",
                o.status, o.step, o.exit_code, o.signal, o.cpu_us, o.wall_us, o.peak_memory_bytes
            );
            println!(
                "stdout: {}",
                String::from_utf8_lossy(&o.stdout[..o.stdout.len().min(2000)])
            );
            println!(
                "stderr: {}",
                String::from_utf8_lossy(&o.stderr[..o.stderr.len().min(2000)])
            );
            println!("channel: {}", String::from_utf8_lossy(&o.channel_output));
        }
        Err(e) => println!("ERR {e}"),
    }
}
