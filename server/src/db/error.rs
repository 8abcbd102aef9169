//! One error type for both databases, and the URL masking every message about a database uses.

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    /// From SQLite's writer thread (`sqlite_writer.rs`).
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("cannot connect to {backend} at {at}: {error}")]
    Connect {
        backend: &'static str,
        /// The URL with any password masked.
        at: String,
        error: String,
    },
    #[error(
        "unsupported DATABASE_URL scheme '{scheme}' in '{url}': expected sqlite:<path> or \
         postgres://<user>@<host>[:<port>]/<database> (postgresql:// also works)"
    )]
    UnsupportedUrl { scheme: String, url: String },
    #[error("debate {debate} has an unknown status '{status}' in the database")]
    UnknownStatus { debate: String, status: String },
    #[error("no debate with id '{0}' to page from (the 'before' cursor)")]
    UnknownCursor(String),
    /// The group-commit writer stopped (its runtime is shutting down).
    #[error("the database writer has stopped (the server is shutting down)")]
    WriterGone,
    #[error("stored event {seq} of debate {debate} is unreadable: {error}")]
    Corrupt {
        debate: String,
        seq: i64,
        error: String,
    },
}

impl StoreError {
    /// True when the database refused a write for want of space: a full disk, SQLite's
    /// `max_page_count` (our `max_size_mb`), or PostgreSQL's `disk_full` (53100).
    pub fn is_full(&self) -> bool {
        match self {
            StoreError::Sqlx(sqlx::Error::Database(e)) => {
                matches!(e.code().as_deref(), Some("13" | "53100"))
                    || e.message().contains("disk is full")
            }
            StoreError::Sqlite(e) => super::sqlite_writer::is_full(e),
            _ => false,
        }
    }

    /// True when a write lost a race on a primary key (another writer appended that `seq` first).
    pub fn is_conflict(&self) -> bool {
        match self {
            StoreError::Sqlx(sqlx::Error::Database(e)) => e.is_unique_violation(),
            StoreError::Sqlite(e) => super::sqlite_writer::is_conflict(e),
            _ => false,
        }
    }
}

/// A query parameter that carries a credential (SV-18): `password`, `token`, `key`, `secret`,
/// `sig`/`signature`, and any `…_token`, `…_key`, `…-key` (`access_token`, `api_key`, `x-api-key`).
fn is_secret_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "password",
        "passwd",
        "pwd",
        "token",
        "key",
        "apikey",
        "secret",
        "sig",
        "signature",
    ]
    .contains(&n.as_str())
        || ["_token", "-token", "_key", "-key", "_secret"]
            .iter()
            .any(|end| n.ends_with(end))
}

/// The URL with its credentials (a password in it, a key or token in its query) masked, for
/// messages and logs.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, tail) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, _)) if is_secret_param(k) => format!("{k}=***"),
                    _ => kv.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked() {
        let cases = [
            (
                "postgres://u:secret@h:5432/db",
                "postgres://u:***@h:5432/db",
            ),
            ("postgres://u@h/db", "postgres://u@h/db"),
            (
                "postgres://h/db?password=x&sslmode=disable",
                "postgres://h/db?password=***&sslmode=disable",
            ),
            ("sqlite:data/consilium.db", "sqlite:data/consilium.db"),
            (
                "https://api.example.com/v1?key=abc123&model=m",
                "https://api.example.com/v1?key=***&model=m",
            ),
            (
                "https://h/v1?token=t&API_KEY=k&x-api-key=z&access_token=a&page=2",
                "https://h/v1?token=***&API_KEY=***&x-api-key=***&access_token=***&page=2",
            ),
            (
                "https://user:hunter2@agents.example.org/run?sig=s",
                "https://user:***@agents.example.org/run?sig=***",
            ),
            (
                "https://h/v1?monkey=1&keyboard=2",
                "https://h/v1?monkey=1&keyboard=2",
            ),
        ];
        for (url, want) in cases {
            assert_eq!(redact(url), want);
        }
    }
}
