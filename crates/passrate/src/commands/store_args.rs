//! Where the store lives (`--database`, `--data-dir`), shared by the command that writes it
//! (`run`) and those that only read it (`leaderboard`, `history`, `serve`): writers create and
//! migrate the store, readers never create, migrate or write anything. Without either option
//! the data directory is found as git and uv find theirs: the nearest `.passrate/` in the
//! working directory or one of its ancestors, else `./.passrate`.

use std::path::{Path, PathBuf};

use passrate_store::{Store, StoreError};

/// The data directory's name, looked for upward from the working directory.
const DEFAULT_DATA_DIR: &str = ".passrate";

/// Where the store lives.
#[derive(clap::Args, Debug, Clone)]
pub struct StoreArgs {
    /// Database URL: `postgres://…`, `postgresql://…`, `sqlite:…` or a SQLite file path.
    #[arg(long, env = "PASSRATE_DATABASE", conflicts_with = "data_dir")]
    pub database: Option<String>,
    /// Data directory holding `passrate.sqlite3` (default: the nearest `.passrate/` in the
    /// working directory or an ancestor, else `./.passrate`).
    #[arg(long, env = "PASSRATE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

/// The nearest `.passrate/` directory in `start` or one of its ancestors.
fn find_upward(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(DEFAULT_DATA_DIR))
        .find(|candidate| candidate.is_dir())
}

/// The data directory without `--data-dir`: the nearest one found upward, else
/// `./.passrate` (relative, so messages about it read as the user would type it).
fn default_data_dir() -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            let found = find_upward(&cwd)?;
            // In the working directory itself: keep the short relative form.
            Some(if found == cwd.join(DEFAULT_DATA_DIR) {
                PathBuf::from(DEFAULT_DATA_DIR)
            } else {
                found
            })
        })
        .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR))
}

impl StoreArgs {
    /// Opens the store for writing, creating and migrating it as needed.
    pub async fn open(&self) -> Result<Store, StoreError> {
        match (&self.database, &self.data_dir) {
            (Some(url), _) => Store::open(url).await,
            (None, Some(dir)) => Store::open_data_dir(dir).await,
            (None, None) => Store::open_data_dir(&default_data_dir()).await,
        }
    }

    /// Opens an existing store for reading (read-only, so a read-only mount works): a missing
    /// store is an error that names where it looked, never a new empty store.
    pub async fn open_existing(&self) -> Result<Store, StoreError> {
        match (&self.database, &self.data_dir) {
            (Some(url), _) => Store::open_existing(url).await,
            (None, Some(dir)) => Store::open_existing_data_dir(dir).await,
            (None, None) => Store::open_existing_data_dir(&default_data_dir()).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_data_directory_upward_wins() {
        let root = tempfile::tempdir().expect("tempdir");
        let deep = root.path().join("a/b/c");
        fs_err::create_dir_all(&deep).expect("mkdir");
        assert_eq!(find_upward(&deep), None);
        fs_err::create_dir(root.path().join(".passrate")).expect("mkdir");
        assert_eq!(find_upward(&deep), Some(root.path().join(".passrate")));
        fs_err::create_dir(root.path().join("a/.passrate")).expect("mkdir");
        assert_eq!(find_upward(&deep), Some(root.path().join("a/.passrate")));
        // A file named `.passrate` is not a data directory.
        fs_err::write(deep.join(".passrate"), "").expect("write");
        assert_eq!(find_upward(&deep), Some(root.path().join("a/.passrate")));
    }
}
