//! Reading a debate's SSE stream frame by frame, as a browser's EventSource would.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{client, Server};

#[derive(Debug, Clone)]
pub struct Frame {
    pub id: Option<u64>,
    /// The `event:` name (`failed`); `None` for log events.
    pub event: Option<String>,
    pub data: Value,
}

impl Frame {
    pub fn is_terminal(&self) -> bool {
        self.event.as_deref() == Some("failed")
            || matches!(self.data["type"].as_str(), Some("decision" | "interrupted"))
    }
}

/// An open SSE connection, read frame by frame.
pub struct SseStream {
    resp: reqwest::Response,
    /// Bytes, not text: a chunk may end inside a UTF-8 character.
    buf: Vec<u8>,
    deadline: Instant,
}

impl SseStream {
    /// Opens the event stream of debate `id` (60 s budget for the whole read).
    pub async fn open(
        server: &Server,
        id: &str,
        last_event_id: Option<&str>,
        query: &str,
    ) -> SseStream {
        let mut req = client().get(server.url(&format!("/api/debates/{id}/events{query}")));
        if let Some(l) = last_event_id {
            req = req.header("Last-Event-ID", l);
        }
        let resp = req.send().await.expect("GET events");
        assert_eq!(resp.status(), 200);
        let ct = resp.headers()["content-type"]
            .to_str()
            .expect("ct")
            .to_owned();
        assert!(ct.starts_with("text/event-stream"), "{ct}");
        SseStream {
            resp,
            buf: Vec::new(),
            deadline: Instant::now() + Duration::from_secs(60),
        }
    }

    /// Log events (deltas skipped) until the terminal event, the end of the stream, or `limit`.
    pub async fn take(&mut self, limit: usize) -> Vec<Frame> {
        let mut frames = Vec::new();
        while frames.len() < limit {
            let Some(frame) = self.next().await else {
                break;
            };
            // LM-3: ephemeral deltas are not log events.
            if frame.event.as_deref() == Some("delta") {
                continue;
            }
            let terminal = frame.is_terminal();
            frames.push(frame);
            if terminal {
                break;
            }
        }
        frames
    }

    /// The next frame — a log event or a delta (keep-alives skipped) — or `None` at the end of
    /// the stream.
    pub async fn next(&mut self) -> Option<Frame> {
        loop {
            while let Some(end) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let bytes: Vec<u8> = self.buf.drain(..end + 2).collect();
                let raw = String::from_utf8(bytes).expect("utf-8");
                let mut frame_id = None;
                let mut event = None;
                let mut data = String::new();
                for line in raw.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("id:") {
                        frame_id = Some(v.trim().parse().expect("numeric id"));
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if data.is_empty() {
                    continue; // keep-alive comment
                }
                let data: Value = serde_json::from_str(&data).expect("JSON data");
                return Some(Frame {
                    id: frame_id,
                    event,
                    data,
                });
            }
            let chunk = tokio::time::timeout_at(self.deadline.into(), self.resp.chunk())
                .await
                .expect("SSE timed out")
                .expect("read chunk")?;
            self.buf.extend_from_slice(&chunk);
        }
    }
}

/// Reads SSE frames until the terminal event, the end of the stream, `limit` frames, or 60 s.
pub async fn read_sse(
    server: &Server,
    id: &str,
    last_event_id: Option<&str>,
    query: &str,
    limit: usize,
) -> Vec<Frame> {
    let mut stream = SseStream::open(server, id, last_event_id, query).await;
    stream.take(limit).await
}

pub fn seqs(frames: &[Frame]) -> Vec<u64> {
    frames
        .iter()
        .map(|f| f.data["seq"].as_u64().expect("seq"))
        .collect()
}
