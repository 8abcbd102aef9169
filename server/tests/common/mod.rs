//! Starts the real `consilium` binary on a free port with a real SQLite file, and reads its SSE.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub struct Server {
    child: Child,
    pub base: String,
    pub db: PathBuf,
}

impl Server {
    /// Starts a server on `db` with the given pace (ms per agent message).
    pub fn start(db: &Path, pace_ms: u64) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_consilium"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .env("DATABASE_URL", format!("sqlite:{}", db.display()))
            .env("CONSILIUM_PACE_MS", pace_ms.to_string())
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start consilium");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let deadline = Instant::now() + Duration::from_secs(30);
        let base = loop {
            assert!(
                Instant::now() < deadline,
                "server did not report its address"
            );
            let line = lines
                .next()
                .expect("server exited before listening")
                .expect("read line");
            if let Some(at) = line.find("listening on http://") {
                let rest = &line[at + "listening on ".len()..];
                break rest.split_whitespace().next().expect("address").to_owned();
            }
        };
        // Keep draining the log so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server {
            child,
            base,
            db: db.to_owned(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// SIGKILL: no chance to clean up.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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

pub async fn create(server: &Server, body: Value) -> String {
    let resp = client()
        .post(server.url("/api/debates"))
        .json(&body)
        .send()
        .await
        .expect("POST");
    assert_eq!(resp.status(), 201, "create: {:?}", resp.text().await);
    let v: Value = resp.json().await.expect("json");
    v["id"].as_str().expect("id").to_owned()
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

/// One parsed SSE frame.
#[derive(Debug, Clone)]
pub struct Frame {
    pub id: Option<u64>,
    pub data: Value,
}

/// Reads SSE frames until the terminal event, the end of the stream, `limit` frames, or 60 s.
pub async fn read_sse(
    server: &Server,
    id: &str,
    last_event_id: Option<&str>,
    query: &str,
    limit: usize,
) -> Vec<Frame> {
    let mut req = client().get(server.url(&format!("/api/debates/{id}/events{query}")));
    if let Some(l) = last_event_id {
        req = req.header("Last-Event-ID", l);
    }
    let mut resp = req.send().await.expect("GET events");
    assert_eq!(resp.status(), 200);
    let ct = resp.headers()["content-type"]
        .to_str()
        .expect("ct")
        .to_owned();
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    let mut buf = String::new();
    let mut frames = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let chunk = tokio::time::timeout_at(deadline.into(), resp.chunk())
            .await
            .expect("SSE timed out")
            .expect("read chunk");
        let Some(chunk) = chunk else { return frames };
        buf.push_str(std::str::from_utf8(&chunk).expect("utf-8"));
        while let Some(end) = buf.find("\n\n") {
            let raw: String = buf.drain(..end + 2).collect();
            let mut frame_id = None;
            let mut data = String::new();
            for line in raw.lines() {
                if let Some(v) = line.strip_prefix("id:") {
                    frame_id = Some(v.trim().parse().expect("numeric id"));
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim_start());
                }
            }
            if data.is_empty() {
                continue; // keep-alive comment
            }
            let data: Value = serde_json::from_str(&data).expect("JSON data");
            let terminal = matches!(data["type"].as_str(), Some("decision" | "interrupted"));
            frames.push(Frame { id: frame_id, data });
            if terminal || frames.len() >= limit {
                return frames;
            }
        }
    }
}

pub fn seqs(frames: &[Frame]) -> Vec<u64> {
    frames
        .iter()
        .map(|f| f.data["seq"].as_u64().expect("seq"))
        .collect()
}

pub fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("consilium.db");
    (dir, db)
}
