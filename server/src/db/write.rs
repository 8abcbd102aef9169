//! The write path: a debate's creation, its appends and its end (status, signature,
//! predictions), each in one transaction, through SQLite's writer or the pool's group commit;
//! and the SQL and encoding they share.

use app::protocol::event::DebateEvent;
use app::protocol::{DebateStatus, Event, EventBody};

use super::{group, sqlite_writer, track_record, Db, NewDebate, Store, StoreError, Writer};

impl Store {
    /// Creates the debate row and its first events in one transaction: nothing half-written.
    pub async fn create_debate(
        &self,
        d: &NewDebate<'_>,
        first: &[Event],
    ) -> Result<(), StoreError> {
        let bodies = encode_all(d.id, first)?;
        let owner = self.owner();
        if let Writer::Thread(thread) = &self.writer {
            let row = (
                d.id.to_owned(),
                d.query.to_owned(),
                d.protocol.to_owned(),
                d.seed as i64,
                d.created_at.to_owned(),
            );
            let rows = rows_of(first, bodies);
            return thread
                .write(Box::new(move |c| {
                    let (id, query, protocol, seed, created_at) = &row;
                    c.prepare_cached(INSERT_DEBATE)?.execute(rusqlite::params![
                        id, query, protocol, seed, created_at, owner
                    ])?;
                    sqlite_writer::insert_rows(c, id, &rows)
                }))
                .await;
        }
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query(INSERT_DEBATE)
            .bind(d.id)
            .bind(d.query)
            .bind(d.protocol)
            .bind(d.seed as i64)
            .bind(d.created_at)
            .bind(owner)
            .execute(&mut *tx)
            .await?;
            if !first.is_empty() {
                insert_events!(d.id, first, bodies).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// Appends events atomically, in one statement (one round trip); a terminal event also records
    /// the debate's final status in the same transaction. On PostgreSQL the insert notifies the
    /// other processes when it commits (migrations/postgres/0002).
    pub async fn append(&self, debate: &str, events: &[Event]) -> Result<(), StoreError> {
        self.append_signed(debate, events, None).await
    }

    /// [`Store::append`]; a log that ends with these events gets `signature` in the same
    /// transaction, so nobody reads an ended log that is not yet signed.
    pub async fn append_signed(
        &self,
        debate: &str,
        events: &[Event],
        signature: Option<&app::audit::signature::LogSignature>,
    ) -> Result<(), StoreError> {
        self.append_final(debate, events, signature, &[]).await
    }

    /// [`Store::append_signed`]; a log that ends with these events also records `predictions`
    /// (each agent's final position) in the same transaction.
    pub async fn append_final(
        &self,
        debate: &str,
        events: &[Event],
        signature: Option<&app::audit::signature::LogSignature>,
        predictions: &[app::track_record::PredictionRow],
    ) -> Result<(), StoreError> {
        let signature = signature
            .map(|s| {
                serde_json::to_string(s).map_err(|e| StoreError::Corrupt {
                    debate: debate.to_owned(),
                    seq: s.seq as i64,
                    error: e.to_string(),
                })
            })
            .transpose()?;
        let Some(last) = events.last() else {
            return Ok(());
        };
        let bodies = encode_all(debate, events)?;
        let status = DebateStatus::after_all(events.iter().map(|e| &e.body)).map(|status| {
            let (decision, changed) = match &last.body {
                EventBody::Debate(DebateEvent::Decision(outcome)) => (
                    Some(outcome.label()),
                    outcome.vote_baseline().map(|b| b.changed_outcome),
                ),
                _ => (None, None),
            };
            (status.as_str(), decision, changed)
        });
        // ES-7: a reopened log is this process's to run (PostgreSQL's orphan sweep).
        let owner = status
            .filter(|(status, ..)| *status == "running")
            .and_then(|_| self.owner());
        if let Writer::Thread(thread) = &self.writer {
            let (debate, rows) = (debate.to_owned(), rows_of(events, bodies));
            let end = (status, signature, last.seq as i64, predictions.to_vec());
            return thread
                .write(Box::new(move |c| {
                    sqlite_writer::insert_rows(c, &debate, &rows)?;
                    let (status, signature, seq, predictions) = &end;
                    let Some((status, decision, changed)) = status else {
                        return Ok(());
                    };
                    c.prepare_cached(UPDATE_STATUS)?
                        .execute(rusqlite::params![status, decision, changed, owner, debate])?;
                    if let Some(body) = signature {
                        c.prepare_cached(INSERT_SIGNATURE)?
                            .execute(rusqlite::params![debate, seq, body])?;
                    }
                    for p in predictions {
                        track_record::insert_prediction_sqlite(c, p)?;
                    }
                    Ok(())
                }))
                .await;
        }
        let Some((status, decision, changed)) = status else {
            let Writer::Pool(pool) = &self.writer else {
                return Ok(());
            };
            // Only the log changes: group commit with the other debates appending now.
            return pool
                .append(group::Rows {
                    debate: debate.to_owned(),
                    rows: rows_of(events, bodies),
                })
                .await;
        };
        on_pool!(self, pool => {
            let insert = insert_events!(debate, events, bodies);
            let mut tx = pool.begin().await?;
            insert.execute(&mut *tx).await?;
            sqlx::query(UPDATE_STATUS)
            .bind(status)
            .bind(decision)
            .bind(changed)
            .bind(owner)
            .bind(debate)
            .execute(&mut *tx)
            .await?;
            if let Some(body) = &signature {
                sqlx::query(INSERT_SIGNATURE)
                    .bind(debate)
                    .bind(last.seq as i64)
                    .bind(body)
                    .execute(&mut *tx)
                    .await?;
            }
            for p in predictions {
                track_record::insert_prediction!(p).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }
}

/// A new debate, owned by this process (PostgreSQL).
const INSERT_DEBATE: &str = "INSERT INTO debates (id, query, protocol, seed, status, created_at, \
     owner) VALUES ($1, $2, $3, $4, 'running', $5, $6)";

/// A log's new status (and, for a reopened log, its new owner). Placeholders in binding order.
const UPDATE_STATUS: &str = "UPDATE debates SET status = $1, decision = $2, changed_outcome = $3, \
     owner = COALESCE($4, owner) WHERE id = $5";

const INSERT_SIGNATURE: &str =
    "INSERT INTO log_signatures (debate_id, seq, body) VALUES ($1, $2, $3)";

/// A debate's events, encoded as the writers take them: `(seq, kind, JSON body)`.
pub(super) type EncodedRows = Vec<(i64, &'static str, String)>;

fn rows_of(events: &[Event], bodies: Vec<String>) -> EncodedRows {
    events
        .iter()
        .zip(bodies)
        .map(|(e, body)| (e.seq as i64, e.body.kind(), body))
        .collect()
}

/// `INSERT INTO events … VALUES ($1, $2, $3, $4), ($5, …)` for `n` rows.
pub(super) fn insert_events_sql(n: usize) -> String {
    use std::fmt::Write;
    let mut sql = String::from("INSERT INTO events (debate_id, seq, kind, body) VALUES ");
    for i in 0..n {
        let p = 4 * i;
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(sql, "{sep}(${}, ${}, ${}, ${})", p + 1, p + 2, p + 3, p + 4);
    }
    sql
}

fn encode_all(debate: &str, events: &[Event]) -> Result<Vec<String>, StoreError> {
    events
        .iter()
        .map(|e| {
            serde_json::to_string(e).map_err(|err| StoreError::Corrupt {
                debate: debate.to_owned(),
                seq: e.seq as i64,
                error: err.to_string(),
            })
        })
        .collect()
}
