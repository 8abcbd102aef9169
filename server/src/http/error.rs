//! One mapping from failures to HTTP: always a JSON `{"error": "..."}` naming the problem (SV-6).

use app::api::ErrorBody;
use axum::http::StatusCode;
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
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = self.status();
        let error = match &self {
            AppError::Internal(detail) => {
                tracing::error!("{detail}");
                "internal error; the server log has the details".to_owned()
            }
            other => other.to_string(),
        };
        (status, Json(ErrorBody { error })).into_response()
    }
}

impl From<crate::db::StoreError> for AppError {
    fn from(e: crate::db::StoreError) -> Self {
        AppError::Internal(e.to_string())
    }
}

impl From<crate::engine::StartError> for AppError {
    fn from(e: crate::engine::StartError) -> Self {
        match e {
            crate::engine::StartError::Protocol(p) => AppError::BadRequest(p.to_string()),
            crate::engine::StartError::Store(s) => s.into(),
            crate::engine::StartError::Backend(b) => AppError::BadRequest(b),
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
