//! The track record on the server: reads it into CR-1/CR-3 (pure, in
//! `app::protocol::credibility`), writes the predictions a finished debate holds, and imports
//! records (`consilium track-record import`).

pub mod import;
pub mod sample;

use std::collections::BTreeMap;

use app::protocol::credibility::{
    self, AgentCredibility, Breakdown, ContextTags, CrParams, CredibilitySnapshot,
};
use app::protocol::event::DebateEvent;
use app::protocol::time;
use app::protocol::{AgentSpec, BackendInfo, Event, EventBody};
use app::track_record::{AgentDetail, AgentRow, PredictionRow, RECENT};

use crate::db::track_record::RecordPoint;
use crate::db::{Store, StoreError};

/// A new prediction or import id: `p` and 16 hex digits.
pub fn new_prediction_id() -> String {
    let mut s = uuid::Uuid::new_v4().simple().to_string();
    s.truncate(16);
    format!("p{s}")
}

/// CR-1 for one agent from the stored record, at `now` in `context`.
pub async fn breakdown_of(
    store: &Store,
    identity: &str,
    now: &str,
    context: &ContextTags,
    params: &CrParams,
) -> Result<(Breakdown, Vec<RecordPoint>), StoreError> {
    let record = store.points(identity).await?;
    let points: Vec<_> = record.iter().map(|r| r.point.clone()).collect();
    let now = time::days(now).unwrap_or(0.0);
    Ok((
        credibility::credibility(&points, now, context, params),
        record,
    ))
}

/// CR-4: the snapshot a debate logs at its start — every agent's credibility in the request's
/// context, and the panel's effective votes (CR-3) from the debates they shared.
pub async fn snapshot(
    store: &Store,
    agents: &[AgentSpec],
    backend: Option<&BackendInfo>,
    per_agent: &[(String, BackendInfo)],
    context: &ContextTags,
    now: &str,
    params: &CrParams,
) -> Result<CredibilitySnapshot, StoreError> {
    let mut rows = Vec::new();
    let mut by_debate: BTreeMap<String, Vec<Option<bool>>> = BTreeMap::new();
    for (i, a) in agents.iter().enumerate() {
        let identity = app::protocol::run::agent_identity(backend, per_agent, &a.id);
        let (b, record) = breakdown_of(store, &identity, now, context, params).await?;
        for r in &record {
            if let Some(d) = &r.debate {
                let row = by_debate
                    .entry(d.clone())
                    .or_insert_with(|| vec![None; agents.len()]);
                row[i] = Some(r.point.correct);
            }
        }
        rows.push(AgentCredibility {
            agent: a.id.clone(),
            identity,
            credibility: b.credibility,
            sample: record.iter().any(|r| r.sample),
        });
    }
    let names: Vec<String> = agents.iter().map(|a| a.id.clone()).collect();
    let matrix: Vec<Vec<Option<bool>>> = by_debate.into_values().collect();
    Ok(CredibilitySnapshot {
        as_of: now.to_owned(),
        half_life_days: params.half_life_days,
        agents: rows,
        effective: credibility::effective_votes(&names, &matrix),
    })
}

/// The predictions a log that just ended with its decision holds (nothing otherwise).
pub fn predictions_of(debate: &str, log: &[Event]) -> Vec<PredictionRow> {
    let Some(made_at) = log.iter().rev().find_map(|e| match e.body {
        EventBody::Debate(DebateEvent::Decision(_)) => Some(e.ts.to_string()),
        _ => None,
    }) else {
        return Vec::new();
    };
    credibility::predictions(log)
        .into_iter()
        .map(|h| PredictionRow {
            id: new_prediction_id(),
            identity: h.identity,
            debate_id: Some(debate.to_owned()),
            agent: h.agent,
            held: h.held,
            confidence: h.confidence,
            claim: None,
            detail: h.detail,
            made_at: made_at.clone(),
            tags: h.tags,
            source: "debate".into(),
            outcome: None,
        })
        .collect()
}

/// `GET /api/agents`: every agent with a record and its credibility now (no context).
pub async fn agent_rows(store: &Store, now: &str) -> Result<Vec<AgentRow>, StoreError> {
    let params = CrParams::default();
    let mut out = Vec::new();
    for (identity, predictions, sample) in store.agents().await? {
        let (b, _) = breakdown_of(store, &identity, now, &ContextTags::default(), &params).await?;
        out.push(AgentRow {
            identity,
            credibility: b.credibility,
            predictions,
            sample,
        });
    }
    Ok(out)
}

/// `GET /api/agents/{identity}`: `None` when the agent has no record.
pub async fn agent_detail(
    store: &Store,
    identity: &str,
    now: &str,
    context: &ContextTags,
) -> Result<Option<AgentDetail>, StoreError> {
    let Some((_, predictions, sample)) = store
        .agents()
        .await?
        .into_iter()
        .find(|(i, _, _)| i == identity)
    else {
        return Ok(None);
    };
    let (breakdown, _) = breakdown_of(store, identity, now, context, &CrParams::default()).await?;
    Ok(Some(AgentDetail {
        identity: identity.to_owned(),
        credibility: breakdown.credibility.clone(),
        breakdown,
        predictions,
        sample,
        as_of: now.to_owned(),
        recent: store.predictions_of(identity, RECENT).await?,
    }))
}
