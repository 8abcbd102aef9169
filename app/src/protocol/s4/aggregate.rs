//! S4-6 / S4-7: turning the locked votes into one decision. Pure and deterministic, so the server,
//! the `verify` command and the judge's browser all compute the same result from the same votes.

use serde::{Deserialize, Serialize};

use crate::protocol::types::{Decision, Role, Verdict};

/// One agent's locked round-4 vote (S4-5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    pub agent: String,
    pub role: Role,
    pub decision: Decision,
    pub confidence: u8,
    pub risk: u8,
    pub reasoning: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Consensus {
    /// A `VETO` overrode every other vote.
    Veto,
    /// 100 % agreement.
    Unanimous,
    /// ≥ 66 % agreement (two thirds).
    StrongMajority,
    /// Below two thirds: the system admits uncertainty and answers `WARN`.
    Split,
}

impl Consensus {
    pub fn label(self) -> &'static str {
        match self {
            Consensus::Veto => "veto",
            Consensus::Unanimous => "unanimous",
            Consensus::StrongMajority => "strong majority",
            Consensus::Split => "split",
        }
    }
}

/// Votes per verdict; a `VETO` counts as `REFUSE`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionCounts {
    #[serde(rename = "ACT")]
    pub act: u32,
    #[serde(rename = "WARN")]
    pub warn: u32,
    #[serde(rename = "REFUSE")]
    pub refuse: u32,
}

impl DecisionCounts {
    pub fn get(&self, v: Verdict) -> u32 {
        match v {
            Verdict::Act => self.act,
            Verdict::Warn => self.warn,
            Verdict::Refuse => self.refuse,
        }
    }

    fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Act => self.act += 1,
            Verdict::Warn => self.warn += 1,
            Verdict::Refuse => self.refuse += 1,
        }
    }

    pub fn total(&self) -> u32 {
        self.act + self.warn + self.refuse
    }

    /// The most counted verdict; ties go to the more cautious one (S4-6).
    pub fn majority(&self) -> Verdict {
        let mut best = Verdict::Act;
        for v in Verdict::ALL {
            // `>=` because ALL runs from least to most cautious: an equal count later wins.
            if self.get(v) >= self.get(best) {
                best = v;
            }
        }
        best
    }
}

/// The result of an S4 debate (S4-6, S4-7): the payload of the final `decision` event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct S4Outcome {
    pub decision: Verdict,
    pub consensus: Consensus,
    /// The most counted verdict (ties toward caution), before the split rule.
    pub majority: Verdict,
    /// Majority count / votes × 100, rounded to one decimal.
    pub agreement_percentage: f64,
    pub max_risk: u8,
    pub veto_applied: bool,
    pub veto_agent: Option<String>,
    pub decision_counts: DecisionCounts,
    /// Agents whose final vote differs from their round-1 decision.
    pub changed_minds: Vec<String>,
    pub reasoning: String,
    /// The token budget ran out before the debate finished: the decision is [`cut_short`]'s.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub budget_exhausted: bool,
}

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
                crate::protocol::types::display_name(&veto.agent),
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
    }
}

/// A debate cut short by its token budget decides from the positions that exist, the most
/// cautious way: the most cautious verdict any vote holds (a `VETO` counts as `REFUSE`), and never
/// better than `WARN`, since the debate did not run to its end. Counts and metadata as in
/// [`aggregate`].
pub fn cut_short(votes: &[Vote], changed_minds: Vec<String>, round: u8) -> S4Outcome {
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
