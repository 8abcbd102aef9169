//! FK-3 over the JSON API: a debate beside its forks, a column each.

use app::api::{Comparison, ErrorBody, MAX_COMPARED};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::Json;
use serde::Deserialize;

use super::error::AppError;
use super::extract::DebateId;
use crate::engine::Engine;

/// `GET /api/debates/{id}/compare`.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CompareParams {
    /// The forks to compare, comma-separated (at most 8); the newest 8 when absent.
    forks: Option<String>,
}

/// Compares a debate with its forks.
///
/// FK-3: one column per debate (this one first), one row per agent per round with the position
/// it held there, each fork's first row that differs from this debate's and the first event
/// where its log went another way, each column's decision and vote baseline, and "3 of 4 forks
/// reached the same decision".
#[utoipa::path(
    get,
    path = "/debates/{id}/compare",
    tag = "debates",
    params(("id" = String, Path, description = "The parent debate's id"), CompareParams),
    responses(
        (status = 200, description = "The debate and its forks side by side", body = Comparison),
        (status = 400, description = "More than 8 forks, or one that is not a fork of this debate, named", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
    )
)]
pub async fn compare(
    State(engine): State<Engine>,
    DebateId(id): DebateId,
    params: Result<Query<CompareParams>, QueryRejection>,
) -> Result<Json<Comparison>, AppError> {
    let Query(p) = params
        .map_err(|e| AppError::BadRequest(format!("invalid query string: {}", e.body_text())))?;
    comparison(&engine, &id, p.forks.as_deref()).await.map(Json)
}

/// FK-3: debate `id` beside its forks `chosen` (comma-separated ids; the newest 8 when `None`),
/// for the API and the audit page.
pub async fn comparison(
    engine: &Engine,
    id: &str,
    chosen: Option<&str>,
) -> Result<Comparison, AppError> {
    let parent = engine.store.events_after(id, 0).await?;
    if parent.is_empty() {
        return Err(super::extract::not_found(id));
    }
    let known = engine.store.forks_of(id).await?;
    let ids: Vec<String> = match chosen {
        None => known
            .iter()
            .take(MAX_COMPARED)
            .map(|f| f.id.clone())
            .collect(),
        Some(list) => {
            let ids: Vec<String> = list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            if ids.len() > MAX_COMPARED {
                return Err(AppError::BadRequest(format!(
                    "forks: at most {MAX_COMPARED}, got {}",
                    ids.len()
                )));
            }
            if let Some(other) = ids.iter().find(|c| !known.iter().any(|f| f.id == **c)) {
                return Err(AppError::BadRequest(format!(
                    "forks: {other} is not a fork of debate {id}"
                )));
            }
            ids
        }
    };
    let mut forks = Vec::with_capacity(ids.len());
    for f in ids {
        let log = engine.store.events_after(&f, 0).await?;
        forks.push((f, log));
    }
    Ok(app::api::compare(id, &parent, &forks))
}
