//! SV-2 for S4: the decision recomputed from the logged votes with S4's own aggregation
//! (S4-6/S4-7), including a debate cut short by its budget.

use super::rules::{aggregate, cut_short};
use super::types::{S4Outcome, Vote};
use crate::s4::{S4Entry, S4Event};
use crate::shared::{CommonEvent, Seen};

/// Why the logged S4 decision does not stand.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// The log has no S4 decision.
    NoDecision,
    /// The votes give another decision than the logged one (both summarised).
    Decision { logged: String, recomputed: String },
}

/// SV-2: the S4 decision the logged votes give, checked against the logged one.
pub fn recompute(events: &[S4Entry<'_>]) -> Result<S4Outcome, Mismatch> {
    let mut votes: Vec<Vote> = Vec::new();
    let mut initial: Vec<(&str, crate::types::Decision)> = Vec::new();
    let mut logged = None;
    let mut cut_in = None;
    for e in events {
        match e.body {
            Seen::Common(CommonEvent::BudgetExhausted { round, .. }) => cut_in = Some(*round),
            Seen::Own(S4Event::Position {
                agent, position, ..
            }) => initial.push((agent, position.decision)),
            Seen::Own(S4Event::Vote { vote, .. }) => votes.push(vote.clone()),
            Seen::Decided(outcome) => logged = Some(outcome),
            _ => {}
        }
    }
    let logged = logged.ok_or(Mismatch::NoDecision)?;
    let changed = votes
        .iter()
        .filter(|v| {
            initial.iter().find(|(a, _)| *a == v.agent).map(|(_, d)| *d) != Some(v.decision)
        })
        .map(|v| v.agent.clone())
        .collect();
    let recomputed = match cut_in {
        None => aggregate(&votes, changed),
        Some(round) => cut_short(&votes, changed, round),
    };
    if &recomputed != logged {
        return Err(Mismatch::Decision {
            logged: summary(logged),
            recomputed: summary(&recomputed),
        });
    }
    Ok(recomputed)
}

fn summary(o: &S4Outcome) -> String {
    format!(
        "{} ({}, {}% agreement, veto {})",
        o.decision,
        o.consensus.label(),
        o.agreement_percentage,
        o.veto_applied
    )
}
