//! The escalation pipeline's part of the live view (SV-1): every challenge with its level, its
//! stage, its timer and who holds it; the analyses; a card per message in its agent's column.

use serde::{Deserialize, Serialize};

use super::assumptions::assumption;
use super::clock::show;
use super::ladder::{JudgeAction, Resolution};
use super::messages::{Challenge, MessageKind};
use super::types::{AnalysisRun, EsParams, ImpactRun};
use crate::columns::{Card, Tone};
use crate::escalation::EsEvent;

/// One challenge as a viewer sees it climb.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChallengeView {
    pub challenge: Challenge,
    /// 1–5.
    pub level: u8,
    /// What it waits for now, in words.
    pub stage: String,
    /// Pipeline second its current timer fires, if it has one.
    pub deadline: Option<u64>,
    pub judge: Option<String>,
    pub resolution: Option<Resolution>,
    /// Every climb: (pipeline second, level, reason).
    pub climbs: Vec<(u64, u8, String)>,
}

impl ChallengeView {
    pub fn is_open(&self) -> bool {
        self.resolution.is_none()
    }

    pub fn is_provisional(&self) -> bool {
        self.resolution.as_ref().is_some_and(|r| r.provisional)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EsState {
    pub params: Option<EsParams>,
    /// The latest pipeline second an event carried.
    pub now: u64,
    pub challenges: Vec<ChallengeView>,
    pub analyses: Vec<AnalysisRun>,
    /// ES-8: every override at the gate with its impact and re-run plan.
    #[serde(default)]
    pub impacts: Vec<ImpactRun>,
}

/// ES-3…ES-6: the stage a challenge enters at each level.
fn level_stage(level: u8) -> &'static str {
    match level {
        1 => "waiting for the challenged agent",
        2 => "the facilitator weighs credibility",
        3 => "waiting for a judge",
        4 => "provisional: open for review at the gate",
        _ => "provisional: awaiting review at the gate",
    }
}

impl EsState {
    fn challenge_mut(&mut self, id: &str) -> Option<&mut ChallengeView> {
        self.challenges.iter_mut().find(|c| c.challenge.id == id)
    }

    /// Folds in an escalation event; returns the card it puts in its agent's column, if any.
    #[allow(clippy::too_many_lines)] // one arm per escalation event kind
    pub fn apply(&mut self, seq: u64, body: &EsEvent) -> Option<Card> {
        match body {
            EsEvent::Message { round, message: m } => {
                self.now = self.now.max(m.at);
                let tone = match m.kind {
                    MessageKind::Challenge => Tone::Challenge,
                    MessageKind::Confirmation => Tone::Agreement,
                    _ => Tone::Neutral,
                };
                let title = match (&m.to, m.kind) {
                    (Some(to), kind) => format!("{} → {to}", kind_name(kind)),
                    (None, kind) => kind_name(kind).to_owned(),
                };
                let mut body = m.content.finding.clone();
                for e in &m.content.evidence {
                    body.push_str("\n• ");
                    body.push_str(e);
                }
                let label = match (&m.content.assumption, m.content.value) {
                    (Some(key), Some(v)) => assumption(key).map(|a| a.show(v)),
                    _ => None,
                };
                let mut card = Card::labelled(seq, *round, &m.from, tone, title, label, body);
                if m.content.confidence > 0.0 {
                    card.confidence = Some((m.content.confidence * 100.0).round() as u8);
                }
                return Some(card);
            }
            EsEvent::ChallengeRaised { at, challenge } => {
                self.now = self.now.max(*at);
                self.challenges.push(ChallengeView {
                    challenge: (**challenge).clone(),
                    level: 1,
                    stage: level_stage(1).into(),
                    deadline: Some(challenge.escalation_timer),
                    judge: None,
                    resolution: None,
                    climbs: Vec::new(),
                });
            }
            EsEvent::Escalated(e) => {
                self.now = self.now.max(e.at);
                if let Some(c) = self.challenge_mut(&e.challenge) {
                    c.level = e.level;
                    c.stage = level_stage(e.level).into();
                    c.deadline = match e.level {
                        2 => Some(e.at + super::ladder::FACILITATOR_S),
                        // At the gate, the review window of the provisional value runs on.
                        5 => c.resolution.as_ref().and_then(|r| r.review_by),
                        _ => None,
                    };
                    c.judge = None;
                    c.climbs.push((e.at, e.level, e.reason.clone()));
                }
            }
            EsEvent::JudgeAssigned(j) => {
                self.now = self.now.max(j.at);
                if let Some(c) = self.challenge_mut(&j.challenge) {
                    c.judge = Some(j.judge.clone());
                    c.deadline = Some(j.deadline);
                    c.stage = format!("held by judge {}", j.judge);
                }
            }
            EsEvent::JudgeRuling(j) => {
                self.now = self.now.max(j.at);
                if let Some(c) = self.challenge_mut(&j.challenge) {
                    let what = match &j.action {
                        JudgeAction::Confirm => "confirmed the provisional value".to_owned(),
                        JudgeAction::Override { value, rationale } => format!(
                            "ruled {}: {rationale}",
                            assumption(&c.challenge.assumption)
                                .map_or_else(|| value.to_string(), |a| a.show(*value))
                        ),
                        JudgeAction::Redebate { context } => {
                            c.level = 1;
                            c.stage = level_stage(1).into();
                            c.deadline = Some(j.at + super::ladder::ACK_S);
                            c.resolution = None;
                            format!("sent it back to the agents: {context}")
                        }
                    };
                    c.judge = None;
                    c.climbs
                        .push((j.at, j.level, format!("judge {} {what}", j.judge)));
                }
            }
            EsEvent::ChallengeResolved(r) | EsEvent::ProvisionalDecision(r) => {
                self.now = self.now.max(r.at);
                if let Some(c) = self.challenge_mut(&r.resolution.challenge) {
                    c.stage = if r.resolution.provisional {
                        c.deadline = r.resolution.review_by;
                        level_stage(4).into()
                    } else {
                        c.deadline = None;
                        format!("resolved at level {}", r.resolution.level)
                    };
                    c.level = r.resolution.level;
                    c.resolution = Some(r.resolution.clone());
                }
            }
            EsEvent::Analysis(a) => {
                self.now = self.now.max(a.at);
                self.analyses.push(a.clone());
            }
            EsEvent::Impact(i) => {
                self.now = self.now.max(i.at);
                self.impacts.push((**i).clone());
            }
        }
        None
    }

    /// ES-10: pipeline time at wall time `wall_ms` (Unix milliseconds): the latest event's
    /// pipeline second, run on at the debate's time scale from that event's timestamp `last_ts`.
    pub fn now_at(&self, last_ts: &str, wall_ms: f64) -> u64 {
        let scale = f64::from(self.params.map_or(1, |p| p.time_scale));
        let Some(then) = crate::time::days(last_ts).map(|d| d * 86_400_000.0) else {
            return self.now;
        };
        let since = ((wall_ms - then).max(0.0) * scale / 1000.0) as u64;
        self.now.saturating_add(since)
    }

    /// "5 h 12 min left" for a challenge's timer at pipeline second `now`.
    pub fn time_left(c: &ChallengeView, now: u64) -> Option<String> {
        c.deadline
            .map(|d| format!("{} left", show(d.saturating_sub(now))))
    }
}

fn kind_name(kind: MessageKind) -> &'static str {
    match kind {
        MessageKind::Finding => "Finding",
        MessageKind::FindingWithPrecedent => "Finding with precedent",
        MessageKind::Request => "Request",
        MessageKind::Challenge => "Challenge",
        MessageKind::Confirmation => "Confirmation",
        MessageKind::Alert => "Alert",
    }
}
