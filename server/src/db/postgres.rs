//! What several server processes sharing one PostgreSQL database need beyond queries (SV-4):
//!
//! - **instance lock**: each process holds `pg_advisory_lock(<random key>)` on a dedicated
//!   connection for its lifetime and records that key as the `owner` of the debates it starts, so
//!   another process can tell a debate whose server died (the lock is free) from one still running
//!   elsewhere (the lock is held);
//! - **change feed**: a `LISTEN consilium_events` connection turns the notifications sent on
//!   commit by every insert into the log (migrations/postgres/0002) into local wake-ups, so an SSE
//!   stream in this process follows a debate run by another one live.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgConnection};
use tokio::sync::broadcast;

use super::error::{redact, StoreError};
use super::migrations;

/// The notification channel written by the `events_notify` trigger.
pub const CHANNEL: &str = "consilium_events";
/// How often the instance-lock connection is checked (and re-established if it dropped).
const LOCK_CHECK: Duration = Duration::from_secs(2);

#[derive(Debug)]
pub struct Postgres {
    pub pool: PgPool,
    /// This process's advisory-lock key, written as `debates.owner`.
    pub instance: i64,
    /// Debate ids whose log grew, from any process; `""` when notifications may have been missed.
    pub changes: broadcast::Sender<String>,
}

/// Connects, applies migrations, takes this process's instance lock and starts listening.
pub async fn connect(url: &str) -> Result<Postgres, StoreError> {
    let at = redact(url);
    let fail = |e: sqlx::Error| StoreError::Connect {
        backend: "PostgreSQL",
        at: at.clone(),
        error: e.to_string(),
    };
    let options = PgConnectOptions::from_str(url).map_err(fail)?;
    // One plain connection first: an unreachable server or a missing database fails at once,
    // with PostgreSQL's own reason, instead of after the pool's retries.
    let (instance, lock) = take_instance_lock(&options).await.map_err(fail)?;
    let pool = PgPoolOptions::new()
        .max_connections(10)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options.clone())
        .await
        .map_err(fail)?;
    // Concurrent starts are safe: sqlx serialises migrations with an advisory lock of its own.
    migrations::postgres().run(&pool).await?;
    tokio::spawn(keep_instance_lock(options, instance, lock));

    let mut listener = PgListener::connect_with(&pool).await.map_err(fail)?;
    // LISTEN before serving: a stream subscribed to `changes` cannot miss a commit after that.
    listener.listen(CHANNEL).await.map_err(fail)?;
    let (changes, _) = broadcast::channel(1024);
    tokio::spawn(forward_notifications(listener, changes.clone()));
    Ok(Postgres {
        pool,
        instance,
        changes,
    })
}

impl Postgres {
    /// Whether the process that took instance lock `key` is still alive (holds it).
    pub async fn is_alive(&self, key: i64) -> Result<bool, StoreError> {
        if key == self.instance {
            return Ok(true);
        }
        // Try and release on the same session: advisory locks belong to the session.
        let mut conn = self.pool.acquire().await?;
        let free: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
            .bind(key)
            .fetch_one(&mut *conn)
            .await?;
        if free {
            sqlx::query("SELECT pg_advisory_unlock($1)")
                .bind(key)
                .execute(&mut *conn)
                .await?;
        }
        Ok(!free)
    }
}

async fn take_instance_lock(
    options: &PgConnectOptions,
) -> Result<(i64, PgConnection), sqlx::Error> {
    let mut conn = options.connect().await?;
    loop {
        let (hi, lo) = uuid::Uuid::new_v4().as_u64_pair();
        let key = (hi ^ lo) as i64;
        // A key held by someone else (astronomically unlikely) just means: draw another.
        if try_lock(&mut conn, key).await? {
            return Ok((key, conn));
        }
    }
}

async fn try_lock(conn: &mut PgConnection, key: i64) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
        .bind(key)
        .fetch_one(conn)
        .await
}

/// Holds the instance lock for the life of the process. If its connection drops (the lock is then
/// released by PostgreSQL), reconnects and takes the same key again.
#[allow(clippy::cognitive_complexity)] // the lock's reconnect loop
async fn keep_instance_lock(options: PgConnectOptions, key: i64, mut conn: PgConnection) {
    loop {
        tokio::time::sleep(LOCK_CHECK).await;
        if conn.ping().await.is_ok() {
            continue;
        }
        tracing::warn!(
            "lost the PostgreSQL connection holding this process's instance lock; reconnecting"
        );
        loop {
            match options.connect().await {
                Ok(mut fresh) => match try_lock(&mut fresh, key).await {
                    Ok(true) => {
                        conn = fresh;
                        tracing::info!("instance lock re-acquired");
                        break;
                    }
                    // Another process is probing this key right now; it releases it at once.
                    Ok(false) => {}
                    Err(e) => tracing::warn!("cannot re-take the instance lock: {e}"),
                },
                Err(e) => tracing::warn!("cannot reconnect to PostgreSQL: {e}"),
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

/// Turns notifications into local wake-ups. After a lost connection (notifications in between are
/// gone) or an error, wakes every stream with `""` so each re-reads the log.
async fn forward_notifications(mut listener: PgListener, changes: broadcast::Sender<String>) {
    loop {
        match listener.try_recv().await {
            Ok(Some(n)) => {
                // No subscriber is fine: nobody is watching.
                let _ = changes.send(n.payload().to_owned());
            }
            Ok(None) => {
                tracing::warn!("the PostgreSQL LISTEN connection was lost and re-established");
                let _ = changes.send(String::new());
            }
            Err(e) => {
                tracing::warn!("PostgreSQL LISTEN failed, retrying: {e}");
                let _ = changes.send(String::new());
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}
