//! What the handlers take from a request, checked once: a debate id, a JSON object body.

use axum::extract::Path;

use super::error::AppError;

/// A debate id from the path, checked before it reaches the database: an id that is not valid
/// UTF-8 is a 400, one that cannot be a debate id a 404 — always as JSON.
pub struct DebateId(pub String);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for DebateId {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, AppError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| AppError::BadRequest(format!("invalid debate id: {}", e.body_text())))?;
        if !app::api::is_debate_id(&id) {
            return Err(not_found(&id));
        }
        Ok(DebateId(id))
    }
}

/// A path parameter axum could not read (not valid UTF-8 once percent-decoded): a JSON 400 like
/// every other error (SV-6), not axum's plain-text one — and so what the OpenAPI document says
/// (DX-3).
pub fn path_error(e: axum::extract::rejection::PathRejection) -> AppError {
    AppError::BadRequest(format!("invalid path: {}", e.body_text()))
}

pub fn not_found(id: &str) -> AppError {
    let shown: String = id.chars().take(64).collect();
    AppError::NotFound(format!("no debate with id '{shown}'"))
}

/// Serde accepts a JSON array for a struct; an API body must be an object. Errors name the field.
pub fn json_object<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, AppError> {
    if !value.is_object() {
        return Err(AppError::BadRequest(
            "invalid JSON body: expected a JSON object".into(),
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            AppError::BadRequest(format!("invalid JSON body: {inner}"))
        } else {
            AppError::BadRequest(format!("invalid JSON body: {path}: {inner}"))
        }
    })
}
