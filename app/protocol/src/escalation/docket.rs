//! UI-4: the judges' desk as cases — every challenge a judge may act on, from every pipeline:
//! held by a judge (level 3), provisional while the pipeline runs (level 4), and provisional
//! after the decision, awaiting review at the gate (L5). Each case carries both positions with
//! the agents' logged credibility (CR-4), the time left on its timer, the impact of taking the
//! other position (ES-8), and similar past rulings — judges' resolutions of the same assumption
//! in other pipelines (precedents). Pure: the server passes in the logs and the wall time.

use serde::{Deserialize, Serialize};

use super::analysis::Company;
use super::analysis::GRAPH;
use super::assumptions::{assumption, Assumptions, Priority};
use super::impact::{impact, ImpactReport};
use super::view::{ChallengeView, EsState};
use crate::credibility::Credibility;
use crate::escalation::{EsEntry, EsEvent};
use crate::shared::{CommonEvent, Seen};

/// What a case waits for, in the order the desk lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CaseKind {
    /// A judge holds it (level 3) and rules before the timer runs out.
    Held,
    /// Provisional while the pipeline runs: open for review (confirm, override, re-debate).
    Provisional,
    /// Provisional after the pipeline's decision: reviewed at the gate (confirm, override).
    Gate,
}

/// One side of a dispute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CaseSide {
    pub agent: String,
    /// `challenger` or `challenged`.
    pub role: String,
    pub value: f64,
    /// The value as shown ("28.0 %").
    pub shown: String,
    /// CR-4 as logged with the pipeline's start; `None` when it logged none for this agent.
    pub credibility: Option<Credibility>,
    /// The provisional value is this side's.
    pub applied: bool,
}

/// A judge's earlier resolution of the same assumption in another pipeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Precedent {
    pub debate: String,
    pub challenge: String,
    pub assumption: String,
    pub value: f64,
    pub shown: String,
    /// "overridden by judge ada", "ruled by judge ada", "confirmed by judge ada".
    pub method: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Case {
    pub debate: String,
    pub query: String,
    pub kind: CaseKind,
    pub challenge: ChallengeView,
    /// "5 h 12 min left", when its timer runs.
    pub time_left: Option<String>,
    /// Challenger first, then the challenged agent.
    pub sides: Vec<CaseSide>,
    /// ES-8: what taking the position not applied would change (provisional cases, once the
    /// pipeline has run its analyses).
    pub impact: Option<ImpactReport>,
    pub precedents: Vec<Precedent>,
    /// The company valued and the assumptions of the latest analysis: the base of the impact
    /// preview a judge sees while typing a value.
    pub company: Company,
    pub assumptions: Option<Assumptions>,
}

/// One pipeline's log, folded for the desk.
#[derive(Debug, Default)]
pub struct Docketed {
    pub cases: Vec<Case>,
    /// This pipeline's judge resolutions, precedents for the others.
    pub precedents: Vec<Precedent>,
}

/// The cases of debate `debate` (its log `events`) at wall time `wall_ms`, and its precedents.
/// Logs of other protocols, or with nothing for a judge, give none.
#[allow(clippy::too_many_lines)] // one arm per ladder event kind
pub fn docket(debate: &str, events: &[EsEntry<'_>], wall_ms: f64) -> Docketed {
    let Some(Seen::Started {
        protocol,
        query,
        config,
        ..
    }) = events.first().map(|e| e.body)
    else {
        return Docketed::default();
    };
    if protocol != "escalation" {
        return Docketed::default();
    }
    let params = config.copied().unwrap_or_default();
    let mut view = EsState {
        params: Some(params),
        ..EsState::default()
    };
    let mut credibility = None;
    let mut decided = false;
    let mut ended = false;
    let mut precedents = Vec::new();
    for e in events {
        match e.body {
            Seen::Common(CommonEvent::Credibility(s)) => credibility = Some(s.clone()),
            Seen::Decided(_) => decided = true,
            Seen::Common(CommonEvent::Interrupted { .. }) => ended = true,
            Seen::Own(EsEvent::ChallengeResolved(r))
                if r.resolution.method.contains("by judge") =>
            {
                let r = &r.resolution;
                precedents.push(Precedent {
                    debate: debate.to_owned(),
                    challenge: r.challenge.clone(),
                    assumption: r.assumption.clone(),
                    value: r.position,
                    shown: shown(&r.assumption, r.position),
                    method: r.method.clone(),
                });
            }
            _ => {}
        }
        if let Seen::Own(event) = e.body {
            view.apply(e.seq, event);
        }
    }
    if ended {
        return Docketed {
            cases: Vec::new(),
            precedents,
        };
    }
    let now = match events.last() {
        Some(last) if !decided => view.now_at(last.ts, wall_ms),
        _ => view.now,
    };
    let base = view.analyses.last().map(|a| a.assumptions.clone());
    let cases = view
        .challenges
        .iter()
        .filter_map(|c| {
            let kind = match (c.judge.is_some(), c.is_provisional(), decided) {
                (true, _, false) => CaseKind::Held,
                (_, true, false) => CaseKind::Provisional,
                (_, true, true) => CaseKind::Gate,
                _ => return None,
            };
            let ch = &c.challenge;
            let applied = c.resolution.as_ref().map(|r| r.position);
            let challenged_now = c
                .resolution
                .as_ref()
                .and_then(|r| r.alternatives.iter().find(|(a, _)| *a == ch.challenged))
                .map_or(ch.challenged_value, |(_, v)| *v);
            let side = |agent: &str, role: &str, value: f64| CaseSide {
                agent: agent.to_owned(),
                role: role.to_owned(),
                value,
                shown: shown(&ch.assumption, value),
                credibility: credibility
                    .as_ref()
                    .and_then(|s| s.agents.iter().find(|a| a.agent == agent))
                    .map(|a| a.credibility.clone()),
                applied: applied == Some(value),
            };
            let sides = vec![
                side(&ch.challenger, "challenger", ch.challenger_value),
                side(&ch.challenged, "challenged", challenged_now),
            ];
            let other = sides.iter().find(|s| !s.applied).map(|s| s.value);
            let impact = match (&base, other, kind) {
                (Some(before), Some(v), CaseKind::Provisional | CaseKind::Gate) => {
                    impact(&GRAPH, &params.company, before, &ch.assumption, v).ok()
                }
                _ => None,
            };
            Some(Case {
                debate: debate.to_owned(),
                query: (*query).to_owned(),
                kind,
                time_left: EsState::time_left(c, now),
                challenge: c.clone(),
                sides,
                impact,
                precedents: Vec::new(),
                company: params.company,
                assumptions: base.clone(),
            })
        })
        .collect();
    Docketed { cases, precedents }
}

/// The desk's order: held first, then provisional, then the gate; within each by priority
/// (critical-path first), then by the timer that runs out first.
pub fn order(cases: &mut [Case]) {
    fn rank(p: Priority) -> u8 {
        match p {
            Priority::CriticalPath => 0,
            Priority::ValuationImpact => 1,
            Priority::Supporting => 2,
        }
    }
    cases.sort_by_key(|c| {
        (
            c.kind,
            rank(c.challenge.challenge.priority),
            c.challenge.deadline.unwrap_or(u64::MAX),
        )
    });
}

/// Gives each case up to `most` precedents on its assumption from other pipelines, the latest
/// first (`all` in the order the pipelines were listed, newest first).
pub fn attach_precedents(cases: &mut [Case], all: &[Precedent], most: usize) {
    for c in cases {
        c.precedents = all
            .iter()
            .filter(|p| p.assumption == c.challenge.challenge.assumption && p.debate != c.debate)
            .take(most)
            .cloned()
            .collect();
    }
}

fn shown(key: &str, v: f64) -> String {
    assumption(key).map_or_else(|| v.to_string(), |a| a.show(v))
}

/// A judge's load at the desk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JudgeLoad {
    pub name: String,
    pub load: usize,
}

/// ES-12: a collapse debate whose rules could not settle it, waiting for a judge's decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Escalated {
    pub debate: String,
    pub query: String,
    /// Why the rules escalated it.
    pub reason: String,
}

/// ES-11: a debate paused on its spent token budget, waiting for a judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Paused {
    pub debate: String,
    pub query: String,
    pub used: u64,
    pub budget: u64,
}

/// `GET /api/judge/desk` and the `/judge` page: each judge's load against the capacity, the
/// cases in the desk's order, the collapse debates escalated to a human (ES-12) and the debates
/// awaiting budget approval (ES-11).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeskView {
    pub capacity: usize,
    pub judges: Vec<JudgeLoad>,
    pub cases: Vec<Case>,
    #[serde(default)]
    pub escalated: Vec<Escalated>,
    #[serde(default)]
    pub paused: Vec<Paused>,
}
