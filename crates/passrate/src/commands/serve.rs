//! `passrate serve`: the JSON API and the leaderboard site over the store the cycle writes.
//! The store is opened read-only (never created or migrated); the server never runs code.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use passrate_schema::exit;
use passrate_server::AppState;

use super::run::{print_data, runtime};
use super::store_args::StoreArgs;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    #[command(flatten)]
    store: StoreArgs,
    /// Turns the write endpoints on, with the bearer token read from this environment
    /// variable (never from the command line, where other users could read it). Off by default.
    #[arg(long, value_name = "VAR", requires = "models_file")]
    token_env: Option<String>,
    /// The models.toml that `POST /api/v1/models` appends to (the file `passrate run
    /// --models` reads); needs --token-env.
    #[arg(long, value_name = "PATH", requires = "token_env")]
    models_file: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    // Request logs go to stderr; RUST_LOG refines them (default: info).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // A subscriber may already be installed (tests embedding the command); keep it then.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
    let token = match &args.token_env {
        Some(var) => match std::env::var(var) {
            Ok(token) if token.trim().len() >= 16 => Some(token.trim().to_string()),
            Ok(_) => anyhow::bail!("the token in ${var} must have at least 16 characters"),
            Err(_) => anyhow::bail!("--token-env {var}: the variable is not set"),
        },
        None => None,
    };
    runtime()?.block_on(async {
        let store = args.store.open_existing().await?;
        let pool = passrate_pool::Pool::bundled().context("failed to load the bundled pool")?;
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("failed to listen on {}", args.addr))?;
        let local = listener.local_addr()?;
        eprintln!(
            "serving {} on http://{local}/ (API: http://{local}/api/v1/openapi.json); ctrl-c stops",
            store.location()
        );
        let mut state = AppState::new(store.clone(), pool);
        if let Some(token) = &token {
            state = state.with_writes(token, args.models_file.clone());
            eprintln!(
                "write endpoints on (bearer token from ${})",
                args.token_env.as_deref().unwrap_or("")
            );
        }
        let router = passrate_server::router(state);
        passrate_server::serve(listener, router, passrate_server::shutdown_signal()).await?;
        store.close().await;
        Ok(exit::OK)
    })
}

/// `passrate bench serve`: the board page and the leaderboard JSON under concurrent load on
/// loopback, side by side in the same run with nginx serving the same bytes as static files.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The week to serve (default: the latest with records).
    #[arg(long)]
    week: Option<String>,
    #[command(flatten)]
    store: StoreArgs,
    /// Concurrent connections.
    #[arg(long, default_value_t = 64)]
    connections: u32,
    /// Seconds of load per target.
    #[arg(long, default_value_t = 10)]
    seconds: u32,
    /// Load generator threads.
    #[arg(long, default_value_t = 2)]
    threads: u32,
}

/// DESIGN-style targets from issue 22: at least half nginx's throughput, p99 within 10 ms.
const TARGET_RATIO: f64 = 0.5;
const TARGET_P99_MS: f64 = 10.0;

struct Load {
    requests_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
}

pub fn bench(args: BenchArgs) -> anyhow::Result<i32> {
    for tool in ["wrk", "nginx"] {
        if which(tool).is_none() {
            anyhow::bail!(
                "`{tool}` is not installed: `apt-get install -y wrk nginx` (Debian packages)"
            );
        }
    }
    let rt = runtime()?;
    let (addr, week, stop) = rt.block_on(async {
        let store = args.store.open_existing().await?;
        let week = match &args.week {
            Some(w) => passrate_pool::parse_week(w)?,
            None => store
                .weeks()
                .await?
                .pop()
                .context("the store has no score records; run `passrate run` first")?,
        };
        let pool = passrate_pool::Pool::bundled().context("failed to load the bundled pool")?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let router = passrate_server::router(AppState::new(store, pool));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(passrate_server::serve(listener, router, async move {
            let _ = stopped.await;
        }));
        anyhow::Ok((addr, week, stop))
    })?;
    let board_path = format!("/?week={week}");
    let json_path = format!("/api/v1/leaderboard?week={week}");
    let dir = tempfile_dir()?;
    let board = fetch(addr, &board_path)?;
    let json = fetch(addr, &json_path)?;
    fs_err::write(dir.join("board.html"), &board)?;
    fs_err::write(dir.join("leaderboard.json"), &json)?;
    let nginx_port = free_port()?;
    let conf = format!(
        "daemon off;\nworker_processes auto;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {dir}/tmp;\n  proxy_temp_path {dir}/tmp;\n  \
         fastcgi_temp_path {dir}/tmp;\n  uwsgi_temp_path {dir}/tmp;\n  scgi_temp_path {dir}/tmp;\n  \
         server {{\n    listen 127.0.0.1:{nginx_port};\n    root {dir};\n    \
         location = /board {{ default_type text/html; try_files /board.html =404; }}\n    \
         location = /json {{ default_type application/json; try_files /leaderboard.json =404; }}\n  }}\n}}\n",
        dir = dir.display()
    );
    fs_err::create_dir_all(dir.join("tmp"))?;
    fs_err::write(dir.join("nginx.conf"), conf)?;
    let mut nginx = std::process::Command::new(which("nginx").context("nginx")?)
        .args(["-c", &dir.join("nginx.conf").display().to_string()])
        .args(["-p", &dir.display().to_string()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .context("failed to start nginx")?;
    let nginx_addr: SocketAddr = format!("127.0.0.1:{nginx_port}").parse()?;
    let ready = (0..50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        fetch(nginx_addr, "/json").is_ok_and(|b| b == json)
    });
    let result = (|| {
        anyhow::ensure!(
            ready,
            "nginx did not serve the copied bytes on {nginx_addr}"
        );
        eprintln!(
            "week {week}: board page {} bytes, leaderboard JSON {} bytes; {} connections, {} s per target",
            board.len(),
            json.len(),
            args.connections,
            args.seconds
        );
        let targets = [
            (
                "board page",
                addr,
                board_path.as_str(),
                nginx_addr,
                "/board",
            ),
            (
                "leaderboard JSON",
                addr,
                json_path.as_str(),
                nginx_addr,
                "/json",
            ),
        ];
        let mut out =
            String::from("target\tserver\trequests_per_s\tp50_ms\tp99_ms\tratio_to_nginx\n");
        let mut met = true;
        for (name, ours, our_path, theirs, their_path) in targets {
            let passrate = load(&args, ours, our_path)?;
            let nginx = load(&args, theirs, their_path)?;
            let ratio = passrate.requests_per_s / nginx.requests_per_s;
            met &= ratio >= TARGET_RATIO && passrate.p99_ms <= TARGET_P99_MS;
            for (server, l, r) in [
                ("passrate", &passrate, format!("{ratio:.2}")),
                ("nginx", &nginx, "1.00".into()),
            ] {
                out.push_str(&format!(
                    "{name}\t{server}\t{:.0}\t{:.2}\t{:.2}\t{r}\n",
                    l.requests_per_s, l.p50_ms, l.p99_ms
                ));
            }
        }
        print_data(&out)?;
        eprintln!(
            "target: ≥ {TARGET_RATIO}× nginx's requests/s with p99 ≤ {TARGET_P99_MS} ms: {}",
            if met { "met" } else { "NOT met" }
        );
        Ok(())
    })();
    // SIGTERM, not SIGKILL: nginx's master then stops its workers (a killed master leaves
    // them running).
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &nginx.id().to_string()])
        .status();
    let _ = nginx.wait();
    let _ = stop.send(());
    drop(rt);
    let _ = fs_err::remove_dir_all(&dir);
    result?;
    Ok(exit::OK)
}

/// Runs wrk against `addr` + `path` and reads its throughput and latency percentiles.
fn load(args: &BenchArgs, addr: SocketAddr, path: &str) -> anyhow::Result<Load> {
    let url = format!("http://{addr}{path}");
    let output = std::process::Command::new("wrk")
        .args(["-t", &args.threads.to_string()])
        .args(["-c", &args.connections.to_string()])
        .args(["-d", &format!("{}s", args.seconds)])
        .arg("--latency")
        .arg(&url)
        .output()
        .context("failed to run wrk")?;
    let text = String::from_utf8_lossy(&output.stdout);
    anyhow::ensure!(output.status.success(), "wrk failed on {url}: {text}");
    anyhow::ensure!(
        !text.contains("Non-2xx"),
        "{url} answered errors under load: {text}"
    );
    let field = |prefix: &str| -> anyhow::Result<&str> {
        text.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(prefix))
            .map(str::trim)
            .with_context(|| format!("no `{prefix}` in wrk's output: {text}"))
    };
    Ok(Load {
        requests_per_s: field("Requests/sec:")?.parse()?,
        p50_ms: millis(field("50%")?)?,
        p99_ms: millis(field("99%")?)?,
    })
}

/// wrk's durations: `635.91us`, `1.20ms`, `2.01s`.
fn millis(text: &str) -> anyhow::Result<f64> {
    let (number, factor) = if let Some(n) = text.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1000.0)
    } else {
        anyhow::bail!("unreadable duration {text:?}")
    };
    Ok(number.parse::<f64>()? * factor)
}

/// One GET over a fresh connection; the body on a 200.
fn fetch(addr: SocketAddr, path: &str) -> anyhow::Result<Vec<u8>> {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .context("no end of headers")?;
    let head = String::from_utf8_lossy(&response[..split]);
    anyhow::ensure!(
        head.starts_with("HTTP/1.1 200"),
        "GET {path}: {}",
        head.lines().next().unwrap_or("")
    );
    anyhow::ensure!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "GET {path}: chunked response"
    );
    Ok(response[split + 4..].to_vec())
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn tempfile_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("passrate-bench-serve-{}", std::process::id()));
    fs_err::create_dir_all(&dir)?;
    Ok(dir)
}

fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}
