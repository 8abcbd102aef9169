//! SV-3: the event stream of one debate. Backlog from the database, then live events, with no gap
//! and no duplicate; it ends after the terminal event.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use app::protocol::Event;
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::IntoResponse;
use bytes::Bytes;
use futures::Stream;
use serde::Deserialize;
use tokio::sync::broadcast::{self, error::RecvError};

use crate::access::client::ClientAddr;
use crate::access::SharedAccess;
use crate::engine::Engine;
use crate::http::error::AppError;
use crate::http::extract::{not_found, DebateId};
use crate::live::hub::Frame;

/// SSE comment lines keep idle connections (and proxies) alive.
pub const KEEP_ALIVE: Duration = Duration::from_secs(10);
/// How often a stream without a live channel in this process re-reads the log (SQLite).
const POLL: Duration = Duration::from_millis(250);
/// With PostgreSQL, a stream following another process's debate re-reads the log when notified;
/// this is only the safety net.
const SAFETY_POLL: Duration = Duration::from_secs(2);
/// SV-15: a stream reads the stored log this many events at a time, the next page only once the
/// last is sent: a viewer that does not read holds one page, not the whole log.
pub const PAGE: u32 = 100;

/// A debate's events as Server-Sent Events: the log after the cursor, then each event as it is
/// appended, until the log's end.
///
/// Each message is one event: `id:` its `seq`, `data:` its JSON (an `Event`). A stream that
/// cannot go on ends with one `event: failed` message whose data is `{"error": …}`. Comment
/// lines keep an idle connection alive.
///
/// LM-3: while a debate runs in this process, pieces of replies being written come as
/// `event: delta` messages with no `id:` — `{"request": N, "agent": "<name>", "text": "<piece>"}`,
/// and `{"request": N, "agent": …, "text": "", "done": true}` once that reply's events are
/// out. They are never stored: a viewer who connects mid-reply gets the pieces from then on.
#[utoipa::path(
    get,
    operation_id = "debate_events",
    path = "/debates/{id}/events",
    tag = "live",
    params(
        ("id" = String, Path, description = "The debate's id"),
        EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The resume cursor EventSource sends on reconnect; wins over `after`"),
    ),
    responses(
        (status = 200, description = "The stream; its messages' data are `Event`s", body = String, content_type = "text/event-stream"),
        (status = 204, description = "Nothing follows the cursor: the debate ended there (EventSource stops reconnecting)"),
        (status = 400, description = "A cursor that is not a sequence number, or a bad query string", body = app::api::ErrorBody),
        (status = 404, description = "No debate with this id", body = app::api::ErrorBody),
        (status = 429, description = "Too many open streams from this address; see `Retry-After`", body = app::api::ErrorBody),
    )
)]
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
    let live = engine.hub.follow(&id);
    let changes = engine.store.changes();
    match &live {
        // Running here: it exists, and the hub has its log so far (a crowd of new viewers
        // costs no database read).
        Some(live) => {
            if live
                .so_far
                .last()
                .is_some_and(|f| f.terminal && after >= f.seq)
            {
                return Ok(StatusCode::NO_CONTENT.into_response());
            }
        }
        None => {
            let Some(status) = engine.store.status(&id).await? else {
                return Err(not_found(&id));
            };
            // Nothing will ever follow the cursor of an ended debate: 204 tells EventSource to
            // stop reconnecting (an empty 200 would make it retry every few seconds, forever).
            if status.is_over() {
                let end = engine.store.last_event(&id).await?.map_or(0, |e| e.seq);
                if after >= end {
                    return Ok(StatusCode::NO_CONTENT.into_response());
                }
            }
        }
    }
    let (so_far, live) = match live {
        Some(l) => (l.so_far, Some(l.rx)),
        None => (Vec::new(), None),
    };
    let follow = Follow {
        id,
        store: engine.store.clone(),
        hub: engine.hub.clone(),
        so_far,
        live,
        changes,
        last: after,
        started: false,
        backlog_left: false,
        from_memory: false,
        done: false,
        pending: std::collections::VecDeque::new(),
    };
    // Polled by the response itself: no task and no channel per viewer between the hub and
    // the socket (with thousands of viewers, every hop would be a wake-up per event), and
    // nothing allocated per live event.
    let stream = futures::stream::unfold(follow, |mut f| async move {
        loop {
            if let Some(out) = f.pending.pop_front() {
                return Some((out, f));
            }
            if !f.fill().await {
                return None;
            }
        }
    });
    let stream = futures::StreamExt::map(stream, move |e| {
        let _held = &place;
        e
    });
    // Shutdown ends the stream (the client reconnects to whichever server is up next).
    Ok(sse_response(stream, engine.closing.waiter()))
}

/// One viewer's place in a debate's log: the backlog after its cursor, then what is appended,
/// with no gap and no duplicate, until the log's end (SV-3).
struct Follow {
    id: String,
    store: crate::db::Store,
    hub: Arc<crate::live::hub::Hub>,
    /// The log so far as this process's hub had it when the stream began (empty when the
    /// debate does not run here): the backlog, without reading the store when it reaches back
    /// to the cursor.
    so_far: Vec<Arc<Frame>>,
    /// This process's live channel of the debate, while it runs here.
    live: Option<broadcast::Receiver<Arc<Frame>>>,
    /// PostgreSQL: other processes' appends.
    changes: Option<broadcast::Receiver<String>>,
    /// The last sequence number sent.
    last: u64,
    started: bool,
    /// SV-15: the stored backlog has more pages to send before `so_far`.
    backlog_left: bool,
    /// The hub's copy reaches back to the cursor: no stored backlog to read.
    from_memory: bool,
    done: bool,
    /// What is to be sent next, in order.
    pending: std::collections::VecDeque<Out>,
}

/// What the live channel or the store had.
enum Polled {
    /// The live channel's next event.
    One(Arc<Frame>),
    Frames(Vec<Arc<Frame>>),
    /// The debate is over and everything was sent.
    Over,
    /// Its run ended without its end stored: why.
    Failed(String),
}

impl Follow {
    /// Queues what to send next, in order; `false` once the stream is over.
    async fn fill(&mut self) -> bool {
        if !self.started || self.backlog_left {
            return self.backlog().await;
        }
        while !self.done {
            let polled = if self.live.is_some() {
                self.poll_hub().await
            } else {
                self.poll_store().await
            };
            match polled {
                Polled::One(frame) => {
                    if self.take(std::iter::once(frame)) {
                        return true;
                    }
                }
                Polled::Frames(fresh) => {
                    if self.take(fresh) {
                        return true;
                    }
                }
                Polled::Over => return false,
                Polled::Failed(reason) => {
                    self.done = true;
                    self.pending.push_back(Out::Failed(reason));
                    return true;
                }
            }
        }
        false
    }

    /// The log after the cursor: from the hub when what it has reaches back to the cursor, else
    /// from the store first, a page per call (the hub's copy then only fills in what came
    /// since). `false` when the store could not be read.
    async fn backlog(&mut self) -> bool {
        if !self.started {
            self.started = true;
            self.from_memory = self.so_far.first().is_some_and(|f| f.seq <= self.last + 1);
        }
        if !self.from_memory {
            match self.store.events_page(&self.id, self.last, PAGE).await {
                Ok(page) => {
                    let full = page.len() == PAGE as usize;
                    self.take(frames(page));
                    self.backlog_left = full && !self.done;
                    if self.backlog_left {
                        return true;
                    }
                }
                Err(e) => {
                    tracing::error!(debate = %self.id, "reading the log failed: {e}");
                    return false;
                }
            }
        }
        let so_far = std::mem::take(&mut self.so_far);
        self.take(so_far);
        // A run whose log could not be stored (as on a full disk): say so, then end, so the
        // page shows why instead of reconnecting forever.
        if !self.done {
            if let Some(reason) = self.hub.failure(&self.id) {
                self.pending.push_back(Out::Failed(reason));
                self.done = true;
            }
        }
        true
    }

    /// The next event from this process's live channel; the store when the channel fell behind
    /// or the run ended (it has everything).
    async fn poll_hub(&mut self) -> Polled {
        let Some(rx) = self.live.as_mut() else {
            return Polled::Frames(Vec::new());
        };
        match rx.recv().await {
            Ok(f) => Polled::One(f),
            Err(RecvError::Lagged(_)) => {
                // Fallen behind the channel: follow the store from here, a page at a time, so
                // nothing between the page and the channel's next event is skipped.
                self.live = None;
                Polled::Frames(read(&self.store, &self.id, self.last).await)
            }
            Err(RecvError::Closed) => {
                self.live = None;
                let fresh = read(&self.store, &self.id, self.last).await;
                // The run ended but its end could not be stored: nothing more will come.
                if fresh.is_empty() {
                    if let Some(reason) = self.hub.failure(&self.id) {
                        tracing::warn!(debate = %self.id, "ending a live stream: the log could not be stored");
                        return Polled::Failed(reason);
                    }
                }
                Polled::Frames(fresh)
            }
        }
    }

    /// Without a live channel here: what the store has after the cursor, waiting for a change
    /// when it has nothing yet (then nothing, to be asked again).
    async fn poll_store(&mut self) -> Polled {
        let fresh = read(&self.store, &self.id, self.last).await;
        if !fresh.is_empty() {
            return Polled::Frames(fresh);
        }
        // Nothing new: a debate no longer running will never add more. Its final status commits
        // with its terminal event, so re-read once to get it.
        if !matches!(self.store.status(&self.id).await, Ok(Some(s)) if !s.is_over()) {
            let fresh = read(&self.store, &self.id, self.last).await;
            return if fresh.is_empty() {
                Polled::Over
            } else {
                Polled::Frames(fresh)
            };
        }
        if let Some(reason) = self.hub.failure(&self.id) {
            return Polled::Failed(reason);
        }
        match self.changes.as_mut() {
            Some(rx) => wait_for_change(rx, &self.id).await,
            None => tokio::time::sleep(POLL).await,
        }
        Polled::Frames(Vec::new())
    }

    /// Queues the frames after the cursor, in order, and moves the cursor past them; `true`
    /// when there was one.
    fn take(&mut self, frames: impl IntoIterator<Item = Arc<Frame>>) -> bool {
        let before = self.pending.len();
        for f in frames {
            // LM-3: a delta goes out as it comes, outside the log's order and cursor.
            if f.is_delta() {
                self.pending.push_back(Out::Event(f));
                continue;
            }
            if f.seq <= self.last {
                continue;
            }
            self.last = f.seq;
            self.done = f.terminal;
            self.pending.push_back(Out::Event(f));
        }
        self.pending.len() > before
    }
}

/// The next page of the stored log after `after` (SV-15): the polling that follows asks again.
async fn read(store: &crate::db::Store, id: &str, after: u64) -> Vec<Arc<Frame>> {
    let events = store
        .events_page(id, after, PAGE)
        .await
        .unwrap_or_else(|e| {
            tracing::error!(debate = %id, "reading the log failed: {e}");
            Vec::new()
        });
    frames(events)
}

/// Stored events as the frames a stream sends.
fn frames(events: Vec<Event>) -> Vec<Arc<Frame>> {
    events.iter().map(|e| Arc::new(Frame::of(e))).collect()
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

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The resume cursor for clients that cannot send `Last-Event-ID` (page reloads): the last
    /// `seq` seen.
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
pub enum Out {
    Event(Arc<Frame>),
    Failed(String),
}

impl Out {
    /// The SSE message as sent. A log event's was rendered once for all its viewers.
    fn bytes(self) -> Bytes {
        match self {
            Out::Event(f) => f.sse.clone(),
            Out::Failed(error) => Bytes::from(format!(
                "event: failed\ndata: {}\n\n",
                serde_json::json!({ "error": error })
            )),
        }
    }
}

/// A `text/event-stream` response of `stream`'s messages, with a comment line once the stream
/// has been quiet for [`KEEP_ALIVE`] (idle connections and proxies stay open), ending when
/// `closing` begins. The messages go out as they were rendered: nothing is formatted per viewer.
pub fn sse_response(
    stream: impl Stream<Item = Out> + Send + 'static,
    closing: crate::live::closing::Waiter,
) -> EventStream {
    let body = KeepAlive {
        inner: Box::pin(futures::StreamExt::map(stream, Out::bytes)),
        tick: Box::pin(tokio::time::sleep(KEEP_ALIVE / 2)),
        sent: false,
        closing,
    };
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// A stream of SSE messages with a keep-alive comment whenever it was quiet for a whole
/// [`KEEP_ALIVE`], which ends at shutdown. Its timer ticks every half [`KEEP_ALIVE`] and is not
/// touched by the messages (re-arming it for every message of every viewer would be a
/// timer-wheel update per delivery), so a comment follows 5–10 s of quiet.
struct KeepAlive {
    inner: futures::stream::BoxStream<'static, Bytes>,
    tick: Pin<Box<tokio::time::Sleep>>,
    /// Something went out since the last tick.
    sent: bool,
    closing: crate::live::closing::Waiter,
}

impl Stream for KeepAlive {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.closing.poll_begun(cx) {
            return Poll::Ready(None);
        }
        match self.inner.as_mut().poll_next(cx) {
            Poll::Ready(Some(message)) => {
                self.sent = true;
                return Poll::Ready(Some(Ok(message)));
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        while self.tick.as_mut().poll(cx).is_ready() {
            let quiet = !std::mem::replace(&mut self.sent, false);
            let next = tokio::time::Instant::now() + KEEP_ALIVE / 2;
            self.tick.as_mut().reset(next);
            if quiet {
                // The comment counts as sent: while idle, one every KEEP_ALIVE.
                self.sent = true;
                return Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n"))));
            }
        }
        Poll::Pending
    }
}

pub fn parse_query(
    q: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<EventsQuery, AppError> {
    q.map(|Query(q)| q)
        .map_err(|e| AppError::BadRequest(format!("invalid query string: {}", e.body_text())))
}

#[cfg(test)]
mod tests;
