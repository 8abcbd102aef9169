//! The judge's browser session: an `HttpOnly`, `SameSite=Strict` cookie holding a random id whose
//! hash the database keeps with an expiry.

use std::time::Duration;

use axum::http::{header, HeaderMap};

pub const COOKIE: &str = "consilium_session";

/// The session id the request's cookie carries, if any.
pub fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim())
        .filter(|v| !v.is_empty())
}

/// `Set-Cookie` for a new session.
pub fn set_cookie(id: &str, ttl: Duration, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        ttl.as_secs()
    )
}

/// `Set-Cookie` that ends the session in the browser.
pub fn clear_cookie(secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{secure}")
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
        assert_eq!(cookie(&h), Some("cs_x"));
        let mut h = HeaderMap::new();
        h.append(
            header::COOKIE,
            HeaderValue::from_static("consilium_session="),
        );
        assert_eq!(cookie(&h), None);
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
    }
}
