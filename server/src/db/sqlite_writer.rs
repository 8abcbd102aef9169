//! SQLite's writer (issue 17, item 2): one thread owns one connection and commits the writes of
//! the drive loop's hot path — a debate's creation, every append, its end — in groups. Whatever
//! is waiting when the thread comes round shares one transaction, each write in its own savepoint,
//! so one write's failure (a conflict, a full database) is its own; each caller awaits its own
//! write's commit before it publishes (SV-5). If the transaction as a whole fails, every write in
//! it is tried again alone, so each gets its own answer.
//!
//! Why a thread of our own and not sqlx: sqlx hands every statement to its SQLite worker thread
//! and back, and a profile of 100 debates at once spent ~40 % of its time switching threads.
//! Reads and the rarer writes (judges, sessions, recovery) stay on the sqlx pool; WAL lets both
//! read while this thread writes, and the busy timeout orders the writers.

use std::sync::mpsc;
use std::time::Duration;

use rusqlite::{params, Connection, ErrorCode, OpenFlags};
use tokio::sync::oneshot;

use super::{Durability, StoreError};

/// One write: statements run on the writer's connection inside a transaction it manages. It may
/// run twice (alone, after its group failed), so it only reads what it captured.
pub(super) type Job = Box<dyn Fn(&Connection) -> Result<(), StoreError> + Send>;

struct Pending {
    job: Job,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The writer thread's mailbox; the thread ends when the store's last handle does.
#[derive(Clone, Debug)]
pub(super) struct SqliteWriter {
    tx: mpsc::Sender<Pending>,
}

/// At most this many writes share a transaction.
const MAX_GROUP: usize = 512;

impl SqliteWriter {
    /// Opens the file the pool opened (migrated already) with the same settings, and starts the
    /// thread.
    pub fn open(
        path: &str,
        durability: Durability,
        max_pages: Option<u64>,
    ) -> Result<SqliteWriter, String> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| e.to_string())?;
        let synchronous = match durability {
            Durability::Normal => "NORMAL",
            Durability::Full => "FULL",
        };
        conn.busy_timeout(Duration::from_secs(5))
            .and_then(|()| {
                conn.execute_batch(&format!(
                    "PRAGMA journal_mode = WAL; PRAGMA synchronous = {synchronous}; \
                     PRAGMA foreign_keys = ON;"
                ))
            })
            .and_then(|()| match max_pages {
                Some(pages) => {
                    conn.pragma_update(None, "max_page_count", pages.min(i64::MAX as u64) as i64)
                }
                None => Ok(()),
            })
            .map_err(|e| e.to_string())?;
        // Checkpoints (copying the WAL back into the file, with an fsync) run on a thread of
        // their own, so a commit never waits for one.
        conn.pragma_update(None, "wal_autocheckpoint", 0)
            .map_err(|e| e.to_string())?;
        let checkpoints = Checkpointer::start(path)?;
        let (tx, rx) = mpsc::channel::<Pending>();
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                while let Ok(first) = rx.recv() {
                    let mut group = vec![first];
                    while group.len() < MAX_GROUP {
                        match rx.try_recv() {
                            Ok(p) => group.push(p),
                            Err(_) => break,
                        }
                    }
                    commit(&conn, group);
                    checkpoints.wrote();
                }
            })
            .map_err(|e| format!("cannot start the writer thread: {e}"))?;
        Ok(SqliteWriter { tx })
    }

    /// Runs `job` with whatever else is waiting; returns once it is committed (or failed).
    pub async fn write(&self, job: Job) -> Result<(), StoreError> {
        let (done, wait) = oneshot::channel();
        self.tx
            .send(Pending { job, done })
            .map_err(|_| StoreError::WriterGone)?;
        wait.await.map_err(|_| StoreError::WriterGone)?
    }
}

/// How often the WAL is copied back into the database file while writes come in.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// The checkpoint thread's handle, held by the writer thread: it says when something was written,
/// and dropping it ends the thread.
struct Checkpointer {
    wrote: mpsc::SyncSender<()>,
}

impl Checkpointer {
    fn start(path: &str) -> Result<Checkpointer, String> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| e.to_string())?;
        conn.busy_timeout(Duration::from_secs(5))
            .map_err(|e| e.to_string())?;
        let (wrote, news) = mpsc::sync_channel::<()>(1);
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                // Wait for a write, let more arrive for a while, then checkpoint what is there
                // (PASSIVE: never blocks the writer; what it cannot copy now, the next one does).
                while news.recv().is_ok() {
                    std::thread::sleep(CHECKPOINT_EVERY);
                    while news.try_recv().is_ok() {}
                    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    {
                        tracing::warn!("SQLite checkpoint failed (the next one retries): {e}");
                    }
                }
            })
            .map_err(|e| format!("cannot start the checkpoint thread: {e}"))?;
        Ok(Checkpointer { wrote })
    }

    /// Something was committed: a checkpoint is due.
    fn wrote(&self) {
        let _ = self.wrote.try_send(());
    }
}

/// Commits a group; answers every write in it.
fn commit(conn: &Connection, group: Vec<Pending>) {
    if group.len() > 1 {
        match together(conn, &group) {
            Some(results) => {
                for (p, result) in group.into_iter().zip(results) {
                    let _ = p.done.send(result);
                }
                return;
            }
            None => rollback(conn),
        }
    }
    for p in group {
        let result = alone(conn, &p.job);
        let _ = p.done.send(result);
    }
}

/// Every write of the group in one transaction, each in a savepoint. `None`: the transaction
/// itself failed (it could not begin or commit, or an error rolled it back), so nothing of it
/// is stored.
fn together(conn: &Connection, group: &[Pending]) -> Option<Vec<Result<(), StoreError>>> {
    conn.execute_batch("BEGIN IMMEDIATE").ok()?;
    let mut results = Vec::with_capacity(group.len());
    for p in group {
        conn.execute_batch("SAVEPOINT w").ok()?;
        let result = (p.job)(conn);
        if conn.is_autocommit() {
            return None; // SQLite rolled the whole transaction back (e.g. a full disk)
        }
        let end = if result.is_ok() {
            "RELEASE w"
        } else {
            "ROLLBACK TO w; RELEASE w"
        };
        conn.execute_batch(end).ok()?;
        results.push(result);
    }
    conn.execute_batch("COMMIT").ok()?;
    Some(results)
}

/// One write in a transaction of its own.
fn alone(conn: &Connection, job: &Job) -> Result<(), StoreError> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let result = job(conn).and_then(|()| Ok(conn.execute_batch("COMMIT")?));
    if result.is_err() {
        rollback(conn);
    }
    result
}

fn rollback(conn: &Connection) {
    if !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
}

/// Inserts one debate's encoded events.
pub(super) fn insert_rows(
    conn: &Connection,
    debate: &str,
    rows: &super::EncodedRows,
) -> Result<(), StoreError> {
    let mut insert = conn.prepare_cached(&super::insert_events_sql(1))?;
    for (seq, kind, body) in rows {
        insert.execute(params![debate, seq, kind, body])?;
    }
    Ok(())
}

/// True when SQLite refused a write for want of space (a full disk, or `max_page_count`).
pub(super) fn is_full(e: &rusqlite::Error) -> bool {
    match e {
        rusqlite::Error::SqliteFailure(f, message) => {
            f.code == ErrorCode::DiskFull
                || message
                    .as_deref()
                    .is_some_and(|m| m.contains("disk is full"))
        }
        _ => false,
    }
}

/// True when a write repeated a primary key or unique value.
pub(super) fn is_conflict(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert(key: &'static str, bytes: i64) -> Job {
        Box::new(move |c| {
            c.execute(
                "INSERT INTO t (k, v) VALUES (?1, zeroblob(?2))",
                params![key, bytes],
            )?;
            Ok(())
        })
    }

    /// Commits `jobs` as one group, as the thread does, and collects each one's answer.
    fn group(conn: &Connection, jobs: Vec<Job>) -> Vec<Result<(), StoreError>> {
        let (pending, answers): (Vec<_>, Vec<_>) = jobs
            .into_iter()
            .map(|job| {
                let (done, answer) = oneshot::channel();
                (Pending { job, done }, answer)
            })
            .unzip();
        commit(conn, pending);
        answers
            .into_iter()
            .map(|mut a| a.try_recv().expect("every write is answered"))
            .collect()
    }

    /// Writes that share a transaction land together; a conflict, and a write the database has
    /// no room for (which may roll the whole transaction back), fail alone.
    #[test]
    fn a_group_commits_together_and_each_failure_is_its_own() {
        let dir = tempfile::tempdir().expect("dir");
        let conn = Connection::open(dir.path().join("w.db")).expect("open");
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB);",
        )
        .expect("table");
        let r = group(
            &conn,
            vec![
                insert("a", 1),
                insert("b", 1),
                insert("a", 1),
                insert("c", 1),
            ],
        );
        assert!(r[0].is_ok() && r[1].is_ok() && r[3].is_ok(), "{r:?}");
        assert!(r[2].as_ref().is_err_and(StoreError::is_conflict), "{r:?}");

        let pages: i64 = conn
            .query_row("PRAGMA page_count", [], |row| row.get(0))
            .expect("pages");
        conn.pragma_update(None, "max_page_count", pages + 2)
            .expect("cap");
        let r = group(
            &conn,
            vec![insert("d", 1), insert("big", 1 << 20), insert("e", 1)],
        );
        assert!(r[0].is_ok() && r[2].is_ok(), "{r:?}");
        assert!(r[1].as_ref().is_err_and(StoreError::is_full), "{r:?}");

        let keys: Vec<String> = conn
            .prepare("SELECT k FROM t ORDER BY k")
            .and_then(|mut s| s.query_map([], |row| row.get(0))?.collect())
            .expect("keys");
        assert_eq!(keys, ["a", "b", "c", "d", "e"]);
        assert!(conn.is_autocommit(), "no transaction left open");
    }
}
