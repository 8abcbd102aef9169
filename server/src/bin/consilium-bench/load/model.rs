//! `consilium-bench load --model ADDR`: a fake OpenAI-compatible model, served over real HTTP for the
//! run, for the server under test to call (`OPENAI_BASE_URL=http://ADDR/v1`). Each reply takes a
//! fixed time; streamed, a piece goes out every `piece` meanwhile, each carrying the time it
//! was sent (`t<Unix µs>`), so a viewer can time a piece from the model to its socket (LM-3).
//! It counts the calls in flight, for LM-1's figures.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use bytes::Bytes;
use serde_json::{json, Value};

use super::{percentile, spread, LoadArgs, Seen};
use server::cli::CliError;
use server::outln;

/// How the fake model answers.
#[derive(Clone)]
pub struct Model {
    /// The whole reply takes this long.
    pub latency: Duration,
    /// A streamed piece this often (zero: the reply comes whole, not streamed).
    pub piece: Duration,
    pub counts: Arc<Counts>,
}

/// Calls in flight, now and at most, in all and for challenges alone.
#[derive(Default)]
pub struct Counts {
    now: AtomicUsize,
    pub most: AtomicUsize,
    challenges_now: AtomicUsize,
    pub most_challenges: AtomicUsize,
    pub calls: AtomicUsize,
}

struct InFlight(Arc<Counts>, bool);

impl InFlight {
    fn enter(c: &Arc<Counts>, challenge: bool) -> InFlight {
        c.calls.fetch_add(1, Ordering::Relaxed);
        let n = c.now.fetch_add(1, Ordering::SeqCst) + 1;
        c.most.fetch_max(n, Ordering::SeqCst);
        if challenge {
            let n = c.challenges_now.fetch_add(1, Ordering::SeqCst) + 1;
            c.most_challenges.fetch_max(n, Ordering::SeqCst);
        }
        InFlight(c.clone(), challenge)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.now.fetch_sub(1, Ordering::SeqCst);
        if self.1 {
            self.0.challenges_now.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn unix_us() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

/// The sending time a piece carries (`t<Unix µs>`), in Unix ms.
pub fn sent_ms(text: &str) -> Option<f64> {
    let digits: String = text
        .split_once('t')?
        .1
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<u128>().ok().map(|us| us as f64 / 1000.0)
}

async fn chat(State(m): State<Model>, Json(body): Json<Value>) -> Response {
    let user = body["messages"][1]["content"].as_str().unwrap_or("");
    let challenge = user.contains("\"argues_for\"");
    let (open, close) = if challenge {
        (r#"{"argues_for": "WARN", "text": ""#, r#""}"#)
    } else {
        (
            r#"{"decision": "WARN", "confidence": 60, "risk": 30, "reasoning": ""#,
            r#""}"#,
        )
    };
    let guard = InFlight::enter(&m.counts, challenge);
    let usage = json!({"prompt_tokens": 200, "completion_tokens": 60});
    if body["stream"] != true || m.piece.is_zero() {
        tokio::time::sleep(m.latency).await;
        drop(guard);
        let text = format!("{open}Careful: a measured step first.{close}");
        return Json(json!({
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": usage,
        }))
        .into_response();
    }
    let n = (m.latency.as_millis() / m.piece.as_millis().max(1)).max(1) as usize;
    let piece = m.piece;
    let chunk = |content: String| -> Result<Bytes, std::convert::Infallible> {
        let v = json!({"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]});
        Ok(Bytes::from(format!("data: {v}\n\n")))
    };
    // Pieces 0..n carry their sending time; then the end, the usage and [DONE].
    let stream = futures::stream::unfold((0usize, Some(guard)), move |(i, guard)| {
        let usage = usage.clone();
        async move {
            let guard = guard?;
            if i < n {
                tokio::time::sleep(piece).await;
                let lead = if i == 0 { open } else { "" };
                return Some((
                    chunk(format!("{lead}t{} ", unix_us())),
                    (i + 1, Some(guard)),
                ));
            }
            drop(guard);
            let end = json!({"choices": [{"index": 0, "delta": {"content": close}, "finish_reason": "stop"}]});
            let tail = format!(
                "data: {end}\n\ndata: {}\n\ndata: [DONE]\n\n",
                json!({"choices": [], "usage": usage})
            );
            Some((Ok(Bytes::from(tail)), (i + 1, None)))
        }
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// Serves `model` at `addr` until the process ends.
pub async fn serve(addr: &str, model: Model) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr} for the fake model: {e}"))?;
    let app = Router::new()
        .route("/v1/chat/completions", axum::routing::post(chat))
        .with_state(model);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(())
}

/// `--model`: the fake model, served for the run; its counts of calls in flight.
pub(super) async fn serve_for(args: &LoadArgs) -> Result<Arc<Counts>, CliError> {
    let counts = Arc::new(Counts::default());
    if let Some(at) = &args.model {
        let m = Model {
            latency: Duration::from_millis(args.model_latency_ms),
            piece: Duration::from_millis(args.piece_ms),
            counts: counts.clone(),
        };
        serve(at, m).await.map_err(CliError::Bench)?;
    }
    Ok(counts)
}

/// LM-1/LM-3 with `--model`: calls in flight, each debate's wall time (its start to the first
/// viewer that saw its decision), and the streamed pieces' latency.
pub(super) fn report(args: &LoadArgs, started: &[f64], seen: &[Seen], counts: &Counts) {
    let mut walls: Vec<f64> = started
        .iter()
        .enumerate()
        .filter_map(|(d, at)| {
            seen.iter()
                .enumerate()
                .filter(|(v, s)| v % started.len() == d && s.ended)
                .map(|(_, s)| s.ended_at)
                .reduce(f64::min)
                .map(|end| (end - at) / 1000.0)
        })
        .collect();
    walls.sort_by(f64::total_cmp);
    outln!(
        "model: {} calls, at most {} in flight ({} of them challenges); each reply {} ms{}",
        counts.calls.load(Ordering::Relaxed),
        counts.most.load(Ordering::SeqCst),
        counts.most_challenges.load(Ordering::SeqCst),
        args.model_latency_ms,
        if args.piece_ms == 0 {
            ", not streamed".to_owned()
        } else {
            format!(", streamed a piece every {} ms", args.piece_ms)
        }
    );
    outln!(
        "debate wall time (start to its decision at a viewer): min {:.2} s, median {:.2} s, max {:.2} s",
        walls.first().copied().unwrap_or(0.0),
        percentile(&walls, 50.0),
        walls.last().copied().unwrap_or(0.0)
    );
    let mut pieces: Vec<f64> = seen.iter().flat_map(|s| s.deltas.iter().copied()).collect();
    pieces.sort_by(f64::total_cmp);
    if !pieces.is_empty() {
        outln!(
            "streamed pieces, sent by the model → arrived at a viewer: {} deliveries, {}, max {:.1} ms",
            pieces.len(),
            spread(&pieces),
            pieces.last().copied().unwrap_or(0.0)
        );
    }
    outln!(
        "model: viewers={} calls_in_flight_max={} challenges_in_flight_max={} wall_median_s={:.2} pieces={} piece_p50_ms={:.1} piece_p99_ms={:.1}",
        args.viewers,
        counts.most.load(Ordering::SeqCst),
        counts.most_challenges.load(Ordering::SeqCst),
        percentile(&walls, 50.0),
        pieces.len(),
        percentile(&pieces, 50.0),
        percentile(&pieces, 99.0)
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_piece_says_when_it_was_sent() {
        assert_eq!(
            super::sent_ms("{\"reasoning\": \"t1700000000123456 "),
            Some(1_700_000_000_123.456)
        );
        assert_eq!(super::sent_ms("no time"), None);
    }
}
