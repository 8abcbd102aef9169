//! FK-1/FK-4: forks of a debate over the JSON API: one fork from an event, with changes, or a
//! batch of forks by seed that says how often the decision held.

use std::net::IpAddr;
use std::time::Duration;

use app::api::{Created, ErrorBody};
use app::protocol::event::DebateEvent;
use app::protocol::run::{wilson, ForkChanges};
use app::protocol::EventBody;
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use serde::{Deserialize, Serialize};

use super::error::AppError;
use super::extract::{json_object, DebateId};
use crate::access::client::ClientAddr;
use crate::access::{Caller, Principal, SharedAccess};
use crate::engine::Engine;

/// `POST /api/debates/{id}/fork`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForkRequest {
    /// The parent's event the fork goes on after (its events 1..=after_seq are copied).
    pub after_seq: u64,
    #[serde(default)]
    pub changes: ForkChanges,
}

/// Forks a debate after one of its events.
///
/// FK-1: the new debate's log opens with `forked_from` (the parent, the event and its hash, the
/// changes), then the parent's events up to that one, copied — no agent is asked for them — and
/// goes on live with the changes. Who may fork is who may start a debate.
#[utoipa::path(
    post,
    path = "/debates/{id}/fork",
    tag = "debates",
    params(("id" = String, Path, description = "The parent debate's id")),
    request_body = ForkRequest,
    security((), ("bearer" = []), ("session" = [])),
    responses(
        (status = 201, description = "Forked; follow the fork at `/api/debates/{id}/events`", body = Created),
        (status = 400, description = "An event the log does not have (or after its decision), or a change it cannot take, named", body = ErrorBody),
        (status = 401, description = "This server needs the start token or a judge", body = ErrorBody),
        (status = 403, description = "A viewer, or a signed-in request without this site's Origin", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
        (status = 415, description = "The body is not sent as `application/json`", body = ErrorBody),
        (status = 429, description = "Too many running debates (server-wide or from this address); see `Retry-After`", body = ErrorBody),
        (status = 507, description = "The database is full", body = ErrorBody),
    )
)]
pub async fn fork(
    State(engine): State<Engine>,
    State(access): State<SharedAccess>,
    Caller(who): Caller,
    ClientAddr(client): ClientAddr,
    DebateId(id): DebateId,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<impl IntoResponse, AppError> {
    access.may_start(&who)?;
    let req: ForkRequest = json_object(body?.0)?;
    let place = access.start_place(&who, client)?;
    let child = engine
        .fork(&id, req.after_seq, req.changes, place, false)
        .await?;
    Ok((StatusCode::CREATED, Json(Created { id: child })))
}

/// The most forks one batch runs.
pub const MAX_BATCH: usize = app::api::MAX_BATCH;

/// `POST /api/debates/{id}/forks`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// The parent's event every fork goes on after.
    pub after_seq: u64,
    /// One fork per seed (1 to 20 of them, each different), each with `changes`.
    #[serde(default)]
    pub seeds: Vec<u64>,
    /// What every fork of the batch changes (with `seeds`, each fork's seed is its own).
    #[serde(default)]
    pub changes: ForkChanges,
    /// Instead of `seeds`: one fork per change set (1 to 20).
    #[serde(default)]
    pub change_sets: Vec<ForkChanges>,
}

impl BatchRequest {
    /// The change set of every fork the batch runs, or what is wrong with the request.
    fn forks(self) -> Result<Vec<ForkChanges>, AppError> {
        let bad = |why: String| Err(AppError::BadRequest(why));
        match (self.seeds.is_empty(), self.change_sets.is_empty()) {
            (true, true) => bad(format!(
                "seeds or change_sets: 1 to {MAX_BATCH} forks, got none"
            )),
            (false, false) => bad("seeds and change_sets: give one of them, not both".into()),
            (false, true) => {
                if self.seeds.len() > MAX_BATCH {
                    return bad(format!(
                        "seeds: 1 to {MAX_BATCH} of them, got {}",
                        self.seeds.len()
                    ));
                }
                if let Some((i, s)) = self
                    .seeds
                    .iter()
                    .enumerate()
                    .find(|(i, s)| self.seeds[..*i].contains(s))
                {
                    return bad(format!("seeds[{i}]: seed {s} is already in the batch"));
                }
                Ok(self
                    .seeds
                    .iter()
                    .map(|s| ForkChanges {
                        seed: Some(*s),
                        ..self.changes.clone()
                    })
                    .collect())
            }
            (true, false) => {
                if !self.changes.is_empty() {
                    return bad(
                        "changes: with change_sets, each set says all its fork changes".into(),
                    );
                }
                if self.change_sets.len() > MAX_BATCH {
                    return bad(format!(
                        "change_sets: 1 to {MAX_BATCH} of them, got {}",
                        self.change_sets.len()
                    ));
                }
                Ok(self.change_sets)
            }
        }
    }
}

/// One fork of a batch, as it ended.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct BatchFork {
    pub id: String,
    /// Its seed, when it changed the seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// What it changed.
    pub changes: ForkChanges,
    /// `finished`, `budget_exhausted`, `interrupted`, or `running` when it had not ended in time.
    pub status: String,
    /// Its decision's label, once it decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
}

/// FK-4: how robust the parent's decision is.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct BatchReply {
    /// The parent's decision.
    pub decision: String,
    pub forks: Vec<BatchFork>,
    /// Forks that reached the parent's decision, of those that decided.
    pub held: u32,
    pub decided: u32,
    /// The 95 % Wilson interval for the share of forks that hold the decision.
    pub wilson: [f64; 2],
    /// "4 of 5 forks reached the same decision (ACT)".
    pub summary: String,
}

/// Lists a debate's forks.
///
/// FK-3: newest first (at most 200), each with the event it goes on after, its seed, status and
/// decision, and how many of those that decided reached this debate's decision.
#[utoipa::path(
    get,
    path = "/debates/{id}/forks",
    tag = "debates",
    params(("id" = String, Path, description = "The parent debate's id")),
    responses(
        (status = 200, description = "The forks, and how many held the decision", body = app::api::Forks),
        (status = 404, description = "No debate with this id", body = ErrorBody),
    )
)]
pub async fn list_forks(
    State(engine): State<Engine>,
    DebateId(id): DebateId,
) -> Result<Json<app::api::Forks>, AppError> {
    forks_of(&engine, &id).await.map(Json)
}

/// FK-3: debate `id`'s forks and how many held its decision, for the API and the audit page.
pub async fn forks_of(engine: &Engine, id: &str) -> Result<app::api::Forks, AppError> {
    let Some(detail) = engine.store.get(id).await? else {
        return Err(super::extract::not_found(id));
    };
    let mut forks = engine.store.forks_of(id).await?;
    // FK-3: where each went another way, read from both logs while that stays cheap.
    let parent = engine.store.events_after(id, 0).await?;
    if parent.len() <= DIVERGENCE_EVENTS {
        for f in forks.iter_mut().take(DIVERGENCE_FORKS) {
            let child = engine.store.events_after(&f.id, 0).await?;
            f.diverged_at = app::api::divergence(&parent, &child, f.after_seq);
        }
    }
    Ok(app::api::Forks::of(detail.decision, forks))
}

/// FK-3: where forks went another way is read for the newest 50 forks of a log of up to 5,000
/// events.
const DIVERGENCE_FORKS: usize = 50;
const DIVERGENCE_EVENTS: usize = 5_000;

/// Forks a decided debate once per seed (or per change set) and says how often the decision held.
///
/// FK-4: every fork goes on after the same event with its own seed (and the batch's `changes`,
/// e.g. another model for one agent) or its own change set, unpaced; the reply comes
/// when all have ended (or after 120 s, with those still running named so), with the share that
/// reached the parent's decision and its 95 % Wilson interval. Each fork takes a running place
/// in turn, as a start does.
#[utoipa::path(
    post,
    path = "/debates/{id}/forks",
    tag = "debates",
    params(("id" = String, Path, description = "The parent debate's id")),
    request_body = BatchRequest,
    security((), ("bearer" = []), ("session" = [])),
    responses(
        (status = 200, description = "The forks, how they ended, and how often the decision held", body = BatchReply),
        (status = 400, description = "No forks, more than 20, a seed twice, a change a fork cannot take, a parent that has not decided, or an event it cannot fork after, named", body = ErrorBody),
        (status = 401, description = "This server needs the start token or a judge", body = ErrorBody),
        (status = 403, description = "A viewer, or a signed-in request without this site's Origin", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
        (status = 415, description = "The body is not sent as `application/json`", body = ErrorBody),
        (status = 429, description = "Too many running debates (server-wide or from this address); see `Retry-After`", body = ErrorBody),
        (status = 507, description = "The database is full", body = ErrorBody),
    )
)]
pub async fn forks(
    State(engine): State<Engine>,
    State(access): State<SharedAccess>,
    Caller(who): Caller,
    ClientAddr(client): ClientAddr,
    DebateId(id): DebateId,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<BatchReply>, AppError> {
    access.may_start(&who)?;
    let req: BatchRequest = json_object(body?.0)?;
    batch(&engine, &access, &who, client, &id, req)
        .await
        .map(Json)
}

/// FK-4: runs a batch of forks of decided debate `id` for `who` (already allowed to start) at
/// `client`, one running place at a time; for the API and the audit page's fork form.
pub async fn batch(
    engine: &Engine,
    access: &SharedAccess,
    who: &Principal,
    client: IpAddr,
    id: &str,
    req: BatchRequest,
) -> Result<BatchReply, AppError> {
    let after_seq = req.after_seq;
    let sets = req.forks()?;
    let parent = engine.store.events_after(id, 0).await?;
    let Some(decision) = parent.iter().rev().find_map(|e| match &e.body {
        EventBody::Debate(DebateEvent::Decision(o)) => Some(o.label().to_owned()),
        _ => None,
    }) else {
        return Err(if parent.is_empty() {
            super::extract::not_found(id)
        } else {
            AppError::BadRequest(format!(
                "debate {id} has not decided: a batch says how often its decision held"
            ))
        });
    };
    let mut forks = Vec::with_capacity(sets.len());
    let until = tokio::time::Instant::now() + crate::access::limits::BATCH_WAIT;
    for changes in sets {
        // One running place at a time: the batch never takes more than a start would.
        let place = access.start_place(who, client)?;
        let seed = changes.seed;
        let child = engine
            .fork(id, after_seq, changes.clone(), place, true)
            .await?;
        let status = ended(engine, &child, until).await?;
        let decision = match status.as_str() {
            "running" => None,
            _ => engine
                .store
                .last_event(&child)
                .await?
                .and_then(|e| match e.body {
                    EventBody::Debate(DebateEvent::Decision(o)) => Some(o.label().to_owned()),
                    _ => None,
                }),
        };
        forks.push(BatchFork {
            id: child,
            seed,
            changes,
            status,
            decision,
        });
    }
    let decided = forks.iter().filter(|f| f.decision.is_some()).count() as u32;
    let held = forks
        .iter()
        .filter(|f| f.decision.as_deref() == Some(decision.as_str()))
        .count() as u32;
    let (lo, hi) = wilson(held, decided);
    let summary = format!(
        "{held} of {decided} forks reached the same decision ({decision}); 95 % interval {:.0}–{:.0} %",
        lo * 100.0,
        hi * 100.0
    );
    Ok(BatchReply {
        decision,
        forks,
        held,
        decided,
        wilson: [lo, hi],
        summary,
    })
}

/// Waits (until `until`) for debate `id` to end; its status then.
async fn ended(engine: &Engine, id: &str, until: tokio::time::Instant) -> Result<String, AppError> {
    loop {
        let status = engine.store.status(id).await?;
        match status {
            Some(s) if s.is_over() => return Ok(s.as_str().to_owned()),
            _ if tokio::time::Instant::now() >= until => return Ok("running".into()),
            _ => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}
