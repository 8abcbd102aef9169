//! S4-6 / S4-7: turning the locked votes into one decision. Pure and deterministic, so the server,
//! the `verify` command and the judge's browser all compute the same result from the same votes.

use super::types::{Consensus, DecisionCounts, S4Outcome, Vote, VETO_RISK};
use crate::types::{Decision, Position, Role, Verdict};

/// S4-6: veto first, then unanimity, then a two-thirds majority, else `WARN` with the split stated.
pub fn aggregate(votes: &[Vote], changed_minds: Vec<String>) -> S4Outcome {
    let mut counts = DecisionCounts::default();
    for vote in votes {
        counts.add(vote.decision.verdict());
    }
    let max_risk = votes.iter().map(|v| v.risk).max().unwrap_or(0);
    let majority = counts.majority();
    let total = counts.total();
    let majority_count = counts.get(majority);
    let agreement_percentage = if total == 0 {
        0.0
    } else {
        (f64::from(majority_count) * 1000.0 / f64::from(total)).round() / 10.0
    };
    let split_text = format!(
        "{} ACT, {} WARN, {} REFUSE",
        counts.act, counts.warn, counts.refuse
    );

    let veto = votes.iter().find(|v| v.decision == Decision::Veto);
    let (decision, consensus, reasoning) = if let Some(veto) = veto {
        (
            Verdict::Refuse,
            Consensus::Veto,
            format!(
                "{} exercised VETO (risk {}): {}",
                crate::types::display_name(&veto.agent),
                veto.risk,
                veto.reasoning
            ),
        )
    } else if total > 0 && majority_count == total {
        (
            majority,
            Consensus::Unanimous,
            format!("All {total} agents agree on {majority}."),
        )
    } else if total > 0 && majority_count * 100 >= 66 * total {
        (
            majority,
            Consensus::StrongMajority,
            format!("Strong majority for {majority} ({agreement_percentage}%): {split_text}."),
        )
    } else {
        (
            Verdict::Warn,
            Consensus::Split,
            format!(
                "Agents split: {split_text}. This suggests the query has no clear answer, so the \
                 system answers WARN."
            ),
        )
    };

    S4Outcome {
        decision,
        consensus,
        majority,
        agreement_percentage,
        max_risk,
        veto_applied: veto.is_some(),
        veto_agent: veto.map(|v| v.agent.clone()),
        decision_counts: counts,
        changed_minds,
        reasoning,
        budget_exhausted: false,
        vote_baseline: None,
    }
}

/// A debate cut short by its token budget decides from the positions that exist, the most
/// cautious way: the most cautious verdict any vote holds (a `VETO` counts as `REFUSE`), and never
/// better than `WARN`, since the debate did not run to its end. Counts and metadata as in
/// [`aggregate`].
pub fn cut_short(votes: &[Vote], changed_minds: Vec<String>, round: u16) -> S4Outcome {
    let mut out = aggregate(votes, changed_minds);
    let most_cautious = votes
        .iter()
        .map(|v| v.decision.verdict())
        .max()
        .unwrap_or(Verdict::Refuse)
        .max(Verdict::Warn);
    out.reasoning = format!(
        "Token budget exhausted in round {round}: decided from the positions that existed, the most \
         cautious way ({} ACT, {} WARN, {} REFUSE → {most_cautious}).",
        out.decision_counts.act, out.decision_counts.warn, out.decision_counts.refuse
    );
    out.decision = most_cautious;
    out.budget_exhausted = true;
    out
}

/// Messages each round holds for `n` agents: N analyses, N·(N−1) challenges, N revisions, N votes.
pub fn expected_messages(n: usize, round: u16) -> u32 {
    let n = n as u32;
    if round == 2 {
        n * n.saturating_sub(1)
    } else {
        n
    }
}

/// The protocol's own rules on a position, applied whoever the agent is: numbers clamp to 0–100;
/// only the safety role may veto (a veto from another role counts as `REFUSE`); the safety role
/// vetoes whenever its risk is ≥ 50 (S4-6).
pub fn normalise(role: Role, mut p: Position) -> Position {
    p.confidence = p.confidence.min(100);
    p.risk = p.risk.min(100);
    if role == Role::Safety && p.risk >= VETO_RISK {
        p.decision = Decision::Veto;
    } else if role != Role::Safety && p.decision == Decision::Veto {
        p.decision = Decision::Refuse;
    }
    p
}
