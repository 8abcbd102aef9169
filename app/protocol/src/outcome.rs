//! The result of a debate, whatever its protocol: the payload of the final `decision` event.

use serde::{Deserialize, Serialize};

use super::baseline::types::VoteBaseline;
use super::collapse::WcOutcome;
use super::escalation::EsOutcome;
use super::reconcile::RcOutcome;
use super::round_robin::{RrEnding, RrOutcome};
use super::s4::S4Outcome;

/// The payload of a `decision` event. On the wire it is the protocol's own object: S4 has
/// `decision`, RR has `stance`, WC has `outcome` (each required, so parsing is unambiguous).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Outcome {
    S4(S4Outcome),
    RoundRobin(RrOutcome),
    Collapse(WcOutcome),
    /// Last: its required `results` is the key no other outcome has.
    Escalation(Box<EsOutcome>),
    /// RC: its required `beliefs` is the key no outcome above has.
    Reconcile(RcOutcome),
}

impl Outcome {
    /// The one-word result: `ACT`, `BUY`, `CONSENSUS_REACHED`, …
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::S4(o) => o.decision.as_str(),
            Outcome::RoundRobin(o) => o.stance.as_str(),
            Outcome::Collapse(o) => o.outcome.as_str(),
            Outcome::Escalation(o) => o.results.rating.as_str(),
            Outcome::Reconcile(o) => o.verdict.as_str(),
        }
    }

    pub fn reasoning(&self) -> &str {
        match self {
            Outcome::S4(o) => &o.reasoning,
            Outcome::RoundRobin(o) => &o.reasoning,
            Outcome::Collapse(o) => &o.reasoning,
            Outcome::Escalation(o) => &o.reasoning,
            Outcome::Reconcile(o) => &o.reasoning,
        }
    }

    /// Whether the debate was cut short by its token budget (status `budget_exhausted`).
    pub fn budget_exhausted(&self) -> bool {
        match self {
            Outcome::S4(o) => o.budget_exhausted,
            Outcome::RoundRobin(o) => o.ending == RrEnding::BudgetExhausted,
            Outcome::Collapse(o) => o.budget_exhausted,
            Outcome::Escalation(o) => o.budget_exhausted,
            Outcome::Reconcile(o) => o.budget_exhausted,
        }
    }

    /// QL-1: the plain vote beside the decision, when the log carries one.
    pub fn vote_baseline(&self) -> Option<&VoteBaseline> {
        match self {
            Outcome::S4(o) => o.vote_baseline.as_ref(),
            Outcome::RoundRobin(o) => o.vote_baseline.as_ref(),
            Outcome::Collapse(o) => o.vote_baseline.as_ref(),
            Outcome::Escalation(o) => o.vote_baseline.as_ref(),
            Outcome::Reconcile(o) => o.vote_baseline.as_ref(),
        }
    }

    pub fn set_vote_baseline(&mut self, baseline: Option<VoteBaseline>) {
        match self {
            Outcome::S4(o) => o.vote_baseline = baseline,
            Outcome::RoundRobin(o) => o.vote_baseline = baseline,
            Outcome::Collapse(o) => o.vote_baseline = baseline,
            Outcome::Escalation(o) => o.vote_baseline = baseline,
            Outcome::Reconcile(o) => o.vote_baseline = baseline,
        }
    }

    pub fn as_s4(&self) -> Option<&S4Outcome> {
        match self {
            Outcome::S4(o) => Some(o),
            _ => None,
        }
    }
}
