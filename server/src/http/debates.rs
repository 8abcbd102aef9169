//! The JSON API over debates: start one, list them, read one, export its log (SV-2, SV-6).

use app::api::{CreateDebate, Created, DebateDetail, DebateSummary};
use app::protocol::DebateStatus;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::Deserialize;

use super::error::AppError;
use super::extract::{json_object, not_found, DebateId};
use crate::access::client::ClientAddr;
use crate::access::{Caller, SharedAccess};
use crate::db::ListQuery;
use crate::engine::Engine;

/// SV-7: with a start token set, only the operator and judges start debates; every start takes a
/// place among the running debates (server-wide and per client address).
pub async fn create_debate(
    State(engine): State<Engine>,
    State(access): State<SharedAccess>,
    Caller(who): Caller,
    ClientAddr(client): ClientAddr,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<impl IntoResponse, AppError> {
    access.may_start(&who)?;
    let body: CreateDebate = json_object(body?.0)?;
    let valid = body
        .validate()
        .map_err(|e| AppError::BadRequest(e.to_string()))?;
    let place = access.limits.debate(client)?;
    let id = engine.start(valid, place).await?;
    Ok((StatusCode::CREATED, Json(Created { id })))
}

/// `GET /api/debates?limit=&before=&protocol=&status=&decision=&q=`: newest first, a page at a
/// time (`before` is the last id of the previous page).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    limit: Option<u32>,
    before: Option<String>,
    protocol: Option<String>,
    status: Option<String>,
    decision: Option<String>,
    q: Option<String>,
}

/// The most debates one page holds, and the page size when `limit` is not given.
pub const MAX_PAGE: u32 = 200;
pub const DEFAULT_PAGE: u32 = 50;

pub async fn list_debates(
    State(engine): State<Engine>,
    params: Result<Query<ListParams>, QueryRejection>,
) -> Result<Json<Vec<DebateSummary>>, AppError> {
    let Query(p) = params
        .map_err(|e| AppError::BadRequest(format!("invalid query string: {}", e.body_text())))?;
    Ok(Json(engine.store.list(&list_query(p)?).await?))
}

/// QL-1: of the decided debates that carry a vote baseline, how many the debate changed.
pub async fn baseline_counts(
    State(engine): State<Engine>,
) -> Result<Json<app::api::BaselineCounts>, AppError> {
    Ok(Json(engine.store.baseline_counts().await?))
}

/// QL-2: the evaluation runs saved in the server's eval directory, newest first.
pub async fn eval_runs(State(engine): State<Engine>) -> Json<Vec<app::api::SavedEval>> {
    Json(crate::eval::saved_runs_async(engine.settings.eval_dir.clone()).await)
}

fn list_query(p: ListParams) -> Result<ListQuery, AppError> {
    let limit = p.limit.unwrap_or(DEFAULT_PAGE);
    if limit == 0 || limit > MAX_PAGE {
        return Err(AppError::BadRequest(format!(
            "limit must be from 1 to {MAX_PAGE}, got {limit}"
        )));
    }
    let text = |name: &str, v: Option<String>| -> Result<Option<String>, AppError> {
        match v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()) {
            Some(s) if s.chars().count() > 200 => Err(AppError::BadRequest(format!(
                "{name} is longer than 200 characters"
            ))),
            other => Ok(other),
        }
    };
    let status = text("status", p.status)?;
    if let Some(s) = &status {
        if DebateStatus::parse(s).is_none() {
            return Err(AppError::BadRequest(format!(
                "status must be running, finished, interrupted or budget_exhausted, got '{}'",
                s.chars().take(40).collect::<String>()
            )));
        }
    }
    let before = text("before", p.before)?;
    if let Some(b) = &before {
        if !app::api::is_debate_id(b) {
            return Err(AppError::BadRequest(format!(
                "before must be a debate id, got '{}'",
                b.chars().take(40).collect::<String>()
            )));
        }
    }
    Ok(ListQuery {
        limit,
        before,
        protocol: text("protocol", p.protocol)?,
        status,
        decision: text("decision", p.decision)?.map(|d| d.to_ascii_uppercase()),
        search: text("q", p.q)?,
    })
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

/// Issue 19: `GET /api/keys`, the public keys this server signs logs with.
pub async fn keys(State(engine): State<Engine>) -> Json<Vec<serde_json::Value>> {
    Json(
        engine
            .signer
            .iter()
            .map(|s| {
                serde_json::json!({
                    "key_id": s.key_id,
                    "algorithm": "ed25519",
                    "public_key": s.public_key,
                })
            })
            .collect(),
    )
}

async fn load(engine: &Engine, id: &str) -> Result<DebateDetail, AppError> {
    engine.store.get(id).await?.ok_or_else(|| not_found(id))
}

/// Ids are generated hex, so they are safe in a header.
fn attachment(id: &str, ext: &str) -> String {
    format!("attachment; filename=\"consilium-{id}.{ext}\"")
}
