//! The default store: a SQLite file in WAL mode, created on first use.

use std::str::FromStr;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use super::error::StoreError;
use super::migrations;

/// SQLite's page size for a new file; `max_size_mb` is counted in these pages.
const PAGE_BYTES: u64 = 4096;

/// Splits our own `max_size_mb=N` option off a SQLite URL: the operator's cap on the file's size
/// (SQLite's `max_page_count` on every connection). A write past it fails like a full disk, the
/// debate stops and says so, and reading goes on. The rest of the URL goes to SQLite unchanged.
fn size_cap(url: &str) -> Result<(String, Option<u64>), String> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_owned(), None));
    };
    let mut cap = None;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("max_size_mb", value)) => {
                let mb: u64 = value
                    .parse()
                    .ok()
                    .filter(|mb| (1..=1 << 40).contains(mb))
                    .ok_or_else(|| {
                        format!(
                            "max_size_mb must be a whole number of megabytes from 1, got '{value}'"
                        )
                    })?;
                cap = Some(mb * 1024 * 1024 / PAGE_BYTES);
            }
            _ => rest.push(pair),
        }
    }
    let url = if rest.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    Ok((url, cap))
}

/// The pool, and the writer thread for a file (`None` for `:memory:`, which only the pool's one
/// connection can see).
pub(super) async fn connect(
    url: &str,
    durability: super::Durability,
) -> Result<(SqlitePool, Option<super::sqlite_writer::SqliteWriter>), StoreError> {
    let fail = |error: String| StoreError::Connect {
        backend: "SQLite",
        at: url.to_owned(),
        error,
    };
    let (url, max_pages) = size_cap(url).map_err(fail)?;
    let url = url.as_str();
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    let path = path.split('?').next().unwrap_or(path);
    if path != ":memory:" {
        if let Some(dir) = std::path::Path::new(path).parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
            }
        }
    }
    let mut options = SqliteConnectOptions::from_str(url)
        .map_err(|e| fail(e.to_string()))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // WAL + NORMAL: a committed event survives a process crash (SV-5); FULL also survives
        // power loss, at one fsync per commit (group commit makes that one per group).
        .synchronous(match durability {
            super::Durability::Normal => SqliteSynchronous::Normal,
            super::Durability::Full => SqliteSynchronous::Full,
        })
        .foreign_keys(true)
        .busy_timeout(std::time::Duration::from_secs(5));
    if let Some(pages) = max_pages {
        options = options.pragma("max_page_count", pages.to_string());
    }
    let pool = SqlitePoolOptions::new()
        .max_connections(if path == ":memory:" { 1 } else { 8 })
        .connect_with(options)
        .await
        .map_err(|e| fail(e.to_string()))?;
    migrations::sqlite().run(&pool).await?;
    let writer = if path == ":memory:" {
        None
    } else {
        Some(super::sqlite_writer::SqliteWriter::open(path, durability, max_pages).map_err(fail)?)
    };
    Ok((pool, writer))
}

#[cfg(test)]
mod tests {
    use super::size_cap;

    #[test]
    fn the_size_cap_is_split_off_the_url_and_checked() {
        #[allow(clippy::type_complexity)] // a test table: each row spelled out
        let cases: [(&str, Result<(&str, Option<u64>), &str>); 6] = [
            ("sqlite:a.db", Ok(("sqlite:a.db", None))),
            ("sqlite:a.db?max_size_mb=1", Ok(("sqlite:a.db", Some(256)))),
            (
                "sqlite:a.db?mode=rwc&max_size_mb=2",
                Ok(("sqlite:a.db?mode=rwc", Some(512))),
            ),
            ("sqlite:a.db?max_size_mb=0", Err("got '0'")),
            ("sqlite:a.db?max_size_mb=ten", Err("got 'ten'")),
            ("sqlite:a.db?max_size_mb=", Err("got ''")),
        ];
        for (url, expected) in cases {
            match (size_cap(url), expected) {
                (Ok((u, cap)), Ok((eu, ecap))) => {
                    assert_eq!((u.as_str(), cap), (eu, ecap), "{url}")
                }
                (Err(e), Err(part)) => {
                    assert!(e.contains(part) && e.contains("max_size_mb"), "{url}: {e}")
                }
                (got, want) => panic!("{url}: got {got:?}, want {want:?}"),
            }
        }
    }
}
