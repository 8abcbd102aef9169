//! Checks every request passes before any handler, and the headers
//! every response carries:
//!
//! - **Host allow-list** (DNS rebinding): a server bound to loopback answers only to loopback
//!   names unless told otherwise (`--allowed-hosts`); anything else gets 421.
//! - **Origin** (CSRF, for the JSON API and the server functions alike): a state-changing request
//!   whose `Origin` is another site is refused with 403.
//! - **Timeout**: a non-streaming request that takes longer than the limit answers 503.
//! - **Security headers**: `nosniff`, `Referrer-Policy`, framing refused, and a strict
//!   Content-Security-Policy on everything that does not set its own (pages set one with their
//!   nonce, see [`page_policy`]).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::http::error::AppError;

/// Which `Host` names the server answers to; `None`: any.
#[derive(Clone, Debug)]
pub struct HostPolicy {
    pub allowed: Option<Vec<String>>,
}

impl HostPolicy {
    /// `--allowed-hosts` when given; otherwise, bound to a loopback address, loopback names only.
    pub fn new(bound: IpAddr, configured: &[String]) -> HostPolicy {
        let configured: Vec<String> = configured
            .iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect();
        let allowed = if !configured.is_empty() {
            Some(configured)
        } else if bound.is_loopback() {
            Some(vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()])
        } else {
            None
        };
        HostPolicy { allowed }
    }

    pub fn allows(&self, host: &str) -> bool {
        let Some(allowed) = &self.allowed else {
            return true;
        };
        let name = host_name(host).to_ascii_lowercase();
        allowed.iter().any(|a| *a == "*" || *a == name)
            || (allowed.iter().any(|a| a == "localhost") && is_loopback_name(&name))
    }
}

/// A `Host` (or `--allowed-hosts` entry) that names this machine only: `localhost`, a loopback
/// address, with or without a port.
pub fn is_loopback_host(host: &str) -> bool {
    is_loopback_name(&host_name(host).to_ascii_lowercase())
}

/// `example.com:8080` → `example.com`; `[::1]:3000` → `[::1]`.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |i| &host[..=i]);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

fn is_loopback_name(name: &str) -> bool {
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The `Host` a request was sent to (HTTP/2 carries it in the URI).
fn request_host(req: &Request) -> Option<String> {
    req.headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
        .or_else(|| req.uri().authority().map(|a| a.to_string()))
}

pub async fn host(State(policy): State<Arc<HostPolicy>>, req: Request, next: Next) -> Response {
    match request_host(&req) {
        Some(h) if policy.allows(&h) => next.run(req).await,
        other => {
            let shown: String = other.unwrap_or_default().chars().take(100).collect();
            AppError::MisdirectedRequest(format!(
                "this server does not answer to the host name '{shown}' (see --allowed-hosts)"
            ))
            .into_response()
        }
    }
}

/// True when the request names an `Origin` and it is this site (scheme aside: a proxy may end
/// TLS in front of us).
pub fn same_origin(headers: &HeaderMap) -> bool {
    let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok());
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    match (origin, host) {
        (Some(origin), Some(host)) => origin
            .split_once("://")
            .is_some_and(|(_, authority)| authority.eq_ignore_ascii_case(host)),
        _ => false,
    }
}

pub async fn origin(req: Request, next: Next) -> Response {
    let safe = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if !safe && req.headers().contains_key(header::ORIGIN) && !same_origin(req.headers()) {
        return AppError::Forbidden(
            "cross-site request refused: its Origin is not this site".into(),
        )
        .into_response();
    }
    next.run(req).await
}

/// Every request body — the JSON API's and the server functions' — is capped at `limit` bytes: a
/// declared length above it is a JSON 413 at once, and a body that grows past it while being read
/// fails there (the JSON extractor answers 413 too).
pub async fn body_limit(State(limit): State<usize>, req: Request, next: Next) -> Response {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(len) = declared.filter(|&len| len > limit as u64) {
        return AppError::PayloadTooLarge(format!(
            "request body too large: {len} bytes, the limit is {} KiB",
            limit / 1024
        ))
        .into_response();
    }
    let (parts, body) = req.into_parts();
    let body = axum::body::Body::new(http_body_util::Limited::new(body, limit));
    next.run(Request::from_parts(parts, body)).await
}

/// Non-streaming requests get `limit`; the live streams (`…/events`) run as long as they need,
/// and a batch of forks (FK-4: the API's `…/forks` and the fork form's server function) as long
/// as the batch may wait for its forks, plus a margin to answer.
pub async fn timeout(State(limit): State<Duration>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path.ends_with("/events") {
        return next.run(req).await;
    }
    let batch = req.method() == axum::http::Method::POST
        && (path.ends_with("/forks") || path == "/api/fork_batch");
    let limit = if batch {
        limit.max(super::limits::BATCH_WAIT + Duration::from_secs(15))
    } else {
        limit
    };
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(response) => response,
        Err(_) => AppError::Unavailable {
            message: format!(
                "the request took longer than {} s; try again",
                limit.as_secs_f32()
            ),
            retry_after_s: 1,
        }
        .into_response(),
    }
}

/// The policy for the server-rendered pages: scripts only from this site or carrying this
/// response's nonce (no inline script without it), WebAssembly allowed, nothing framed.
pub fn page_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// For responses that are not pages (JSON, files): nothing may run or frame them.
const DEFAULT_POLICY: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

pub async fn headers(req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    let h = response.headers_mut();
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert("x-frame-options", HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    let is_html = h
        .get(header::CONTENT_TYPE)
        .and_then(|c| c.to_str().ok())
        .is_some_and(|c| c.starts_with("text/html"));
    // Pages set their own policy (with the nonce); a static HTML file (the offline viewer) carries
    // its own in a <meta> tag.
    if !is_html && !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(DEFAULT_POLICY),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_servers_answer_loopback_names_only() {
        let local = HostPolicy::new(IpAddr::from([127, 0, 0, 1]), &[]);
        for ok in [
            "127.0.0.1:3000",
            "localhost:3000",
            "LOCALHOST",
            "[::1]:3000",
            "app.localhost",
        ] {
            assert!(local.allows(ok), "{ok}");
        }
        for bad in ["evil.example:3000", "127.0.0.1.evil.example", "10.0.0.1"] {
            assert!(!local.allows(bad), "{bad}");
        }
        let open = HostPolicy::new(IpAddr::from([0, 0, 0, 0]), &[]);
        assert!(open.allows("anything.example"));
        let named = HostPolicy::new(IpAddr::from([0, 0, 0, 0]), &["Debates.Example".into()]);
        assert!(named.allows("debates.example:443"));
        assert!(!named.allows("other.example"));
    }

    #[test]
    fn same_origin_needs_a_matching_origin() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:3000"));
        assert!(!same_origin(&h), "no Origin");
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:3000"),
        );
        assert!(same_origin(&h));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example"),
        );
        assert!(!same_origin(&h));
        h.insert(header::ORIGIN, HeaderValue::from_static("null"));
        assert!(!same_origin(&h));
    }

    #[test]
    fn the_page_policy_allows_no_inline_script_without_the_nonce() {
        let p = page_policy("abc");
        assert!(p.contains("script-src 'self' 'nonce-abc' 'wasm-unsafe-eval'"));
        assert!(!p.contains("script-src 'self' 'unsafe-inline'"));
        assert!(p.contains("frame-ancestors 'none'"));
    }
}
