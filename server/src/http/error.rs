//! One mapping from failures to HTTP: always a JSON `{"error": "..."}` naming the problem (SV-6).

use app::api::ErrorBody;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    /// No credentials, or ones that match nobody (401, with `WWW-Authenticate: Bearer`).
    #[error("{0}")]
    Unauthorized(String),
    /// Known, but not allowed (403); also a refused cross-site request.
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Conflict(String),
    /// A `Host` this server does not answer to (421).
    #[error("{0}")]
    MisdirectedRequest(String),
    /// A limit was reached (429, with `Retry-After`).
    #[error("{message}")]
    TooManyRequests { message: String, retry_after_s: u64 },
    /// The database has no room for another write (507): reading still works.
    #[error("{0}")]
    InsufficientStorage(String),
    /// Busy or too slow (503, with `Retry-After`).
    #[error("{message}")]
    Unavailable { message: String, retry_after_s: u64 },
    #[error("internal error: {0}")]
    Internal(String),
}

impl AppError {
    fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::MisdirectedRequest(_) => StatusCode::MISDIRECTED_REQUEST,
            AppError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::InsufficientStorage(_) => StatusCode::INSUFFICIENT_STORAGE,
            AppError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl AppError {
    /// SV-18: what a client is told — the JSON API's `error` and the page's server functions'
    /// alike. An internal failure's detail (a database's or a file's error text) goes to the
    /// server log, never to the client.
    pub fn public(&self) -> String {
        match self {
            AppError::Internal(detail) => {
                tracing::error!("{detail}");
                "internal error; the server log has the details".to_owned()
            }
            other => other.to_string(),
        }
    }
}

/// SV-18: a failure as the page's server functions report it: [`AppError::public`].
pub fn public(e: impl Into<AppError>) -> String {
    e.into().public()
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = self.status();
        let error = self.public();
        let mut response = (status, Json(ErrorBody { error })).into_response();
        let h = response.headers_mut();
        match &self {
            AppError::Unauthorized(_) => {
                h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            AppError::TooManyRequests { retry_after_s, .. }
            | AppError::Unavailable { retry_after_s, .. } => {
                h.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_s));
            }
            _ => {}
        }
        response
    }
}

impl From<crate::access::session::TwoSessions> for AppError {
    fn from(_: crate::access::session::TwoSessions) -> Self {
        AppError::BadRequest(
            "the request carries two session cookies; sign out (or clear this site's cookies) \
             and sign in again"
                .into(),
        )
    }
}

impl From<crate::access::limits::Refusal> for AppError {
    fn from(r: crate::access::limits::Refusal) -> Self {
        AppError::TooManyRequests {
            message: r.message,
            retry_after_s: r.retry_after_s,
        }
    }
}

impl From<crate::db::StoreError> for AppError {
    fn from(e: crate::db::StoreError) -> Self {
        match e {
            crate::db::StoreError::UnknownCursor(_) => AppError::BadRequest(e.to_string()),
            e if e.is_full() => AppError::InsufficientStorage(format!(
                "the database is full, so nothing new can be stored ({e}); stored debates can \
                 still be read — free disk space or raise the SQLite URL's max_size_mb"
            )),
            e => AppError::Internal(e.to_string()),
        }
    }
}

impl From<crate::engine::StartError> for AppError {
    fn from(e: crate::engine::StartError) -> Self {
        match e {
            crate::engine::StartError::Protocol(p) => AppError::BadRequest(p.to_string()),
            crate::engine::StartError::Store(s) => s.into(),
            crate::engine::StartError::Backend(b) | crate::engine::StartError::Fork(b) => {
                AppError::BadRequest(b)
            }
            e @ crate::engine::StartError::NoDebate(_) => AppError::NotFound(e.to_string()),
            e @ crate::engine::StartError::DailyBudget { retry_after_s, .. } => {
                AppError::TooManyRequests {
                    message: e.to_string(),
                    retry_after_s,
                }
            }
        }
    }
}

impl From<axum::extract::rejection::JsonRejection> for AppError {
    fn from(r: axum::extract::rejection::JsonRejection) -> Self {
        use axum::extract::rejection::JsonRejection as J;
        match r {
            J::MissingJsonContentType(_) => AppError::UnsupportedMediaType(
                "expected a JSON body with 'Content-Type: application/json'".into(),
            ),
            J::BytesRejection(b) if b.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                AppError::PayloadTooLarge(format!("request body too large: {}", b.body_text()))
            }
            other => AppError::BadRequest(format!("invalid JSON body: {}", other.body_text())),
        }
    }
}
