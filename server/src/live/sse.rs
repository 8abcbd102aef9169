//! SV-3: the event stream of one debate. Backlog from the database, then live events, with no gap
//! and no duplicate; it ends after the terminal event.

use std::convert::Infallible;
use std::time::Duration;

use app::protocol::Event;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::IntoResponse;
use futures::Stream;
use serde::Deserialize;
use tokio::sync::broadcast::{self, error::RecvError};

use crate::access::client::ClientAddr;
use crate::access::SharedAccess;
use crate::engine::Engine;
use crate::http::error::AppError;
use crate::http::extract::{not_found, DebateId};

/// SSE comment lines keep idle connections (and proxies) alive.
pub const KEEP_ALIVE: Duration = Duration::from_secs(10);
/// How often a stream without a live channel in this process re-reads the log (SQLite).
const POLL: Duration = Duration::from_millis(250);
/// With PostgreSQL, a stream following another process's debate re-reads the log when notified;
/// this is only the safety net.
const SAFETY_POLL: Duration = Duration::from_secs(2);

#[allow(clippy::too_many_lines)] // backlog, then live, in one place so no gap can open between them
pub async fn handler(
    State(engine): State<Engine>,
    State(access): State<SharedAccess>,
    ClientAddr(client): ClientAddr,
    DebateId(id): DebateId,
    headers: HeaderMap,
    query: Result<Query<EventsQuery>, QueryRejection>,
) -> Result<EventStream, AppError> {
    let after = resume_cursor(&headers, &parse_query(query)?)?;
    // One place among this address's open streams, given back when the stream is dropped.
    let place = access.limits.stream(client)?;
    // Subscribe before reading the backlog: whatever is appended in between arrives live (from
    // this process's hub) or wakes the stream up (from another process, via PostgreSQL).
    let live = engine.hub.subscribe(&id);
    let mut changes = engine.store.changes();
    let Some(status) = engine.store.status(&id).await? else {
        return Err(not_found(&id));
    };
    // Nothing will ever follow the cursor of an ended debate: 204 tells EventSource to stop
    // reconnecting (an empty 200 would make it retry every few seconds, forever).
    if status.is_over() {
        let end = engine.store.last_event(&id).await?.map_or(0, |e| e.seq);
        if after >= end {
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
    }
    let store = engine.store.clone();
    let hub = engine.hub.clone();
    let stream = async_stream(move |tx| async move {
        let mut last = after;
        let send = |events: Vec<Event>, last: &mut u64| {
            let mut done = false;
            let mut out = Vec::with_capacity(events.len());
            for e in events {
                if e.seq <= *last {
                    continue;
                }
                *last = e.seq;
                done |= e.body.is_terminal();
                out.push(e);
            }
            (out, done)
        };
        let backlog = match store.events_after(&id, last).await {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(debate = %id, "reading the log failed: {e}");
                return;
            }
        };
        let (out, mut done) = send(backlog, &mut last);
        for e in out {
            if tx.send(Out::Event(e)).await.is_err() {
                return;
            }
        }
        // A run whose log could not be stored (issue 19: a full disk): say so, then end, so
        // the page shows why instead of reconnecting forever.
        if !done {
            if let Some(reason) = hub.failure(&id) {
                let _ = tx.send(Out::Failed(reason)).await;
                return;
            }
        }
        let mut live = live;
        while !done {
            let fresh = match live.as_mut() {
                Some(rx) => match rx.recv().await {
                    Ok(e) => vec![(*e).clone()],
                    // Fell behind or the run ended: the database has everything.
                    Err(RecvError::Lagged(_)) => read(&store, &id, last).await,
                    Err(RecvError::Closed) => {
                        live = None;
                        let fresh = read(&store, &id, last).await;
                        // The run ended but its end could not be stored: nothing more will come.
                        if fresh.is_empty() {
                            if let Some(reason) = hub.failure(&id) {
                                tracing::warn!(debate = %id, "ending a live stream: the log could not be stored");
                                let _ = tx.send(Out::Failed(reason)).await;
                                return;
                            }
                        }
                        fresh
                    }
                },
                None => {
                    let mut fresh = read(&store, &id, last).await;
                    if fresh.is_empty() {
                        // Nothing new: a debate no longer running will never add more. Its final
                        // status commits with its terminal event, so re-read once to get it.
                        if !matches!(store.status(&id).await, Ok(Some(s)) if !s.is_over()) {
                            fresh = read(&store, &id, last).await;
                            if fresh.is_empty() {
                                return;
                            }
                        } else if let Some(reason) = hub.failure(&id) {
                            let _ = tx.send(Out::Failed(reason)).await;
                            return;
                        } else {
                            match changes.as_mut() {
                                Some(rx) => wait_for_change(rx, &id).await,
                                None => tokio::time::sleep(POLL).await,
                            }
                        }
                    }
                    fresh
                }
            };
            let (out, finished) = send(fresh, &mut last);
            done = finished;
            for e in out {
                if tx.send(Out::Event(e)).await.is_err() {
                    return;
                }
            }
        }
    });
    let mut closing = engine.closing.subscribe();
    let stream = futures::StreamExt::map(stream, move |e| {
        let _held = &place;
        e
    });
    // Shutdown ends the stream (the client reconnects to whichever server is up next).
    let stream = futures::StreamExt::take_until(stream, async move {
        let _ = closing.wait_for(|c| *c).await;
    });
    Ok(sse_response(stream))
}

async fn read(store: &crate::db::Store, id: &str, after: u64) -> Vec<Event> {
    store.events_after(id, after).await.unwrap_or_else(|e| {
        tracing::error!(debate = %id, "reading the log failed: {e}");
        Vec::new()
    })
}

/// Returns when another process may have appended to debate `id`: a notification for it, a hint
/// that notifications were lost, or the safety-net timeout.
async fn wait_for_change(rx: &mut broadcast::Receiver<String>, id: &str) {
    let deadline = tokio::time::Instant::now() + SAFETY_POLL;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Ok(changed)) if changed == id || changed.is_empty() => return,
            Ok(Ok(_)) => continue,
            Ok(Err(RecvError::Lagged(_))) => return,
            Ok(Err(RecvError::Closed)) => {
                tokio::time::sleep(POLL).await;
                return;
            }
            Err(_timeout) => return,
        }
    }
}

/// A stream fed by a task through a small channel; the task stops when the client goes away.
fn async_stream<F, Fut>(f: F) -> impl futures::Stream<Item = Out> + Send + 'static
where
    F: FnOnce(tokio::sync::mpsc::Sender<Out>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    tokio::spawn(f(tx));
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    /// The resume cursor for clients that cannot send `Last-Event-ID` (page reloads).
    pub after: Option<String>,
}

/// SV-3: `Last-Event-ID` (sent by EventSource on reconnect) wins over `?after=`.
pub fn resume_cursor(headers: &HeaderMap, query: &EventsQuery) -> Result<u64, AppError> {
    let raw = match headers.get("last-event-id") {
        Some(v) => Some(
            v.to_str()
                .map_err(|_| {
                    AppError::BadRequest("Last-Event-ID must be a sequence number".into())
                })?
                .to_owned(),
        ),
        None => query.after.clone(),
    };
    match raw.as_deref().map(str::trim) {
        None | Some("") => Ok(0),
        Some(s) => s.parse::<u64>().map_err(|_| {
            let shown: String = s.chars().take(32).collect();
            AppError::BadRequest(format!(
                "resume cursor '{shown}' is not a sequence number (expected a non-negative integer)"
            ))
        }),
    }
}

pub type EventStream = axum::response::Response;

/// What a stream sends: a log event (`id:` its sequence number), or — once, as its last frame —
/// why the log cannot go on (`event: failed`, `data: {"error": …}`).
#[allow(clippy::large_enum_variant)] // one event per frame, moved once: boxing buys nothing
pub enum Out {
    Event(Event),
    Failed(String),
}

pub fn sse_response(stream: impl Stream<Item = Out> + Send + 'static) -> EventStream {
    use futures::StreamExt;
    let stream = stream.map(|out| match out {
        Out::Event(e) => {
            let data = serde_json::to_string(&e).unwrap_or_default();
            axum::response::sse::Event::default()
                .id(e.seq.to_string())
                .data(data)
        }
        Out::Failed(error) => axum::response::sse::Event::default()
            .event("failed")
            .data(serde_json::json!({ "error": error }).to_string()),
    });
    Sse::new(stream.map(Ok::<_, Infallible>))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}

pub fn parse_query(
    q: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<EventsQuery, AppError> {
    q.map(|Query(q)| q)
        .map_err(|e| AppError::BadRequest(format!("invalid query string: {}", e.body_text())))
}
