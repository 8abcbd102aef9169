//! AG-2 for the remote kinds: every HTTP call has a per-attempt timeout, bounded retries with
//! exponential backoff, a cap on the reply size, and a record of its attempts and wall time.

use std::time::{Duration, Instant};

use serde_json::Value;

/// How remote agent calls behave. Defaults suit a local model server and a hosted API alike.
#[derive(Clone, Debug)]
pub struct CallPolicy {
    /// One attempt (connect, send, read the whole reply) may take this long.
    pub timeout: Duration,
    /// Extra attempts after a retryable failure (connection error, timeout, 429, 5xx).
    pub retries: u32,
    /// Wait before retry k (1-based): `backoff · 2^(k−1)`.
    pub backoff: Duration,
    /// Larger replies are refused without reading further.
    pub max_reply_bytes: usize,
    /// LM-2: the longest wait a `Retry-After` may ask for; a longer one waits this long.
    pub max_retry_after: Duration,
}

impl Default for CallPolicy {
    fn default() -> Self {
        CallPolicy {
            timeout: Duration::from_secs(60),
            retries: 2,
            backoff: Duration::from_millis(500),
            max_reply_bytes: 256 * 1024,
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl CallPolicy {
    /// The longest a whole call can take, every attempt and wait included: the runner's bound.
    pub fn worst_case(&self) -> Duration {
        let waits: Duration = (1..=self.retries)
            .map(|k| self.backoff_before(k).max(self.max_retry_after))
            .sum();
        self.timeout * (self.retries + 1) + waits + Duration::from_secs(1)
    }

    fn backoff_before(&self, retry: u32) -> Duration {
        self.backoff * 2u32.saturating_pow(retry.saturating_sub(1).min(10))
    }
}

/// The outcome of one call after retries.
pub struct Call {
    /// The parsed JSON body of a 2xx reply, or the reason there is none.
    pub body: Result<Value, String>,
    pub attempts: u32,
    pub latency_ms: u64,
    /// LM-2: time waited as the endpoint asked (`Retry-After`).
    pub retry_after_ms: u64,
    /// LM-3: the body was read from a stream.
    pub streamed: bool,
}

enum Attempt {
    Done(Value),
    /// Worth another try, after the wait the endpoint asked for, if it asked (`Retry-After`).
    Retry(String, Option<Duration>),
    /// Will not get better by asking again.
    Fail(String),
}

/// How a call reads a streamed reply (LM-3): its dialect and where the pieces go.
#[derive(Clone, Copy)]
pub struct Streaming<'a> {
    pub dialect: super::stream::Dialect,
    pub sink: super::stream::Sink<'a>,
}

/// POSTs `payload` to `url` (with `bearer` when given), retrying what is worth retrying.
pub async fn post_json(
    client: &reqwest::Client,
    policy: &CallPolicy,
    url: &str,
    bearer: Option<&str>,
    payload: &Value,
) -> Call {
    post(client, policy, url, bearer, payload, None).await
}

/// [`post_json`], reading a streamed reply as it comes when `streaming` is given and the
/// endpoint answers with a stream. Once a piece went to the viewers, a failure is not retried
/// (asking again would show them the text twice).
pub async fn post(
    client: &reqwest::Client,
    policy: &CallPolicy,
    url: &str,
    bearer: Option<&str>,
    payload: &Value,
    streaming: Option<Streaming<'_>>,
) -> Call {
    let started = Instant::now();
    let mut attempts = 0;
    let mut waited = Duration::ZERO;
    let streamed = std::sync::atomic::AtomicBool::new(false);
    let body = loop {
        attempts += 1;
        let outcome = match tokio::time::timeout(
            policy.timeout,
            attempt(client, policy, url, bearer, payload, streaming, &streamed),
        )
        .await
        {
            Ok(outcome) => outcome,
            Err(_) if streamed.load(std::sync::atomic::Ordering::Relaxed) => {
                Attempt::Fail(format!(
                    "the stream did not end within {} s",
                    policy.timeout.as_secs_f32()
                ))
            }
            Err(_) => Attempt::Retry(
                format!("no reply within {} s", policy.timeout.as_secs_f32()),
                None,
            ),
        };
        match outcome {
            Attempt::Done(v) => break Ok(v),
            Attempt::Fail(e) => break Err(e),
            Attempt::Retry(e, _) if attempts > policy.retries => {
                break Err(if attempts > 1 {
                    format!("{e} (after {attempts} attempts)")
                } else {
                    e
                })
            }
            Attempt::Retry(e, after) => {
                let url = crate::db::redact(url);
                let wait = match after {
                    Some(asked) => {
                        let wait = asked.min(policy.max_retry_after);
                        waited += wait;
                        tracing::info!(
                            url,
                            attempts,
                            "the endpoint asked to wait {} ms: {e}",
                            wait.as_millis()
                        );
                        wait
                    }
                    None => {
                        tracing::debug!(url, attempts, "agent call failed, retrying: {e}");
                        policy.backoff_before(attempts)
                    }
                };
                tokio::time::sleep(wait).await;
            }
        }
    };
    Call {
        body,
        attempts,
        latency_ms: started.elapsed().as_millis() as u64,
        retry_after_ms: waited.as_millis() as u64,
        streamed: streamed.load(std::sync::atomic::Ordering::Relaxed),
    }
}

/// LM-2: `Retry-After` as seconds (the HTTP-date form waits the default backoff instead).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    let secs: f64 = v.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

#[allow(clippy::too_many_lines)] // one attempt: send, status, then a body or a stream
async fn attempt(
    client: &reqwest::Client,
    policy: &CallPolicy,
    url: &str,
    bearer: Option<&str>,
    payload: &Value,
    streaming: Option<Streaming<'_>>,
    streamed: &std::sync::atomic::AtomicBool,
) -> Attempt {
    let mut request = client.post(url).json(payload);
    if let Some(key) = bearer.filter(|k| !k.is_empty()) {
        request = request.bearer_auth(key);
    }
    if streaming.is_some() {
        request = request.header(
            reqwest::header::ACCEPT,
            "text/event-stream, application/x-ndjson, application/json",
        );
    }
    let mut response = match request.send().await {
        Ok(r) => r,
        // The URL is the operator's configuration, not the log's business (it may name internal
        // hosts or carry credentials): only the cause, redacted.
        Err(e) => {
            return Attempt::Retry(
                format!(
                    "cannot reach the endpoint: {}",
                    super::secrets::redact(&root_cause(&e))
                ),
                None,
            )
        }
    };
    let status = response.status();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if let Some(s) =
        streaming.filter(|_| status.is_success() && super::stream::is_stream(&content_type))
    {
        return read_stream(response, policy, s, streamed).await;
    }
    let asked_wait = retry_after(response.headers());
    if let Some(len) = response.content_length() {
        if len > policy.max_reply_bytes as u64 {
            return Attempt::Fail(format!(
                "the reply is {len} bytes; the limit is {} bytes",
                policy.max_reply_bytes
            ));
        }
    }
    let mut bytes = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if bytes.len() + chunk.len() > policy.max_reply_bytes {
                    return Attempt::Fail(format!(
                        "the reply is over {} bytes; the limit is {} bytes",
                        bytes.len() + chunk.len(),
                        policy.max_reply_bytes
                    ));
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                return Attempt::Retry(
                    format!(
                        "reading the reply failed: {}",
                        super::secrets::redact(&root_cause(&e))
                    ),
                    None,
                )
            }
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    if status.as_u16() == 429 || status.is_server_error() {
        // LM-2: a rate limit or an overload says how long to wait; 429 and 503 are honoured.
        let honoured = matches!(status.as_u16(), 429 | 503);
        return Attempt::Retry(
            format!("HTTP {status}: {}", super::secrets::excerpt(&text, 200)),
            asked_wait.filter(|_| honoured),
        );
    }
    if !status.is_success() {
        return Attempt::Fail(format!(
            "HTTP {status}: {}",
            super::secrets::excerpt(&text, 300)
        ));
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => Attempt::Done(v),
        Err(e) => Attempt::Fail(format!(
            "the reply is not JSON ({e}): {}",
            super::secrets::excerpt(&text, 200)
        )),
    }
}

/// Reads a streamed 2xx reply, sending each piece on as it arrives (LM-3).
async fn read_stream(
    mut response: reqwest::Response,
    policy: &CallPolicy,
    s: Streaming<'_>,
    streamed: &std::sync::atomic::AtomicBool,
) -> Attempt {
    let mut collector = super::stream::Collector::new(s.dialect);
    let mut bytes = 0usize;
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                bytes += chunk.len();
                if bytes > policy.max_reply_bytes {
                    return Attempt::Fail(format!(
                        "the streamed reply is over {bytes} bytes; the limit is {} bytes",
                        policy.max_reply_bytes
                    ));
                }
                if let Err(e) = collector.feed(&chunk, s.sink) {
                    return Attempt::Fail(e);
                }
                if collector.pieces > 0 {
                    streamed.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
            Ok(None) => break,
            Err(e) => {
                let why = format!(
                    "the stream broke off after {} characters: {}",
                    collector.received(),
                    super::secrets::redact(&root_cause(&e))
                );
                return if collector.pieces > 0 {
                    Attempt::Fail(why)
                } else {
                    Attempt::Retry(why, None)
                };
            }
        }
    }
    streamed.store(true, std::sync::atomic::Ordering::Relaxed);
    match collector.finish(s.sink) {
        Ok(v) => Attempt::Done(v),
        Err(e) => Attempt::Fail(e),
    }
}

/// The innermost cause of a reqwest error ("invalid peer certificate: UnknownIssuer").
pub fn root_cause(e: &reqwest::Error) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg = s.to_string();
        source = s.source();
    }
    msg
}

/// `usage.prompt_tokens` / `usage.completion_tokens` of an OpenAI-style body, if reported.
pub fn reported_usage(body: &Value) -> Option<(u64, u64)> {
    let u = body.get("usage")?;
    Some((
        u.get("prompt_tokens")?.as_u64()?,
        u.get("completion_tokens")?.as_u64()?,
    ))
}

/// Four characters a token: the estimate when an endpoint reports no usage.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}
