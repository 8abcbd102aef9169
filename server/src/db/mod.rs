//! SV-1 / SV-4: debates and their append-only event logs, in SQLite (a file, created on first use;
//! the default) or PostgreSQL (`postgres://…`, shared by several server processes).
//!
//! One API, one set of queries: every query is written once with `$n` placeholders (which SQLite
//! accepts too) and compiled for both drivers by [`on_pool!`]. Queries are checked at run time, so
//! building needs no database.

mod error;
mod group;
mod migrations;
mod postgres;
mod sqlite;
mod sqlite_writer;

use std::sync::Arc;

use app::api::DebateDetail;
use app::protocol::{DebateStatus, Event};
use sqlx::SqlitePool;
use tokio::sync::broadcast;

pub use error::{redact, StoreError};
use postgres::Postgres;

/// What a committed event survives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Durability {
    /// SQLite in WAL mode with `synchronous=NORMAL`: a committed event survives the process
    /// crashing (SV-5), not the machine losing power.
    #[default]
    Normal,
    /// SQLite `synchronous=FULL`: one fsync per commit — per group of appends — so a committed
    /// event survives power loss too. (PostgreSQL keeps its own `synchronous_commit`, on by
    /// default, either way.)
    Full,
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
    db: Db,
    /// Group commit for the hot path's writes.
    writer: Writer,
}

/// Who commits the hot path's writes: SQLite's writer thread (a debate's creation, its appends
/// and its end), or a task on the pool (PostgreSQL, and SQLite `:memory:`: the appends that
/// change nothing but the log).
#[derive(Clone, Debug)]
enum Writer {
    Thread(sqlite_writer::SqliteWriter),
    Pool(group::Writer),
}

#[derive(Clone, Debug)]
enum Db {
    Sqlite(SqlitePool),
    Postgres(Arc<Postgres>),
}

/// Runs the same sqlx code on whichever pool backs the store: `$body` is written once and compiled
/// for each driver, with `$pool` bound to that driver's pool.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.db {
            Db::Sqlite($pool) => $body,
            Db::Postgres(shared) => {
                let $pool = &shared.pool;
                $body
            }
        }
    };
}

/// One multi-row `INSERT` of `$events` (encoded as `$bodies`) into the log of `$debate`, for
/// whichever driver executes it.
macro_rules! insert_events {
    ($debate:expr, $events:expr, $bodies:expr) => {{
        // Only placeholders are generated; every value is bound.
        let mut insert = sqlx::query(sqlx::AssertSqlSafe(insert_events_sql($events.len())));
        for (e, body) in $events.iter().zip($bodies) {
            insert = insert
                .bind($debate)
                .bind(e.seq as i64)
                .bind(e.body.kind())
                .bind(body);
        }
        insert
    }};
}

mod access;
mod list;
mod signatures;
pub mod track_record;
mod write;

pub use access::JudgeRow;
pub use list::ListQuery;
use list::{summary, DetailRow};
use write::{insert_events_sql, EncodedRows};

impl Store {
    /// Opens the database named by `url` and applies migrations: `sqlite:<path>` (the file is
    /// created if missing) or `postgres://…` / `postgresql://…`.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::connect_with(url, Durability::Normal).await
    }

    /// [`Store::connect`] with the durability a commit must have.
    pub async fn connect_with(url: &str, durability: Durability) -> Result<Store, StoreError> {
        let scheme = url.split_once(':').map_or("", |(s, _)| s);
        let (db, thread) = match scheme.to_ascii_lowercase().as_str() {
            "sqlite" => {
                let (pool, thread) = sqlite::connect(url, durability).await?;
                (Db::Sqlite(pool), thread)
            }
            "postgres" | "postgresql" => {
                (Db::Postgres(Arc::new(postgres::connect(url).await?)), None)
            }
            _ => {
                return Err(StoreError::UnsupportedUrl {
                    scheme: scheme.to_owned(),
                    url: redact(url),
                })
            }
        };
        let writer = match thread {
            Some(thread) => Writer::Thread(thread),
            None => Writer::Pool(group::Writer::start(db.clone())),
        };
        Ok(Store { db, writer })
    }

    /// `SQLite` or `PostgreSQL`.
    pub fn backend(&self) -> &'static str {
        match self.db {
            Db::Sqlite(_) => "SQLite",
            Db::Postgres(_) => "PostgreSQL",
        }
    }

    /// Wake-ups from other server processes that share this database: the id of a debate whose
    /// log grew (or `""`: anything may have changed). `None` when no other process can write
    /// (SQLite).
    pub fn changes(&self) -> Option<broadcast::Receiver<String>> {
        match &self.db {
            Db::Sqlite(_) => None,
            Db::Postgres(shared) => Some(shared.changes.subscribe()),
        }
    }

    /// True when other server processes may run debates in this database (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        matches!(self.db, Db::Postgres(_))
    }

    /// This process's instance key, recorded as the owner of the debates it starts (PostgreSQL).
    fn owner(&self) -> Option<i64> {
        match &self.db {
            Db::Sqlite(_) => None,
            Db::Postgres(shared) => Some(shared.instance),
        }
    }

    pub async fn get(&self, id: &str) -> Result<Option<DebateDetail>, StoreError> {
        let row: Option<DetailRow> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT id, query, protocol, status, decision, created_at, changed_outcome, seed \
                 FROM debates WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await?
        });
        let Some((row_id, query, protocol, status, decision, created_at, changed, seed)) = row
        else {
            return Ok(None);
        };
        let s = summary((
            row_id, query, protocol, status, decision, created_at, changed,
        ))?;
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
            signature: self.signature(id).await?,
        }))
    }

    pub async fn exists(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.status(id).await?.is_some())
    }

    /// The debate's protocol as stored (`s4`, `round_robin`, …), or `None` for an unknown debate.
    pub async fn protocol(&self, id: &str) -> Result<Option<String>, StoreError> {
        let protocol: Option<(String,)> = on_pool!(self, pool => {
            sqlx::query_as("SELECT protocol FROM debates WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?
        });
        Ok(protocol.map(|(p,)| p))
    }

    /// The debate's status, or `None` for an unknown debate.
    pub async fn status(&self, id: &str) -> Result<Option<DebateStatus>, StoreError> {
        let status: Option<(String,)> = on_pool!(self, pool => {
            sqlx::query_as("SELECT status FROM debates WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?
        });
        status.map(|(s,)| parse_status(id, &s)).transpose()
    }

    /// SV-3: the events with `seq > after`, in order.
    pub async fn events_after(&self, id: &str, after: u64) -> Result<Vec<Event>, StoreError> {
        let after = after.min(i64::MAX as u64) as i64;
        let rows: Vec<(i64, String)> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT seq, body FROM events WHERE debate_id = $1 AND seq > $2 ORDER BY seq",
            )
            .bind(id)
            .bind(after)
            .fetch_all(pool)
            .await?
        });
        rows.into_iter()
            .map(|(seq, body)| decode(id, seq, &body))
            .collect()
    }

    /// SV-15: at most `limit` events with `seq > after`, in order: a long log read a page at a
    /// time.
    pub async fn events_page(
        &self,
        id: &str,
        after: u64,
        limit: u32,
    ) -> Result<Vec<Event>, StoreError> {
        let after = after.min(i64::MAX as u64) as i64;
        let rows: Vec<(i64, String)> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT seq, body FROM events WHERE debate_id = $1 AND seq > $2 ORDER BY seq \
                 LIMIT $3",
            )
            .bind(id)
            .bind(after)
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?
        });
        rows.into_iter()
            .map(|(seq, body)| decode(id, seq, &body))
            .collect()
    }

    /// The last logged event of a debate, to continue its sequence and hash chain.
    pub async fn last_event(&self, id: &str) -> Result<Option<Event>, StoreError> {
        let row: Option<(i64, String)> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT seq, body FROM events WHERE debate_id = $1 ORDER BY seq DESC LIMIT 1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await?
        });
        row.map(|(seq, body)| decode(id, seq, &body)).transpose()
    }

    /// Debates still marked running that no live server process is running: on SQLite every one
    /// of them (a SQLite file has one server); on PostgreSQL those whose owner's instance lock is
    /// free — its process is gone.
    pub async fn orphans(&self) -> Result<Vec<Orphan>, StoreError> {
        let running: Vec<(String, Option<i64>)> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT id, owner FROM debates WHERE status = 'running' ORDER BY created_at",
            )
            .fetch_all(pool)
            .await?
        });
        let Db::Postgres(shared) = &self.db else {
            return Ok(running
                .into_iter()
                .map(|(id, owner)| Orphan { id, owner })
                .collect());
        };
        let mut alive = std::collections::HashMap::new();
        let mut orphans = Vec::new();
        for (id, owner) in running {
            let live = match owner {
                None => false,
                Some(key) => match alive.get(&key) {
                    Some(&live) => live,
                    None => {
                        let live = shared.is_alive(key).await?;
                        alive.insert(key, live);
                        live
                    }
                },
            };
            if !live {
                orphans.push(Orphan { id, owner });
            }
        }
        Ok(orphans)
    }

    /// RS-2: this process takes over a debate whose owner's process is gone — only if it is still
    /// running and still that owner's (another process that swept at the same moment took it
    /// first otherwise). SQLite has one process, which owns every debate.
    pub async fn claim(&self, orphan: &Orphan) -> Result<bool, StoreError> {
        let Db::Postgres(shared) = &self.db else {
            return Ok(true);
        };
        let done = sqlx::query(
            "UPDATE debates SET owner = $1 \
             WHERE id = $2 AND status = 'running' AND owner IS NOT DISTINCT FROM $3",
        )
        .bind(shared.instance)
        .bind(&orphan.id)
        .bind(orphan.owner)
        .execute(&shared.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }
}

#[cfg(test)]
impl NewDebate<'static> {
    /// A debate row for tests: an S4 debate asking "q", created 2026-01-01.
    pub fn sample(id: &'static str) -> Self {
        NewDebate {
            id,
            query: "q",
            protocol: "s4",
            seed: 1,
            created_at: "2026-01-01T00:00:00.000Z",
        }
    }
}

#[cfg(test)]
impl Store {
    /// Runs SQL as is (tests that make the database refuse writes).
    pub async fn execute_raw(&self, sql: &'static str) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::raw_sql(sql).execute(pool).await?;
        });
        Ok(())
    }
}

/// A running debate whose server process is gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Orphan {
    pub id: String,
    /// The process that ran it (PostgreSQL's advisory-lock key; none with SQLite).
    pub owner: Option<i64>,
}

fn parse_status(debate: &str, status: &str) -> Result<DebateStatus, StoreError> {
    DebateStatus::parse(status).ok_or_else(|| StoreError::UnknownStatus {
        debate: debate.to_owned(),
        status: status.chars().take(40).collect(),
    })
}

pub(super) fn decode(debate: &str, seq: i64, body: &str) -> Result<Event, StoreError> {
    serde_json::from_str(body).map_err(|e| StoreError::Corrupt {
        debate: debate.to_owned(),
        seq,
        error: e.to_string(),
    })
}

#[cfg(test)]
mod tests;
