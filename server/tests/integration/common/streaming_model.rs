//! A fake OpenAI-compatible endpoint for LM-1…LM-5, over real HTTP: a fixed latency, a count of
//! the calls in flight (and the most at once), replies streamed piece by piece, and per-agent
//! misbehaviour (a stream cut off mid-reply, a stream that never ends, a 429 with
//! `Retry-After`, a refusal of `stream`).

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use bytes::Bytes;
use serde_json::{json, Value};

use super::{fakes, serve_http};

/// What an agent's calls do wrong.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Wrong {
    Nothing,
    /// The stream stops halfway, without its end.
    Cut,
    /// One piece, then the stream stays open and silent.
    Endless,
    /// Each request's first attempt is answered 429 with `Retry-After: 1`.
    Throttle,
}

#[derive(Clone)]
pub struct Model {
    pub latency: Duration,
    /// Between streamed pieces.
    pub piece: Duration,
    pub refuse_stream: bool,
    pub wrong: fn(&str) -> Wrong,
    pub in_flight: Arc<AtomicUsize>,
    pub max_in_flight: Arc<AtomicUsize>,
    /// Every call that reached the model.
    pub calls: Arc<AtomicUsize>,
    pub streamed: Arc<AtomicUsize>,
    pub refused: Arc<AtomicUsize>,
    pub throttled: Arc<Mutex<HashSet<String>>>,
}

impl Model {
    pub fn new(latency_ms: u64, piece_ms: u64) -> Model {
        Model {
            latency: Duration::from_millis(latency_ms),
            piece: Duration::from_millis(piece_ms),
            refuse_stream: false,
            wrong: |_| Wrong::Nothing,
            in_flight: Arc::default(),
            max_in_flight: Arc::default(),
            calls: Arc::default(),
            streamed: Arc::default(),
            refused: Arc::default(),
            throttled: Arc::default(),
        }
    }
}

/// Counts a call in flight from its arrival until its reply (or stream) is done or dropped.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn enter(m: &Model) -> InFlight {
        m.calls.fetch_add(1, Ordering::SeqCst);
        let now = m.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        m.max_in_flight.fetch_max(now, Ordering::SeqCst);
        InFlight(m.in_flight.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn chunk(v: &Value) -> Result<Bytes, Infallible> {
    Ok(Bytes::from(format!("data: {v}\n\n")))
}

async fn chat(State(m): State<Model>, Json(body): Json<Value>) -> Response {
    let agent = fakes::agent_of(&body);
    let wrong = (m.wrong)(&agent);
    let stream = body["stream"] == true;
    if stream && m.refuse_stream {
        m.refused.fetch_add(1, Ordering::SeqCst);
        let e = json!({"error": {"message": "stream is not supported by this server"}});
        return (StatusCode::BAD_REQUEST, Json(e)).into_response();
    }
    if wrong == Wrong::Throttle
        && m.throttled
            .lock()
            .expect("lock")
            .insert(body["seed"].to_string())
    {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, "1")],
            "slow down",
        )
            .into_response();
    }
    let guard = InFlight::enter(&m);
    tokio::time::sleep(m.latency).await;
    let user = body["messages"][1]["content"].as_str().unwrap_or("");
    let answer = fakes::good_answer(user, "The plan holds up: it is tested and reversible.", 70);
    if !stream {
        drop(guard);
        return Json(fakes::completion(&answer, 100)).into_response();
    }
    m.streamed.fetch_add(1, Ordering::SeqCst);
    let chars: Vec<char> = answer.chars().collect();
    let mut pieces: Vec<String> = chars.chunks(12).map(|c| c.iter().collect()).collect();
    let mut frames: Vec<Value> = Vec::new();
    if wrong == Wrong::Cut {
        pieces.truncate(pieces.len() / 2);
    }
    if wrong == Wrong::Endless {
        pieces.truncate(1);
    }
    for p in &pieces {
        frames.push(
            json!({"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]}),
        );
    }
    let complete = wrong == Wrong::Nothing || wrong == Wrong::Throttle;
    if complete {
        frames.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
        frames
            .push(json!({"choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 30}}));
    }
    let piece = m.piece;
    let stream = futures::stream::unfold(
        (frames.into_iter(), guard, false),
        move |(mut rest, guard, done)| async move {
            if done {
                return None;
            }
            tokio::time::sleep(piece).await;
            match rest.next() {
                Some(v) => Some((chunk(&v), (rest, guard, false))),
                None if complete => {
                    Some((Ok(Bytes::from("data: [DONE]\n\n")), (rest, guard, true)))
                }
                None if wrong == Wrong::Endless => {
                    // Silent and open, until the caller gives up (which drops this).
                    std::future::pending::<()>().await;
                    None
                }
                None => None,
            }
        },
    );
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}

pub async fn start_model(m: Model) -> String {
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(m);
    serve_http(app).await
}
