//! S4's data: the locked votes and the decision they make (S4-5…S4-7), as logged.

use serde::{Deserialize, Serialize};

use crate::types::{Decision, Role, Verdict};

/// S4-6: the safety role vetoes when its risk reaches this value.
pub const VETO_RISK: u8 = 50;
/// Debates with more agents get unwieldy (N·(N−1) challenges); keep it bounded.
pub const MAX_AGENTS: usize = 8;

pub const ROUND_NAMES: [&str; 4] = ["Initial Analysis", "Challenge", "Revision", "Final Vote"];

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

    pub(crate) fn add(&mut self, v: Verdict) {
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
    /// The token budget ran out before the debate finished: the decision is [`super::rules::cut_short`]'s.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub budget_exhausted: bool,
    /// QL-1: what a plain vote of the first positions decides, and whether the debate changed
    /// it. Absent in logs written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_baseline: Option<crate::baseline::types::VoteBaseline>,
}
