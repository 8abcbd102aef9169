//! The default store: a SQLite file in WAL mode, created on first use.

use std::str::FromStr;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use super::error::StoreError;

pub(super) async fn connect(url: &str) -> Result<SqlitePool, StoreError> {
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    let path = path.split('?').next().unwrap_or(path);
    let fail = |error: String| StoreError::Connect {
        backend: "SQLite",
        at: url.to_owned(),
        error,
    };
    if path != ":memory:" {
        if let Some(dir) = std::path::Path::new(path).parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
            }
        }
    }
    let options = SqliteConnectOptions::from_str(url)
        .map_err(|e| fail(e.to_string()))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // WAL + NORMAL: a committed event survives a process crash (SV-5); FULL would also
        // survive power loss at one fsync per event.
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(std::time::Duration::from_secs(5));
    let pool = SqlitePoolOptions::new()
        .max_connections(if path == ":memory:" { 1 } else { 8 })
        .connect_with(options)
        .await
        .map_err(|e| fail(e.to_string()))?;
    sqlx::migrate!("./migrations/sqlite").run(&pool).await?;
    Ok(pool)
}
