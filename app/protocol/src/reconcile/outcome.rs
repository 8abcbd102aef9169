//! RC's decision: one line per topic, and whether a human must clarify any.

use super::types::{Belief, BeliefLine, RcOutcome, RcVerdict};

pub fn outcome(beliefs: &[Belief], observations: usize, budget_exhausted: bool) -> RcOutcome {
    let unclear = beliefs.iter().filter(|b| b.needs_clarification).count();
    let resolved = beliefs.len() - unclear;
    let verdict = if unclear == 0 {
        RcVerdict::Reconciled
    } else {
        RcVerdict::NeedsClarification
    };
    let conflicts = beliefs.iter().filter(|b| b.conflicts).count();
    let mut reasoning = format!(
        "{observations} observation{} in {} topic{}: {resolved} reconciled, {unclear} need{} a \
         human's clarification; {conflicts} topic{} held a conflict.",
        if observations == 1 { "" } else { "s" },
        beliefs.len(),
        if beliefs.len() == 1 { "" } else { "s" },
        if unclear == 1 { "s" } else { "" },
        if conflicts == 1 { "" } else { "s" },
    );
    if budget_exhausted {
        reasoning
            .push_str(" The token budget ran out: topics not reconciled by then are unresolved.");
    }
    RcOutcome {
        beliefs: beliefs
            .iter()
            .map(|b| BeliefLine {
                topic: b.topic.clone(),
                label: b.label.clone(),
                belief: b.consolidated_belief.clone(),
                confidence: b.confidence,
                needs_clarification: b.needs_clarification,
            })
            .collect(),
        verdict,
        observations: observations as u32,
        topics: beliefs.len() as u32,
        resolved: resolved as u32,
        needs_clarification: unclear as u32,
        reasoning,
        budget_exhausted,
        vote_baseline: None,
    }
}
