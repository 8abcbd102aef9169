//! SV-2: the verdict on a log — its hash chain, then its decision recomputed from the logged
//! votes with the protocol's own code — as the CLI, the audit page and the viewer show it.

use serde::{Deserialize, Serialize};

use crate::protocol::chain::{
    check_budget, recompute_decision, verify_chain, BudgetStop, ChainError, RecomputeError,
};
use crate::protocol::collapse::WcEvent;
use crate::protocol::event::DebateEvent;
use crate::protocol::reconcile::RcEvent;
use crate::protocol::round_robin::RrEvent;
use crate::protocol::s4::S4Event;
use crate::protocol::{Event, EventBody, Outcome};

/// The result of re-checking a log: the chain, then the decision recomputed from the votes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Check {
    /// Chain intact and the logged decision equals the recomputed one.
    Verified {
        events: usize,
        /// The logged inputs the decision was recomputed from: S4 votes, RR turns, WC cards,
        /// verifications and panel evaluations.
        votes: usize,
        outcome: Outcome,
        /// AG-2: the token budget stop, checked against the logged calls.
        #[serde(default)]
        budget: Option<BudgetStop>,
    },
    /// Chain intact, but the debate has no decision to recompute (running or interrupted).
    Unfinished { events: usize },
    /// The first problem found, e.g. "tampered at event 17: …", and the event it is at.
    Failed { reason: String, seq: Option<u64> },
}

impl Check {
    pub fn is_verified(&self) -> bool {
        matches!(self, Check::Verified { .. })
    }

    /// One line a person reads: "verified: 31 events, decision ACT recomputed".
    pub fn headline(&self) -> String {
        match self {
            Check::Verified {
                events, outcome, ..
            } => format!(
                "verified: {events} events, decision {} recomputed",
                outcome.label()
            ),
            Check::Unfinished { events } => format!(
                "chain verified ({events} events), but the log has no decision to recompute (the debate did not finish)"
            ),
            Check::Failed { reason, .. } => reason.clone(),
        }
    }

    /// The event a failed check points at, to highlight it.
    pub fn tampered_at(&self) -> Option<u64> {
        match self {
            Check::Failed { seq, .. } => *seq,
            _ => None,
        }
    }

    /// Everything that was checked, one line each; the headline last.
    pub fn details(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Check::Verified { events: n, .. } | Check::Unfinished { events: n } = self {
            lines.push(format!(
                "chain: {n} events, sequence 1..{n} gap-free, every prev_hash links to its \
                 predecessor, every hash matches its content"
            ));
        }
        if let Check::Verified { votes, outcome, .. } = self {
            lines.push(match outcome {
                Outcome::S4(o) => format!(
                    "decision: {} recomputed from {votes} logged votes ({}, {}% agreement, max risk {}, veto {}) — matches the log",
                    o.decision,
                    o.consensus.label(),
                    o.agreement_percentage,
                    o.max_risk,
                    o.veto_applied
                ),
                Outcome::RoundRobin(o) => format!(
                    "decision: {} recomputed from {votes} logged turns and every round's consensus check ({}% agreement, {} rounds, {} turns) — matches the log",
                    o.stance, o.agreement_percentage, o.total_rounds, o.total_turns
                ),
                Outcome::Collapse(o) => format!(
                    "decision: {} recomputed from {votes} logged cards, verifications and panel evaluations (scores, gates, ranking and panel consensus) — matches the log",
                    o.outcome.as_str()
                ),
                Outcome::Escalation(o) => format!(
                    "decision: {} (DCF target ${:.2}, risk {:.2}) recomputed from the logged findings, {} challenge(s) and their resolutions ({} provisional; cautious fallbacks and facilitator rulings checked) — matches the log",
                    o.results.rating.as_str(),
                    o.results.target_price,
                    o.results.risk_score,
                    o.resolutions.len(),
                    o.provisional.len()
                ),
                Outcome::Reconcile(o) => format!(
                    "decision: {} recomputed from the logged observations, credibility and embeddings — {} topics formed again by the same clustering, every belief's observations and weights checked, {votes} beliefs ({} resolved, {} need clarification) — matches the log",
                    o.verdict.as_str(),
                    o.topics,
                    o.resolved,
                    o.needs_clarification
                ),
            });
        }
        if let Some(b) = match self {
            Check::Verified { outcome, .. } => outcome.vote_baseline(),
            _ => None,
        } {
            lines.push(format!(
                "vote baseline: {} of the first positions → {}, recomputed — matches the log ({})",
                b.counted,
                b.decision,
                if b.changed_outcome {
                    "the debate changed the outcome"
                } else {
                    "the debate kept it"
                }
            ));
        }
        if let Check::Verified {
            budget: Some(b), ..
        } = self
        {
            lines.push(format!(
                "budget: stopped at {} of {} tokens — the sum of the {} logged model calls before \
                 the stop, and the budget the debate declared",
                b.used, b.budget, b.calls
            ));
        }
        lines.push(self.headline());
        lines
    }
}

/// SV-2: verifies the hash chain and recomputes the decision with the protocol's own code.
pub fn check(events: &[Event]) -> Check {
    let n = match verify_chain(events) {
        Ok(n) => n,
        Err(e) => {
            let seq = match &e {
                ChainError::Tampered { seq, .. } => Some(*seq),
                ChainError::Empty => None,
            };
            return Check::Failed {
                reason: e.to_string(),
                seq,
            };
        }
    };
    if !events
        .iter()
        .any(|e| matches!(e.body, EventBody::Debate(DebateEvent::Decision(_))))
    {
        return Check::Unfinished { events: n };
    }
    match recompute_decision(events) {
        Ok(outcome) => Check::Verified {
            events: n,
            votes: events
                .iter()
                .filter(|e| {
                    matches!(
                        e.body,
                        EventBody::S4(S4Event::Vote { .. })
                            | EventBody::RoundRobin(RrEvent::Turn { .. })
                            | EventBody::Collapse(WcEvent::CardSubmitted(_))
                            | EventBody::Collapse(WcEvent::CardVerified(_))
                            | EventBody::Collapse(WcEvent::PanelEvaluated(_))
                            | EventBody::Reconcile(RcEvent::Belief(_))
                    )
                })
                .count(),
            outcome,
            // recompute_decision has checked it; this only reports it.
            budget: check_budget(events).ok().flatten(),
        },
        // A budget stop the calls do not bear out: that event is what is wrong.
        Err(RecomputeError::Budget { seq, reason }) => Check::Failed {
            reason: format!("token budget: {reason}"),
            seq: Some(seq),
        },
        // The votes do not produce the logged decision: the decision event is what is wrong.
        Err(e) => Check::Failed {
            reason: e.to_string(),
            seq: events
                .iter()
                .find(|e| matches!(e.body, EventBody::Debate(DebateEvent::Decision(_))))
                .map(|e| e.seq),
        },
    }
}
