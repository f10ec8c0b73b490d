//! `passrate serve`: the JSON API and the leaderboard site over the store the cycle writes.
//! The store is opened read-only (never created or migrated); the server never runs code.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use passrate_schema::exit;
use passrate_server::AppState;

use super::run::runtime;
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
