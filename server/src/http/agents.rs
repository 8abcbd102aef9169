//! Issue 13 over HTTP: agents and their credibility (CR-2), the predictions a debate recorded,
//! and the outcomes judges append (SV-7).

use app::protocol::credibility::ContextTags;
use app::track_record::{AgentDetail, AgentRow, PredictionRow, RecordOutcome};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;

use super::error::AppError;
use super::extract::{json_object, not_found, DebateId};
use crate::access::Judge;
use crate::db::track_record::OutcomeEntry;
use crate::drive::now_rfc3339;
use crate::engine::Engine;

/// `GET /api/agents`: every agent with a record, its credibility now.
pub async fn list(State(engine): State<Engine>) -> Result<Json<Vec<AgentRow>>, AppError> {
    Ok(Json(
        crate::record::agent_rows(&engine.store, &now_rfc3339()).await?,
    ))
}

/// `GET /api/agents/{identity}?regime=&sector=&metric=&horizon=&size=&stage=`: the breakdown
/// (in that context, when given) and the recent predictions.
pub async fn detail(
    State(engine): State<Engine>,
    Path(identity): Path<String>,
    context: Result<Query<ContextTags>, QueryRejection>,
) -> Result<Json<AgentDetail>, AppError> {
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
pub async fn record_outcome(
    State(engine): State<Engine>,
    judge: Judge,
    Path(id): Path<String>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<(StatusCode, Json<PredictionRow>), AppError> {
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
