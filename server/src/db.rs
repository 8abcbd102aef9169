//! SV-1 / SV-4: debates and their append-only event logs in SQLite (a file, created on first use).
//! Queries are checked at run time, so building needs no database.

use std::str::FromStr;

use app::api::{DebateDetail, DebateSummary};
use app::protocol::{Event, EventBody, Verdict};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlitePool};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error(
        "unsupported DATABASE_URL '{0}': expected sqlite:<path> (PostgreSQL support is planned)"
    )]
    UnsupportedUrl(String),
    #[error("stored event {seq} of debate {debate} is unreadable: {error}")]
    Corrupt {
        debate: String,
        seq: i64,
        error: String,
    },
}

/// The row written when a debate starts.
pub struct NewDebate<'a> {
    pub id: &'a str,
    pub query: &'a str,
    pub protocol: &'a str,
    pub seed: u64,
    pub created_at: &'a str,
}

#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    /// Opens (creating if needed) the database and applies migrations.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        let path = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .ok_or_else(|| StoreError::UnsupportedUrl(url.to_owned()))?;
        let path = path.split('?').next().unwrap_or(path);
        if path != ":memory:" {
            if let Some(dir) = std::path::Path::new(path).parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir).map_err(|e| sqlx::Error::Io(e))?;
                }
            }
        }
        let options = SqliteConnectOptions::from_str(url)?
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
            .await?;
        sqlx::migrate!("./migrations/sqlite").run(&pool).await?;
        Ok(Store { pool })
    }

    /// Creates the debate row and its first events in one transaction: nothing half-written.
    pub async fn create_debate(
        &self,
        d: &NewDebate<'_>,
        first: &[Event],
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO debates (id, query, protocol, seed, status, created_at) \
             VALUES (?, ?, ?, ?, 'running', ?)",
        )
        .bind(d.id)
        .bind(d.query)
        .bind(d.protocol)
        .bind(d.seed as i64)
        .bind(d.created_at)
        .execute(&mut *tx)
        .await?;
        for e in first {
            insert_event(&mut tx, d.id, e).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Appends events atomically, in one statement (one round trip to SQLite); a terminal event
    /// also records the debate's final status in the same transaction.
    pub async fn append(&self, debate: &str, events: &[Event]) -> Result<(), StoreError> {
        let Some(last) = events.last() else {
            return Ok(());
        };
        let mut sql = String::from("INSERT INTO events (debate_id, seq, kind, body) VALUES ");
        for i in 0..events.len() {
            sql.push_str(if i == 0 {
                "(?, ?, ?, ?)"
            } else {
                ", (?, ?, ?, ?)"
            });
        }
        let bodies = events
            .iter()
            .map(|e| encode(debate, e))
            .collect::<Result<Vec<_>, _>>()?;
        // Only placeholders are generated; every value is bound.
        let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (e, body) in events.iter().zip(bodies) {
            insert = insert
                .bind(debate)
                .bind(e.seq as i64)
                .bind(e.body.kind())
                .bind(body);
        }
        let status = match &last.body {
            EventBody::Decision(outcome) => Some(("finished", Some(outcome.decision.as_str()))),
            EventBody::Interrupted { .. } => Some(("interrupted", None)),
            _ => None,
        };
        let Some((status, decision)) = status else {
            insert.execute(&self.pool).await?;
            return Ok(());
        };
        let mut tx = self.pool.begin().await?;
        insert.execute(&mut *tx).await?;
        sqlx::query("UPDATE debates SET status = ?, decision = ? WHERE id = ?")
            .bind(status)
            .bind(decision)
            .bind(debate)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Newest first.
    pub async fn list(&self, limit: u32) -> Result<Vec<DebateSummary>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, query, protocol, status, decision, created_at FROM debates \
             ORDER BY created_at DESC, rowid DESC LIMIT ?",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(summary).collect())
    }

    pub async fn get(&self, id: &str) -> Result<Option<DebateDetail>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT id, query, protocol, status, decision, created_at, seed FROM debates WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let s = summary(&row);
        let seed: i64 = row.get("seed");
        let events = self.events_after(id, 0).await?;
        Ok(Some(DebateDetail {
            id: s.id,
            query: s.query,
            protocol: s.protocol,
            status: s.status,
            decision: s.decision,
            seed: seed as u64,
            created_at: s.created_at,
            events,
        }))
    }

    pub async fn exists(&self, id: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query("SELECT 1 FROM debates WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .is_some())
    }

    /// `running | finished | interrupted`, or `None` for an unknown debate.
    pub async fn status(&self, id: &str) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query("SELECT status FROM debates WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.get("status")))
    }

    /// SV-3: the events with `seq > after`, in order.
    pub async fn events_after(&self, id: &str, after: u64) -> Result<Vec<Event>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, body FROM events WHERE debate_id = ? AND seq > ? ORDER BY seq",
        )
        .bind(id)
        .bind(after.min(i64::MAX as u64) as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let body: String = row.get("body");
                serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
                    debate: id.to_owned(),
                    seq: row.get("seq"),
                    error: e.to_string(),
                })
            })
            .collect()
    }

    /// Debates still marked running.
    pub async fn unfinished(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query("SELECT id FROM debates WHERE status = 'running'")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.iter().map(|r| r.get::<String, _>("id")).collect())
    }

    /// The last logged event of a debate, to continue its sequence and hash chain.
    pub async fn last_event(&self, id: &str) -> Result<Option<Event>, StoreError> {
        let row = sqlx::query(
            "SELECT seq, body FROM events WHERE debate_id = ? ORDER BY seq DESC LIMIT 1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            let body: String = row.get("body");
            serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
                debate: id.to_owned(),
                seq: row.get("seq"),
                error: e.to_string(),
            })
        })
        .transpose()
    }
}

async fn insert_event(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    debate: &str,
    e: &Event,
) -> Result<(), StoreError> {
    let body = encode(debate, e)?;
    sqlx::query("INSERT INTO events (debate_id, seq, kind, body) VALUES (?, ?, ?, ?)")
        .bind(debate)
        .bind(e.seq as i64)
        .bind(e.body.kind())
        .bind(body)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

fn summary(row: &sqlx::sqlite::SqliteRow) -> DebateSummary {
    let decision: Option<String> = row.get("decision");
    DebateSummary {
        id: row.get("id"),
        query: row.get("query"),
        protocol: row.get("protocol"),
        status: row.get("status"),
        decision: decision
            .as_deref()
            .and_then(|d| Verdict::ALL.into_iter().find(|v| v.as_str() == d)),
        created_at: row.get("created_at"),
    }
}

fn encode(debate: &str, e: &Event) -> Result<String, StoreError> {
    serde_json::to_string(e).map_err(|err| StoreError::Corrupt {
        debate: debate.to_owned(),
        seq: e.seq as i64,
        error: err.to_string(),
    })
}
