//! The JSON API over debates: start one, list them, read one, export its log (SV-2, SV-6).

use app::api::{CreateDebate, Created, DebateDetail, DebateSummary};
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;

use super::error::AppError;
use super::extract::{json_object, not_found, DebateId};
use crate::engine::Engine;

pub async fn create_debate(
    State(engine): State<Engine>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<impl IntoResponse, AppError> {
    let body: CreateDebate = json_object(body?.0)?;
    let valid = body
        .validate()
        .map_err(|e| AppError::BadRequest(e.to_string()))?;
    let id = engine.start(valid).await?;
    Ok((StatusCode::CREATED, Json(Created { id })))
}

pub async fn list_debates(
    State(engine): State<Engine>,
) -> Result<Json<Vec<DebateSummary>>, AppError> {
    Ok(Json(engine.store.list(200).await?))
}

pub async fn get_debate(
    State(engine): State<Engine>,
    DebateId(id): DebateId,
) -> Result<Json<DebateDetail>, AppError> {
    load(&engine, &id).await.map(Json)
}

/// SV-2: the whole log with its hash chain, as a download `consilium verify` can check.
pub async fn export_json(
    State(engine): State<Engine>,
    DebateId(id): DebateId,
) -> Result<impl IntoResponse, AppError> {
    let detail = load(&engine, &id).await?;
    Ok((
        [(header::CONTENT_DISPOSITION, attachment(&detail.id, "json"))],
        Json(detail),
    ))
}

/// The same log as a report a person reads (query, rounds, before/after, votes, decision, check).
pub async fn export_md(
    State(engine): State<Engine>,
    DebateId(id): DebateId,
) -> Result<impl IntoResponse, AppError> {
    let detail = load(&engine, &id).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/markdown; charset=utf-8".to_owned(),
            ),
            (header::CONTENT_DISPOSITION, attachment(&detail.id, "md")),
        ],
        app::audit::markdown::report(&detail),
    ))
}

async fn load(engine: &Engine, id: &str) -> Result<DebateDetail, AppError> {
    engine.store.get(id).await?.ok_or_else(|| not_found(id))
}

/// Ids are generated hex, so they are safe in a header.
fn attachment(id: &str, ext: &str) -> String {
    format!("attachment; filename=\"consilium-{id}.{ext}\"")
}
