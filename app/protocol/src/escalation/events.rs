//! What only an escalation debate logs (ES-1…ES-9). The log's envelope wraps it; on the wire
//! each is one event, `{"type": "message", …}`.

use serde::{Deserialize, Serialize};

use super::{
    AnalysisRun, Challenge, Escalated, ImpactRun, JudgeAction, JudgeAssigned, JudgeRuling, Message,
    Resolved,
};
use super::{EsOutcome, EsParams};
use crate::shared::Entry;

/// One event of this protocol's log as it reads it: its own events, its parameters and its outcome.
pub type EsEntry<'a> = Entry<'a, EsEvent, EsParams, Box<EsOutcome>>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EsEvent {
    /// ES-1: a typed message between the pipeline's agents.
    Message {
        round: u16,
        #[serde(flatten)]
        message: Box<Message>,
    },
    /// ES-2: a disagreement on an assumption becomes a challenge at level 1.
    ChallengeRaised {
        at: u64,
        #[serde(flatten)]
        challenge: Box<Challenge>,
    },
    /// ES-3…ES-6: a challenge climbed to `level`.
    Escalated(Escalated),
    /// ES-5: the desk gave a challenge to a judge.
    JudgeAssigned(JudgeAssigned),
    /// ES-5/ES-7: a judge's ruling or gate review, naming the judge.
    JudgeRuling(JudgeRuling),
    /// ES-9: a challenge resolved for good.
    ChallengeResolved(Box<Resolved>),
    /// ES-6: the most cautious position applied provisionally; open for review at the gate.
    ProvisionalDecision(Box<Resolved>),
    /// ES-8: the analyses computed from the pipeline's assumptions.
    Analysis(AnalysisRun),
    /// ES-8: a gate override's downstream impact and re-run plan, before the re-runs.
    Impact(Box<ImpactRun>),
}

impl EsEvent {
    /// Every `type` this protocol's events have on the wire.
    pub const TYPES: &'static [&'static str] = &[
        "message",
        "challenge_raised",
        "escalated",
        "judge_assigned",
        "judge_ruling",
        "challenge_resolved",
        "provisional_decision",
        "analysis",
        "impact",
    ];

    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            EsEvent::Message { .. } => "message",
            EsEvent::ChallengeRaised { .. } => "challenge_raised",
            EsEvent::Escalated(_) => "escalated",
            EsEvent::JudgeAssigned(_) => "judge_assigned",
            EsEvent::JudgeRuling(_) => "judge_ruling",
            EsEvent::ChallengeResolved(_) => "challenge_resolved",
            EsEvent::ProvisionalDecision(_) => "provisional_decision",
            EsEvent::Analysis(_) => "analysis",
            EsEvent::Impact(_) => "impact",
        }
    }

    /// The round the event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u16> {
        match self {
            EsEvent::Message { round, .. } => Some(*round),
            EsEvent::ChallengeRaised { .. } => Some(2),
            EsEvent::Escalated(_) => Some(2),
            EsEvent::JudgeAssigned(_) => Some(2),
            EsEvent::JudgeRuling(_) => Some(2),
            EsEvent::ChallengeResolved(_) => Some(2),
            EsEvent::ProvisionalDecision(_) => Some(2),
            EsEvent::Analysis(_) => None,
            EsEvent::Impact(_) => None,
        }
    }

    /// ES-7: a judge's re-debate, which sends a decided pipeline back to its agents: the log
    /// runs on past its decision, and the debate is `running` again until its next one.
    pub fn reopens(&self) -> bool {
        matches!(self, EsEvent::JudgeRuling(j) if matches!(j.action, JudgeAction::Redebate { .. }))
    }
}
