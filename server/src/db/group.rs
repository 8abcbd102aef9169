//! Group commit: the events that many running debates append at the same
//! moment go to the database as one multi-row `INSERT` — one round trip to the driver and one
//! commit for all of them instead of one each. Every debate still waits until its own events
//! are committed before it publishes them (SV-5); a batch the database refuses is written again
//! debate by debate, so each gets its own answer (a conflict in one log never fails another).

use tokio::sync::{mpsc, oneshot};

use super::{Db, StoreError};

/// One debate's events, encoded: (seq, kind, JSON body).
pub(super) struct Rows {
    pub debate: String,
    pub rows: super::EncodedRows,
}

struct Pending {
    rows: Rows,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The writer's mailbox.
#[derive(Clone, Debug)]
pub(super) struct Writer {
    tx: mpsc::UnboundedSender<Pending>,
}

/// The most rows one statement carries: 4 placeholders each, under SQLite's 32,766.
const MAX_ROWS: usize = 4_000;

impl Writer {
    /// Starts the writer task on the current runtime; it ends when the store's last handle does.
    pub fn start(db: Db) -> Writer {
        let (tx, mut rx) = mpsc::unbounded_channel::<Pending>();
        tokio::spawn(async move {
            while let Some(first) = rx.recv().await {
                let mut n = first.rows.rows.len();
                let mut batch = vec![first];
                // Everything else already waiting joins this statement.
                while n < MAX_ROWS {
                    match rx.try_recv() {
                        Ok(p) => {
                            n += p.rows.rows.len();
                            batch.push(p);
                        }
                        Err(_) => break,
                    }
                }
                let all: Vec<&Rows> = batch.iter().map(|p| &p.rows).collect();
                match insert(&db, &all).await {
                    Ok(()) => {
                        for p in batch {
                            let _ = p.done.send(Ok(()));
                        }
                    }
                    Err(e) if batch.len() == 1 => {
                        if let Some(p) = batch.pop() {
                            let _ = p.done.send(Err(e));
                        }
                    }
                    Err(_) => {
                        for p in batch {
                            let result = insert(&db, &[&p.rows]).await;
                            let _ = p.done.send(result);
                        }
                    }
                }
            }
        });
        Writer { tx }
    }

    /// Appends `rows` with whatever else is waiting; returns once they are committed.
    pub async fn append(&self, rows: Rows) -> Result<(), StoreError> {
        let (done, wait) = oneshot::channel();
        self.tx
            .send(Pending { rows, done })
            .map_err(|_| StoreError::WriterGone)?;
        wait.await.map_err(|_| StoreError::WriterGone)?
    }
}

/// One statement for every debate's rows.
async fn insert(db: &Db, batches: &[&Rows]) -> Result<(), StoreError> {
    let n: usize = batches.iter().map(|b| b.rows.len()).sum();
    if n == 0 {
        return Ok(());
    }
    let sql = super::insert_events_sql(n);
    macro_rules! run {
        ($pool:expr) => {{
            // Only placeholders are generated; every value is bound.
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for b in batches {
                for (seq, kind, body) in &b.rows {
                    q = q.bind(&b.debate).bind(*seq).bind(*kind).bind(body);
                }
            }
            q.execute($pool).await?;
        }};
    }
    match db {
        Db::Sqlite(pool) => run!(pool),
        Db::Postgres(shared) => run!(&shared.pool),
    }
    Ok(())
}
