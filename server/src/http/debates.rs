//! The JSON API over debates: start one, list them, read one, export its log (SV-2, SV-6).

use app::api::{CreateDebate, Created, DebateDetail, DebateSummary, ErrorBody};
use app::protocol::DebateStatus;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::{Deserialize, Serialize};

use super::error::AppError;
use super::extract::{json_object, not_found, DebateId};
use crate::access::client::ClientAddr;
use crate::access::{Caller, SharedAccess};
use crate::db::ListQuery;
use crate::engine::Engine;

/// Starts a debate.
///
/// SV-7: with a start token set, only the operator and judges start debates; every start takes a
/// place among the running debates (server-wide and per client address).
#[utoipa::path(
    post,
    path = "/debates",
    tag = "debates",
    request_body = CreateDebate,
    security((), ("bearer" = []), ("session" = [])),
    responses(
        (status = 201, description = "Started; follow it at `/api/debates/{id}/events`", body = Created),
        (status = 400, description = "Not a valid request; the error names the field", body = ErrorBody),
        (status = 401, description = "This server needs the start token or a judge, or the bearer token matches nobody", body = ErrorBody),
        (status = 403, description = "A viewer, or a signed-in request without this site's Origin", body = ErrorBody),
        (status = 415, description = "The body is not sent as `application/json`", body = ErrorBody),
        (status = 429, description = "Too many running debates (server-wide or from this address), or the daily token budget is spent; see `Retry-After`", body = ErrorBody),
        (status = 507, description = "The database is full; stored debates can still be read", body = ErrorBody),
    )
)]
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
    let place = access.start_place(&who, client)?;
    let id = engine.start(valid, place).await?;
    Ok((StatusCode::CREATED, Json(Created { id })))
}

/// `GET /api/debates?limit=&before=&protocol=&status=&decision=&q=`: newest first, a page at a
/// time (`before` is the last id of the previous page).
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Debates on the page, 1 to 200 (default 50).
    limit: Option<u32>,
    /// The last id of the previous page.
    before: Option<String>,
    /// Only this protocol (`s4`, `round_robin`, `collapse`, `escalation`, `reconcile`).
    protocol: Option<String>,
    /// Only this status: `running`, `finished`, `interrupted` or `budget_exhausted`.
    status: Option<String>,
    /// Only this decision label (`ACT`, `BUY`, …; any case).
    decision: Option<String>,
    /// Text the query contains.
    q: Option<String>,
}

/// The most debates one page holds, and the page size when `limit` is not given.
pub const MAX_PAGE: u32 = 200;
pub const DEFAULT_PAGE: u32 = 50;

/// Lists debates, newest first, a page at a time.
#[utoipa::path(
    get,
    path = "/debates",
    tag = "debates",
    params(ListParams),
    responses(
        (status = 200, description = "One page of debates", body = Vec<DebateSummary>),
        (status = 400, description = "A bad or unknown query parameter, named", body = ErrorBody),
    )
)]
pub async fn list_debates(
    State(engine): State<Engine>,
    params: Result<Query<ListParams>, QueryRejection>,
) -> Result<Json<Vec<DebateSummary>>, AppError> {
    let Query(p) = params
        .map_err(|e| AppError::BadRequest(format!("invalid query string: {}", e.body_text())))?;
    Ok(Json(engine.store.list(&list_query(p)?).await?))
}

/// QL-1: of the decided debates that carry a vote baseline, how many the debate changed.
#[utoipa::path(
    get,
    path = "/debates/baseline",
    tag = "debates",
    responses((status = 200, description = "The counts over every stored debate", body = app::api::BaselineCounts))
)]
pub async fn baseline_counts(
    State(engine): State<Engine>,
) -> Result<Json<app::api::BaselineCounts>, AppError> {
    Ok(Json(engine.store.baseline_counts().await?))
}

/// QL-2: the evaluation runs saved in the server's eval directory, newest first.
#[utoipa::path(
    get,
    path = "/eval",
    tag = "debates",
    responses((status = 200, description = "At most 50 saved runs, each with its report", body = Vec<app::api::SavedEval>))
)]
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

/// One debate: its summary and whole event log.
#[utoipa::path(
    get,
    path = "/debates/{id}",
    tag = "debates",
    params(("id" = String, Path, description = "The debate's id")),
    responses(
        (status = 200, description = "The debate and its log (signed once it ended)", body = DebateDetail),
        (status = 400, description = "The id is not valid UTF-8", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
    )
)]
pub async fn get_debate(
    State(engine): State<Engine>,
    DebateId(id): DebateId,
) -> Result<Json<DebateDetail>, AppError> {
    load(&engine, &id).await.map(Json)
}

/// SV-2: the whole log with its hash chain, as a download `consilium verify` can check.
#[utoipa::path(
    get,
    path = "/debates/{id}/export.json",
    tag = "debates",
    params(("id" = String, Path, description = "The debate's id")),
    responses(
        (status = 200, description = "The debate as an attachment (`Content-Disposition`)", body = DebateDetail,
            headers(("Content-Disposition" = String, description = "`attachment; filename=\"consilium-{id}.json\"`"))),
        (status = 400, description = "The id is not valid UTF-8", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
    )
)]
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
#[utoipa::path(
    get,
    path = "/debates/{id}/export.md",
    tag = "debates",
    params(("id" = String, Path, description = "The debate's id")),
    responses(
        (status = 200, description = "The report, Markdown, as an attachment", body = String, content_type = "text/markdown",
            headers(("Content-Disposition" = String, description = "`attachment; filename=\"consilium-{id}.md\"`"))),
        (status = 400, description = "The id is not valid UTF-8", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
    )
)]
pub async fn export_md(
    State(engine): State<Engine>,
    DebateId(id): DebateId,
) -> Result<impl IntoResponse, AppError> {
    let detail = load(&engine, &id).await?;
    let mut report = app::audit::markdown::report(&detail);
    // FK-3/FK-4: how robust the decision is, from its forks.
    let forks = super::fork::forks_of(&engine, &id).await?;
    if !forks.forks.is_empty() {
        report.push_str(&format!(
            "\n## Forks\n\n{} {} fork(s) listed at `/api/debates/{id}/forks`.\n",
            forks.summary,
            forks.forks.len()
        ));
        if forks.decided > 0 {
            let (lo, hi) = app::protocol::run::wilson(forks.held, forks.decided);
            report.push_str(&format!(
                "95 % Wilson interval for the share that held: {:.0}–{:.0} %.\n",
                lo * 100.0,
                hi * 100.0
            ));
        }
    }
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/markdown; charset=utf-8".to_owned(),
            ),
            (header::CONTENT_DISPOSITION, attachment(&detail.id, "md")),
        ],
        report,
    ))
}

/// A public key this server signs logs with.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct KeyInfo {
    /// The first 16 hex digits of SHA-256 of the public key: how logs and people name it.
    pub key_id: String,
    /// `ed25519`.
    pub algorithm: &'static str,
    /// The 32-byte public key, hex.
    pub public_key: String,
}

/// `GET /api/keys`, the public keys this server signs logs with.
#[utoipa::path(
    get,
    path = "/keys",
    tag = "debates",
    responses((status = 200, description = "The keys (none when this server signs nothing)", body = Vec<KeyInfo>))
)]
pub async fn keys(State(engine): State<Engine>) -> Json<Vec<KeyInfo>> {
    Json(
        engine
            .signer
            .iter()
            .map(|s| KeyInfo {
                key_id: s.key_id.clone(),
                algorithm: "ed25519",
                public_key: s.public_key.clone(),
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
