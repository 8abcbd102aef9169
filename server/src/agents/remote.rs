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
}

impl Default for CallPolicy {
    fn default() -> Self {
        CallPolicy {
            timeout: Duration::from_secs(60),
            retries: 2,
            backoff: Duration::from_millis(500),
            max_reply_bytes: 256 * 1024,
        }
    }
}

impl CallPolicy {
    /// The longest a whole call can take, every attempt and wait included: the runner's bound.
    pub fn worst_case(&self) -> Duration {
        let waits: Duration = (1..=self.retries).map(|k| self.backoff_before(k)).sum();
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
}

enum Attempt {
    Done(Value),
    /// Worth another try.
    Retry(String),
    /// Will not get better by asking again.
    Fail(String),
}

/// POSTs `payload` to `url` (with `bearer` when given), retrying what is worth retrying.
pub async fn post_json(
    client: &reqwest::Client,
    policy: &CallPolicy,
    url: &str,
    bearer: Option<&str>,
    payload: &Value,
) -> Call {
    let started = Instant::now();
    let mut attempts = 0;
    let body = loop {
        attempts += 1;
        let outcome = match tokio::time::timeout(
            policy.timeout,
            attempt(client, policy, url, bearer, payload),
        )
        .await
        {
            Ok(outcome) => outcome,
            Err(_) => Attempt::Retry(format!(
                "no reply within {} s",
                policy.timeout.as_secs_f32()
            )),
        };
        match outcome {
            Attempt::Done(v) => break Ok(v),
            Attempt::Fail(e) => break Err(e),
            Attempt::Retry(e) if attempts > policy.retries => {
                break Err(if attempts > 1 {
                    format!("{e} (after {attempts} attempts)")
                } else {
                    e
                })
            }
            Attempt::Retry(e) => {
                let url = crate::db::redact(url);
                tracing::debug!(url, attempts, "agent call failed, retrying: {e}");
                tokio::time::sleep(policy.backoff_before(attempts)).await;
            }
        }
    };
    Call {
        body,
        attempts,
        latency_ms: started.elapsed().as_millis() as u64,
    }
}

async fn attempt(
    client: &reqwest::Client,
    policy: &CallPolicy,
    url: &str,
    bearer: Option<&str>,
    payload: &Value,
) -> Attempt {
    let mut request = client.post(url).json(payload);
    if let Some(key) = bearer.filter(|k| !k.is_empty()) {
        request = request.bearer_auth(key);
    }
    let mut response = match request.send().await {
        Ok(r) => r,
        // The URL is the operator's configuration, not the log's business (it may name internal
        // hosts or carry credentials): only the cause, redacted.
        Err(e) => {
            return Attempt::Retry(format!(
                "cannot reach the endpoint: {}",
                super::secrets::redact(&root_cause(&e))
            ))
        }
    };
    let status = response.status();
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
                return Attempt::Retry(format!(
                    "reading the reply failed: {}",
                    super::secrets::redact(&root_cause(&e))
                ))
            }
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    if status.as_u16() == 429 || status.is_server_error() {
        return Attempt::Retry(format!("HTTP {status}: {}", excerpt(&text, 200)));
    }
    if !status.is_success() {
        return Attempt::Fail(format!("HTTP {status}: {}", excerpt(&text, 300)));
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => Attempt::Done(v),
        Err(e) => Attempt::Fail(format!(
            "the reply is not JSON ({e}): {}",
            excerpt(&text, 200)
        )),
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

/// The first `max` characters of `s` on one line, with anything secret-looking removed
/// ([`super::secrets::redact`]), for error messages and the log.
pub fn excerpt(s: &str, max: usize) -> String {
    let one_line: String = super::secrets::redact(s)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let trimmed = one_line.trim();
    if trimmed.chars().count() <= max {
        format!("{trimmed:?}")
    } else {
        let cut: String = trimmed.chars().take(max).collect();
        format!("{cut:?}…")
    }
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
