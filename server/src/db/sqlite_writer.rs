//! SQLite's writer: one thread owns one connection and commits the writes of
//! the drive loop's hot path — a debate's creation, every append, its end — in groups. Whatever
//! is waiting when the thread comes round shares one transaction, each write in its own savepoint,
//! so one write's failure (a conflict, a full database) is its own; each caller awaits its own
//! write's commit before it publishes (SV-5). If the transaction as a whole fails, every write in
//! it is tried again alone, so each gets its own answer.
//!
//! When nothing is waiting for the thread and the connection is free, a write is committed by the
//! caller itself, on its own thread: a debate running alone pays no hand-off to the writer thread
//! and back (two thread wake-ups per write, most of such a debate's time on this 2-core VM).
//! Once writes queue up they go to the thread, which groups them.
//!
//! Why a thread of our own and not sqlx: sqlx hands every statement to its SQLite worker thread
//! and back, and a profile of 100 debates at once spent ~40 % of its time switching threads.
//! Reads and the rarer writes (judges, sessions, recovery) stay on the sqlx pool; WAL lets both
//! read while this thread writes, and the busy timeout orders the writers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard, TryLockError};
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

/// The writer thread's mailbox and the connection it shares with callers that find it idle; the
/// thread ends when the store's last handle does.
#[derive(Clone)]
pub(super) struct SqliteWriter {
    tx: mpsc::Sender<Pending>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SqliteWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteWriter")
            .field("queued", &self.shared.queued.load(Ordering::Relaxed))
            .finish()
    }
}

struct Shared {
    /// Whoever holds it commits: the thread, or a caller that found nothing queued (or the
    /// checkpoint thread, holding writes back while it catches up with them).
    conn: Arc<Mutex<Connection>>,
    /// Writes sent to the thread and not yet answered.
    queued: AtomicUsize,
    checkpoints: Checkpointer,
}

impl Shared {
    /// The connection. If a write panicked while holding it, the transaction it left open is
    /// rolled back first.
    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(|e| recovered(e.into_inner()))
    }

    fn try_lock(&self) -> Option<MutexGuard<'_, Connection>> {
        match self.conn.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(e)) => Some(recovered(e.into_inner())),
            Err(TryLockError::WouldBlock) => None,
        }
    }
}

fn recovered(conn: MutexGuard<'_, Connection>) -> MutexGuard<'_, Connection> {
    rollback(&conn);
    conn
}

/// At most this many writes share a transaction.
const MAX_GROUP: usize = 512;

/// The longest WAL kept on disk once it starts again (SQLite's `journal_size_limit`).
const WAL_KEEP_BYTES: i64 = 64 * 1024 * 1024;

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
        // their own, so a commit never waits for one (see `Checkpointer`); a WAL left long by a
        // burst is cut back to `WAL_KEEP_BYTES` when it starts again.
        conn.pragma_update(None, "wal_autocheckpoint", 0)
            .and_then(|()| conn.pragma_update(None, "journal_size_limit", WAL_KEEP_BYTES))
            .map_err(|e| e.to_string())?;
        let conn = Arc::new(Mutex::new(conn));
        let checkpoints = Checkpointer::start(path, Arc::clone(&conn))?;
        let shared = Arc::new(Shared {
            conn,
            queued: AtomicUsize::new(0),
            checkpoints,
        });
        let (tx, rx) = mpsc::channel::<Pending>();
        let thread = Arc::clone(&shared);
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
                    let n = group.len();
                    commit(&thread.lock(), group);
                    thread.queued.fetch_sub(n, Ordering::AcqRel);
                    thread.checkpoints.wrote();
                }
            })
            .map_err(|e| format!("cannot start the writer thread: {e}"))?;
        Ok(SqliteWriter { tx, shared })
    }

    /// Runs `job` with whatever else is waiting; returns once it is committed (or failed).
    pub async fn write(&self, job: Job) -> Result<(), StoreError> {
        // Nothing queued and the connection free: commit here, in a transaction of its own.
        if self.shared.queued.load(Ordering::Acquire) == 0 {
            if let Some(conn) = self.shared.try_lock() {
                let result = alone(&conn, &job);
                drop(conn);
                self.shared.checkpoints.wrote();
                return result;
            }
        }
        let (done, wait) = oneshot::channel();
        self.shared.queued.fetch_add(1, Ordering::AcqRel);
        if self.tx.send(Pending { job, done }).is_err() {
            self.shared.queued.fetch_sub(1, Ordering::AcqRel);
            return Err(StoreError::WriterGone);
        }
        wait.await.map_err(|_| StoreError::WriterGone)?
    }
}

/// How often the WAL is copied back into the database file while writes come in.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// The checkpoint thread's handle, held by the writer thread: it says when something was written,
/// and dropping it ends the thread.
///
/// A checkpoint beside a stream of commits never catches up with them, and SQLite starts the WAL
/// again from its beginning only once every frame in it is checkpointed: the WAL grew for as
/// long as writes kept coming (2.6 GB after `consilium-bench` ran 6,000 debates one after the
/// other). So after each checkpoint the thread holds the writer's connection (writes wait) while
/// it copies the frames committed during it, and the next commit starts the WAL again from its
/// beginning: it holds about one checkpoint period's writes.
struct Checkpointer {
    wrote: mpsc::SyncSender<()>,
}

impl Checkpointer {
    fn start(path: &str, writer: Arc<Mutex<Connection>>) -> Result<Checkpointer, String> {
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
                // (PASSIVE: never waits for readers or writers; what it cannot copy, the next
                // one does).
                while news.recv().is_ok() {
                    std::thread::sleep(CHECKPOINT_EVERY);
                    while news.try_recv().is_ok() {}
                    // The WAL as it was when this checkpoint began; what the writer commits
                    // while it copies is not in its count, so a count of nothing left does not
                    // mean the WAL is all copied: the frames written meanwhile are copied after
                    // it in any case, with the writer held back (nothing, when nothing came).
                    if checkpoint(&conn) {
                        let held = writer.lock().unwrap_or_else(|e| recovered(e.into_inner()));
                        checkpoint(&conn);
                        drop(held);
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

/// A PASSIVE checkpoint; false when it failed (the next one retries).
fn checkpoint(conn: &Connection) -> bool {
    match conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!("SQLite checkpoint failed (the next one retries): {e}");
            false
        }
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

    /// Under a stream of commits the WAL starts again from its beginning instead of growing.
    /// SQLite counts those restarts in the WAL file's header (bytes 12–15, the checkpoint
    /// sequence number); before the checkpoint thread caught up with the writer, the count
    /// stayed at 0 for as long as writes kept coming (the WAL held every frame written).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_wal_starts_again_while_writes_keep_coming() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("w.db");
        Connection::open(&path)
            .and_then(|c| {
                c.execute_batch(
                    "PRAGMA journal_mode = WAL; CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB);",
                )
            })
            .expect("table");
        let wal = dir.path().join("w.db-wal");
        let restarts = || {
            use std::io::Read;
            let mut header = [0u8; 16];
            std::fs::File::open(&wal)
                .and_then(|mut f| f.read_exact(&mut header))
                .map_or(0, |()| {
                    u32::from_be_bytes([header[12], header[13], header[14], header[15]])
                })
        };
        let path = path.to_str().expect("utf-8 path");
        let writer = SqliteWriter::open(path, Durability::Normal, None).expect("writer");
        // Commits without a pause, each a new 4 KiB page at least, for up to twenty checkpoint
        // periods or until the WAL has started again.
        let start = std::time::Instant::now();
        let mut commits: i64 = 0;
        while start.elapsed() < CHECKPOINT_EVERY * 20 && (commits % 64 != 0 || restarts() == 0) {
            let k = commits;
            writer
                .write(Box::new(move |c| {
                    c.execute(
                        "INSERT INTO t (k, v) VALUES (?1, zeroblob(4096))",
                        params![k],
                    )?;
                    Ok(())
                }))
                .await
                .expect("committed");
            commits += 1;
        }
        assert!(
            restarts() > 0,
            "the WAL never started again in {commits} commits ({:?})",
            start.elapsed()
        );
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
