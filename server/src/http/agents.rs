//! The track record over HTTP: agents and their credibility (CR-2), the predictions a debate
//! recorded, and the outcomes judges append (SV-7).

use app::api::ErrorBody;
use app::protocol::credibility::ContextTags;
use app::track_record::{AgentDetail, AgentRow, PredictionRow, RecordOutcome};
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;

use super::error::AppError;
use super::extract::{json_object, not_found, path_error, DebateId};
use crate::access::Judge;
use crate::db::track_record::OutcomeEntry;
use crate::drive::now_rfc3339;
use crate::engine::Engine;

/// `GET /api/agents`: every agent with a record, its credibility now.
#[utoipa::path(
    get,
    operation_id = "list_agents",
    path = "/agents",
    tag = "track record",
    responses((status = 200, description = "Every agent with a track record", body = Vec<AgentRow>))
)]
pub async fn list(State(engine): State<Engine>) -> Result<Json<Vec<AgentRow>>, AppError> {
    Ok(Json(
        crate::record::agent_rows(&engine.store, &now_rfc3339()).await?,
    ))
}

/// `GET /api/agents/{identity}?regime=&sector=&metric=&horizon=&size=&stage=`: the breakdown
/// (in that context, when given) and the recent predictions.
// DX-3: axum's catch-all `{*identity}` (identities may hold `/`) is written `{identity}` in the
// document (`crate::http::openapi`).
#[utoipa::path(
    get,
    operation_id = "agent_detail",
    path = "/agents/{*identity}",
    tag = "track record",
    params(
        ("identity" = String, Path, description = "The agent's identity (`builtin:safety`, `openai:<model>:<role>`, …); may contain `/`"),
        ContextTags,
    ),
    responses(
        (status = 200, description = "The agent's credibility, its breakdown and recent predictions", body = AgentDetail),
        (status = 400, description = "A bad identity or context tag, or an unknown query parameter", body = ErrorBody),
        (status = 404, description = "No agent with this identity has a track record", body = ErrorBody),
    )
)]
pub async fn detail(
    State(engine): State<Engine>,
    identity: Result<Path<String>, PathRejection>,
    context: Result<Query<ContextTags>, QueryRejection>,
) -> Result<Json<AgentDetail>, AppError> {
    let Path(identity) = identity.map_err(path_error)?;
    let Query(context) = context
        .map_err(|e| AppError::BadRequest(format!("invalid query string: {}", e.body_text())))?;
    let context = context.normalised().map_err(AppError::BadRequest)?;
    app::protocol::credibility::identity::check_identity(&identity)
        .map_err(AppError::BadRequest)?;
    crate::record::agent_detail(&engine.store, &identity, &now_rfc3339(), &context)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::NotFound(format!("no agent '{identity}' has a track record")))
}

/// `GET /api/debates/{id}/predictions`: what each agent held when the debate ended.
#[utoipa::path(
    get,
    operation_id = "debate_predictions",
    path = "/debates/{id}/predictions",
    tag = "track record",
    params(("id" = String, Path, description = "The debate's id")),
    responses(
        (status = 200, description = "The predictions the debate recorded (none while it runs)", body = Vec<PredictionRow>),
        (status = 400, description = "The id is not valid UTF-8", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
    )
)]
pub async fn of_debate(
    State(engine): State<Engine>,
    DebateId(id): DebateId,
) -> Result<Json<Vec<PredictionRow>>, AppError> {
    if !engine.store.exists(&id).await? {
        return Err(not_found(&id));
    }
    Ok(Json(engine.store.predictions_in(&id).await?))
}

/// `POST /api/predictions/{id}/outcome` (judges only): appends an outcome —
/// `{"correct": bool}`, `{"actual": number}` for a numeric claim, or `{"ruling": "upheld" |
/// "overridden"}` — with an optional `note`; answers with the prediction as it now stands.
#[utoipa::path(
    post,
    path = "/predictions/{id}/outcome",
    tag = "track record",
    params(("id" = String, Path, description = "The prediction's id")),
    request_body = RecordOutcome,
    security(("bearer" = []), ("session" = [])),
    responses(
        (status = 201, description = "Recorded; the prediction with its latest outcome", body = PredictionRow),
        (status = 400, description = "Not exactly one of `correct`, `actual`, `ruling`, or a bad value, named", body = ErrorBody),
        (status = 401, description = "No judge's credentials", body = ErrorBody),
        (status = 403, description = "A viewer or the operator, or a signed-in request without this site's Origin", body = ErrorBody),
        (status = 404, description = "No prediction with this id", body = ErrorBody),
        (status = 415, description = "The body is not sent as `application/json`", body = ErrorBody),
        (status = 507, description = "The database is full", body = ErrorBody),
    )
)]
pub async fn record_outcome(
    State(engine): State<Engine>,
    judge: Judge,
    id: Result<Path<String>, PathRejection>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<(StatusCode, Json<PredictionRow>), AppError> {
    let Path(id) = id.map_err(path_error)?;
    let row = record(&engine, &judge.name, &id, json_object(body?.0)?).await?;
    Ok((StatusCode::CREATED, Json(row)))
}

/// Checks and appends `body` as judge `judge`'s outcome of prediction `id`.
pub async fn record(
    engine: &Engine,
    judge: &str,
    id: &str,
    body: RecordOutcome,
) -> Result<PredictionRow, AppError> {
    let not_found = || {
        let shown: String = id.chars().take(64).collect();
        AppError::NotFound(format!("no prediction with id '{shown}'"))
    };
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(not_found());
    }
    let Some(prediction) = engine.store.prediction(id).await? else {
        return Err(not_found());
    };
    let outcome = body
        .resolve(prediction.claim)
        .map_err(|e| AppError::BadRequest(format!("invalid JSON body: {e}")))?;
    let entry = OutcomeEntry {
        outcome,
        recorded_by: format!("judge:{judge}"),
        recorded_at: now_rfc3339(),
    };
    engine.store.add_outcome(id, &entry).await?;
    engine.store.prediction(id).await?.ok_or_else(not_found)
}
