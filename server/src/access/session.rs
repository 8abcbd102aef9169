//! The judge's browser session: an `HttpOnly`, `SameSite=Strict` cookie holding a random id whose
//! hash the database keeps with an expiry.

use std::time::Duration;

use axum::http::{header, HeaderMap};

pub const COOKIE: &str = "consilium_session";
/// SV-18: the name over HTTPS. A `__Host-` cookie is one the browser took only from this very
/// host, over HTTPS, for the whole site: a sibling subdomain cannot plant or overwrite it.
pub const HOST_COOKIE: &str = "__Host-consilium_session";

/// The session cookie's name: `__Host-` prefixed when the site is served over HTTPS.
pub fn name(secure: bool) -> &'static str {
    if secure {
        HOST_COOKIE
    } else {
        COOKIE
    }
}

/// SV-18: a request that carries more than one session cookie — one planted beside the real one
/// (cookie tossing) — is refused rather than guessed at.
#[derive(Debug, PartialEq, Eq)]
pub struct TwoSessions;

/// The session id the request's cookie carries, if any.
pub fn cookie(headers: &HeaderMap) -> Result<Option<&str>, TwoSessions> {
    let mut ids = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == COOKIE || *name == HOST_COOKIE)
        .map(|(_, value)| value.trim())
        .filter(|v| !v.is_empty());
    let first = ids.next();
    if ids.next().is_some() {
        return Err(TwoSessions);
    }
    Ok(first)
}

/// `Set-Cookie` for a new session.
pub fn set_cookie(id: &str, ttl: Duration, secure: bool) -> String {
    let name = name(secure);
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{name}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        ttl.as_secs()
    )
}

/// `Set-Cookie` that ends the session in the browser.
pub fn clear_cookie(secure: bool) -> String {
    let name = name(secure);
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{secure}")
}

/// When a session made now ends, as RFC 3339 (compared as text, like every stored timestamp).
pub fn expiry(ttl: Duration) -> String {
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .saturating_add(ttl);
    crate::drive::rfc3339_millis(at.as_secs() as i64, at.subsec_millis())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_session_cookie_is_found_among_others_sv_7() {
        let mut h = HeaderMap::new();
        h.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; consilium_session=cs_x"),
        );
        assert_eq!(cookie(&h), Ok(Some("cs_x")));
        let mut h = HeaderMap::new();
        h.append(
            header::COOKIE,
            HeaderValue::from_static("consilium_session="),
        );
        assert_eq!(cookie(&h), Ok(None));
        let c = set_cookie("cs_1", Duration::from_secs(60), true);
        for part in [
            "HttpOnly",
            "SameSite=Strict",
            "Max-Age=60",
            "Secure",
            "Path=/",
        ] {
            assert!(c.contains(part), "{c}");
        }
        assert!(!set_cookie("cs_1", Duration::from_secs(60), false).contains("Secure"));
        assert!(c.starts_with("__Host-consilium_session=cs_1;"), "{c}");
        assert!(clear_cookie(true).starts_with("__Host-consilium_session=;"));
    }

    /// SV-18: two session cookies — the same name twice, or both names — are refused.
    #[test]
    fn a_request_with_two_session_cookies_is_refused_sv_18() {
        for (header_values, want) in [
            (&["__Host-consilium_session=cs_a"][..], Ok(Some("cs_a"))),
            (
                &["consilium_session=cs_a; consilium_session=cs_b"][..],
                Err(TwoSessions),
            ),
            (
                &["__Host-consilium_session=cs_a; consilium_session=cs_b"][..],
                Err(TwoSessions),
            ),
            (
                &["consilium_session=cs_a", "consilium_session=cs_b"][..],
                Err(TwoSessions),
            ),
            (&["other=1"][..], Ok(None)),
        ] {
            let mut h = HeaderMap::new();
            for v in header_values {
                h.append(header::COOKIE, HeaderValue::from_str(v).expect("value"));
            }
            assert_eq!(cookie(&h), want, "{header_values:?}");
        }
    }
}
