//! Starts the real `consilium` binary on a free port with a real database, and reads its SSE.
//!
//! The database is a temporary SQLite file, or, when `CONSILIUM_TEST_DB` is a PostgreSQL URL
//! (e.g. `postgres://postgres@127.0.0.1:5432/test`), a fresh PostgreSQL database created through
//! that URL for each test and dropped after it.

#![allow(dead_code)]

mod cli;
pub use cli::*;
pub mod fakes;
#[allow(unused_imports)]
pub use fakes::*;
mod in_process;
#[allow(unused_imports)]
pub use in_process::*;
pub mod sse;
pub use sse::*;
pub mod streaming_model;

use std::io::{BufRead, BufReader, Lines};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Where a test server keeps its data: a `DATABASE_URL`.
#[derive(Clone, Debug)]
pub struct TestDb {
    pub url: String,
}

/// Keeps a test database alive; removes it when dropped (after the servers using it).
pub struct DbGuard {
    dir: tempfile::TempDir,
    /// (admin URL, database name) of a PostgreSQL database to drop.
    postgres: Option<(String, String)>,
}

impl DbGuard {
    /// A scratch directory for the test's own files.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for DbGuard {
    fn drop(&mut self) {
        if let Some((admin, name)) = self.postgres.take() {
            let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
            if let Err(e) = pg_execute(&admin, sql) {
                eprintln!("could not drop test database {name}: {e}");
            }
        }
    }
}

/// The backend under test: `CONSILIUM_TEST_DB` (a PostgreSQL admin URL) or a SQLite file.
pub fn temp_db() -> (DbGuard, TestDb) {
    match std::env::var("CONSILIUM_TEST_DB") {
        Ok(admin) if !admin.trim().is_empty() => {
            assert!(
                admin.starts_with("postgres://") || admin.starts_with("postgresql://"),
                "CONSILIUM_TEST_DB must be a postgres:// URL (unset it for SQLite), got {admin}"
            );
            fresh_postgres(&admin)
        }
        _ => {
            let dir = tempfile::tempdir().expect("tempdir");
            let url = format!("sqlite:{}", dir.path().join("consilium.db").display());
            (
                DbGuard {
                    dir,
                    postgres: None,
                },
                TestDb { url },
            )
        }
    }
}

/// For tests that need PostgreSQL whatever the backend under test: a fresh database through
/// `CONSILIUM_TEST_PG` (default `postgres://postgres@127.0.0.1:5432/test`). Fails, never skips,
/// when that server is unreachable.
pub fn postgres_db() -> (DbGuard, TestDb) {
    let admin = std::env::var("CONSILIUM_TEST_PG")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    fresh_postgres(&admin)
}

fn fresh_postgres(admin: &str) -> (DbGuard, TestDb) {
    let name = format!(
        "consilium_t_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    );
    if let Err(e) = pg_execute(admin, format!("CREATE DATABASE {name}")) {
        panic!(
            "these tests need PostgreSQL: cannot create a database through {admin}: {e}\n\
             (set CONSILIUM_TEST_PG / CONSILIUM_TEST_DB to a reachable postgres:// URL whose user \
             may CREATE DATABASE)"
        );
    }
    let url = with_database(admin, &name);
    (
        DbGuard {
            dir: tempfile::tempdir().expect("tempdir"),
            postgres: Some((admin.to_owned(), name)),
        },
        TestDb { url },
    )
}

/// Runs one statement on the database at `admin`, on a thread with its own runtime (callable from
/// synchronous code inside an async test, and from `Drop`).
pub fn pg_execute(admin: &str, sql: String) -> Result<(), String> {
    let admin = admin.to_owned();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(async {
            use sqlx::{Connection, Executor};
            let connect = sqlx::PgConnection::connect(&admin);
            let mut conn = tokio::time::timeout(Duration::from_secs(10), connect)
                .await
                .map_err(|_| "no answer within 10 s".to_owned())?
                .map_err(|e| e.to_string())?;
            conn.execute(sqlx::AssertSqlSafe(sql))
                .await
                .map_err(|e| e.to_string())?;
            let _ = conn.close().await;
            Ok(())
        })
    })
    .join()
    .map_err(|_| "admin thread panicked".to_owned())?
}

/// `url` with its database (path) replaced by `name`, query parameters kept.
fn with_database(url: &str, name: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("URL with a scheme");
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let query = tail.find('?').map_or("", |i| &tail[i..]);
    format!("{scheme}://{authority}/{name}{query}")
}

pub struct Server {
    child: Child,
    pub base: String,
    pub db: TestDb,
    /// Every line the server logged.
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

/// A server process that was spawned and has not yet said where it listens.
pub struct Starting {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    db: TestDb,
}

impl Server {
    /// Starts a server on `db` with the given pace (ms per agent message).
    pub fn start(db: &TestDb, pace_ms: u64) -> Server {
        Server::spawn(db, pace_ms).ready()
    }

    /// Starts a server with extra environment (agent backends, budgets, timeouts).
    pub fn start_with(db: &TestDb, pace_ms: u64, env: &[(&str, &str)]) -> Server {
        Server::spawn_with(db, pace_ms, env).ready()
    }

    /// Spawns a server without waiting for it (to start several at once).
    pub fn spawn(db: &TestDb, pace_ms: u64) -> Starting {
        Server::spawn_with(db, pace_ms, &[])
    }

    pub fn spawn_with(db: &TestDb, pace_ms: u64, env: &[(&str, &str)]) -> Starting {
        let mut command = Command::new(env!("CARGO_BIN_EXE_consilium"));
        // The developer's own model settings must not leak into a test server.
        for var in [
            "OPENAI_BASE_URL",
            "OPENAI_MODEL",
            "OPENAI_MODELS",
            "OPENAI_API_KEY",
            "CONSILIUM_HTTP_AGENT_URL",
            "CONSILIUM_TOKEN_BUDGET",
            "CONSILIUM_CA_CERT",
            "CONSILIUM_START_TOKEN",
            "CONSILIUM_ALLOWED_HOSTS",
            "CONSILIUM_DAILY_TOKEN_BUDGET",
            "CONSILIUM_MAX_TOKEN_BUDGET",
            "CONSILIUM_NO_RESUME",
            "CONSILIUM_MAX_RESUMES",
        ] {
            command.env_remove(var);
        }
        let mut child = command
            .args(["serve", "--addr", "127.0.0.1:0"])
            .env("DATABASE_URL", &db.url)
            .env("CONSILIUM_PACE_MS", pace_ms.to_string())
            // PostgreSQL: notice quickly when another test server process was killed.
            .env("CONSILIUM_ORPHAN_SWEEP_MS", "300")
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            // The test's own settings win over the defaults above.
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start consilium");
        let stdout = child.stdout.take().expect("stdout");
        Starting {
            child,
            lines: BufReader::new(stdout).lines(),
            db: db.clone(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// What the server has logged so far.
    pub fn log(&self) -> String {
        self.log.lock().map(|l| l.join("\n")).unwrap_or_default()
    }

    /// `consilium <args…>` against this server's database (e.g. `judge add ada`): success and
    /// stdout + stderr.
    pub fn cli(&self, args: &[&str]) -> (bool, String) {
        cli_on(&self.db, args)
    }

    /// The server's process id (to send it signals).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `limit` for the process to exit; its exit status, or `None` if still running.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// SIGKILL: no chance to clean up.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Starting {
    /// Waits until the server logs its address (panics if it exits first).
    pub fn ready(mut self) -> Server {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut early = Vec::new();
        let base = loop {
            assert!(
                Instant::now() < deadline,
                "server did not report its address"
            );
            let line = self
                .lines
                .next()
                .expect("server exited before listening")
                .expect("read line");
            early.push(line.clone());
            if let Some(at) = line.find("listening on http://") {
                let rest = &line[at + "listening on ".len()..];
                break rest.split_whitespace().next().expect("address").to_owned();
            }
        };
        // Keep draining the log so the server never blocks on a full pipe, and keep it for
        // tests that check what it says (or must never say).
        let lines = self.lines;
        let log = std::sync::Arc::new(std::sync::Mutex::new(early));
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if let Ok(mut l) = kept.lock() {
                    l.push(line);
                }
            }
        });
        Server {
            child: self.child,
            base,
            db: self.db,
            log,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client")
}

/// A client whose requests come from `ip` (a loopback address other than 127.0.0.1 is another
/// client to the server's per-address limits).
pub fn client_from(ip: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from(ip))
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client")
}

/// `POST /api/debates`: the status and the JSON body (null when it is not JSON).
pub async fn post_debate(server: &Server, body: &Value) -> (u16, Value) {
    let resp = client()
        .post(server.url("/api/debates"))
        .json(body)
        .send()
        .await
        .expect("POST");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

/// `POST /api/debates` that must be refused: a 400 whose error names `field`.
pub async fn assert_refused(server: &Server, body: &Value, field: &str) {
    let (status, err) = post_debate(server, body).await;
    assert_eq!(status, 400, "{field}: {body}: {err}");
    let error = err["error"].as_str().unwrap_or_default();
    assert!(error.contains(field), "{field}: {body}: {err}");
}

/// No debate was stored (a refused request leaves nothing half-written).
pub async fn assert_nothing_stored(server: &Server) {
    let list: Vec<Value> = get_json(server, "/api/debates").await;
    assert!(list.is_empty(), "nothing stored: {list:?}");
}

pub async fn create(server: &Server, body: Value) -> String {
    let (status, v) = post_debate(server, &body).await;
    assert_eq!(status, 201, "create: {v}");
    v["id"].as_str().expect("id").to_owned()
}

/// `(status, JSON body or null)` of a GET, or of a POST of `body`, sent with an optional bearer
/// token (a judge's, a viewer's, or none).
pub async fn call_as(
    server: &Server,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut req = match body {
        Some(body) => client().post(server.url(path)).json(body),
        None => client().get(server.url(path)),
    };
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

/// GET a JSON document (asserting nothing about the status).
pub async fn get_json<T: serde::de::DeserializeOwned>(server: &Server, path: &str) -> T {
    client()
        .get(server.url(path))
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON body")
}

/// Everything a debate shows anyone: its JSON, both exports, the live and audit pages (for
/// tests that search them for what must never appear).
pub async fn everything_shown(server: &Server, id: &str) -> String {
    let mut seen = String::new();
    for path in [
        format!("/api/debates/{id}"),
        format!("/api/debates/{id}/export.json"),
        format!("/api/debates/{id}/export.md"),
        format!("/debates/{id}"),
        format!("/debates/{id}/audit"),
    ] {
        let resp = client().get(server.url(&path)).send().await.expect("GET");
        seen.push_str(&resp.text().await.expect("text"));
    }
    seen
}

/// Streams a debate to its end, checks the stream is the log and `consilium verify` accepts it;
/// returns the events.
pub async fn run_to_end(server: &Server, body: Value) -> (String, Vec<Value>) {
    let id = create(server, body).await;
    let frames = read_sse(server, &id, None, "", usize::MAX).await;
    let events: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(
        seqs(&frames),
        (1..=events.len() as u64).collect::<Vec<_>>(),
        "gap-free"
    );
    let detail: Value = get_json(server, &format!("/api/debates/{id}")).await;
    assert_eq!(
        detail["events"].as_array().expect("events"),
        &events,
        "the stream is the log"
    );
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "verify: {out}");
    assert!(out.contains("verified:"), "{out}");
    (id, events)
}

pub fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// Serves a fake (an agent service, a model endpoint) over plain HTTP on a free port of
/// 127.0.0.1; returns its `http://` origin.
pub async fn serve_http(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// The index (and sequence number) of the event that starts round `round`.
pub fn round_start(events: &[Value], round: u64) -> usize {
    events
        .iter()
        .position(|e| e["type"] == "round_started" && e["round"] == round)
        .unwrap_or_else(|| panic!("no round {round}"))
}
