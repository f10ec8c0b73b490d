//! Where the store lives (`--database`, `--data-dir`), shared by the command that writes it
//! (`run`) and those that only read it (`leaderboard`, `history`): writers create and migrate
//! the store, readers never create, migrate or write anything.

use std::path::{Path, PathBuf};

use passrate_store::Store;

/// The data directory when neither `--database` nor `--data-dir` is given.
const DEFAULT_DATA_DIR: &str = ".passrate";

/// Where the store lives.
#[derive(clap::Args, Debug, Clone)]
pub struct StoreArgs {
    /// Database URL: `postgres://…`, `postgresql://…`, `sqlite:…` or a SQLite file path.
    #[arg(long, env = "PASSRATE_DATABASE", conflicts_with = "data_dir")]
    pub database: Option<String>,
    /// Data directory holding `passrate.sqlite3` (default: `./.passrate`).
    #[arg(long, env = "PASSRATE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

impl StoreArgs {
    /// Opens the store for writing, creating and migrating it as needed.
    pub async fn open(&self) -> anyhow::Result<Store> {
        Ok(match (&self.database, &self.data_dir) {
            (Some(url), _) => Store::open(url).await?,
            (None, Some(dir)) => Store::open_data_dir(dir).await?,
            (None, None) => Store::open_data_dir(Path::new(DEFAULT_DATA_DIR)).await?,
        })
    }

    /// Opens an existing store for reading (read-only, so a read-only mount works): a missing
    /// store is an error that names where it looked, never a new empty store.
    pub async fn open_existing(&self) -> anyhow::Result<Store> {
        Ok(match (&self.database, &self.data_dir) {
            (Some(url), _) => Store::open_existing(url).await?,
            (None, Some(dir)) => Store::open_existing_data_dir(dir).await?,
            (None, None) => Store::open_existing_data_dir(Path::new(DEFAULT_DATA_DIR)).await?,
        })
    }
}
