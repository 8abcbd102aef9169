//! RR's data: stances, positions, parameters and outcome, and the checks logged along the way.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::ProtocolError;
use crate::types::Role;

/// An investment stance (RR-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Stance {
    Buy,
    Sell,
    Hold,
}

impl Stance {
    /// Ordered from least to most cautious: a tie goes to the later one, and no consensus is HOLD.
    pub const ALL: [Stance; 3] = [Stance::Buy, Stance::Sell, Stance::Hold];

    pub fn as_str(self) -> &'static str {
        match self {
            Stance::Buy => "BUY",
            Stance::Sell => "SELL",
            Stance::Hold => "HOLD",
        }
    }

    pub fn parse(s: &str) -> Option<Stance> {
        Stance::ALL
            .into_iter()
            .find(|st| st.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for Stance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One agent's position at one turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RrPosition {
    pub stance: Stance,
    /// 0–100.
    pub confidence: u8,
    pub reasoning: String,
}

/// A peer's latest position as the speaking agent sees it (RR-1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerPosition {
    pub agent: String,
    pub role: Role,
    #[serde(flatten)]
    pub position: RrPosition,
}

/// RR-2/RR-3 configuration, logged in `debate_started` so the decision can be recomputed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RrParams {
    /// Share of agents that must hold the same stance, in (0, 1]; 0.75 by default.
    pub consensus_threshold: f64,
    pub min_turns_per_agent: u32,
    pub max_rounds: u16,
}

impl Default for RrParams {
    fn default() -> Self {
        RrParams {
            consensus_threshold: 0.75,
            min_turns_per_agent: 2,
            max_rounds: 5,
        }
    }
}

/// Bounds that keep a debate finite and meaningful. A contested debate runs to its round limit,
/// and its cost is bounded by the token budget (AG-2); 1,000 rounds of 8 agents is a log of
/// about 18,000 events, which the audit view pages (measured at 5,044).
pub const MAX_ROUNDS: u16 = 1_000;
pub const MAX_AGENTS: usize = 8;

impl RrParams {
    pub fn validate(&self) -> Result<(), ProtocolError> {
        let bad =
            |field: &'static str, problem: String| ProtocolError::BadParameter { field, problem };
        if !(self.consensus_threshold > 0.0 && self.consensus_threshold <= 1.0) {
            return Err(bad(
                "consensus_threshold",
                format!("must be in (0, 1], got {}", self.consensus_threshold),
            ));
        }
        if !(1..=MAX_ROUNDS).contains(&self.max_rounds) {
            return Err(bad(
                "max_rounds",
                format!("must be 1–{MAX_ROUNDS}, got {}", self.max_rounds),
            ));
        }
        if self.min_turns_per_agent < 1 || self.min_turns_per_agent > u32::from(self.max_rounds) {
            return Err(bad(
                "min_turns_per_agent",
                format!(
                    "must be 1–max_rounds ({}), got {}",
                    self.max_rounds, self.min_turns_per_agent
                ),
            ));
        }
        Ok(())
    }
}

/// How a round-robin debate ended (RR-2, RR-3, RR-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RrEnding {
    /// The threshold was met after everyone's minimum turns.
    Consensus,
    /// `max_rounds` ran out first.
    MaxRounds,
    /// RR-5: the query did not call for a debate; each agent answered once.
    NoDebate,
    /// The token budget ran out first: the committee holds.
    BudgetExhausted,
}

/// The payload of the final `decision` event of a round-robin debate (RR-4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RrOutcome {
    pub stance: Stance,
    pub consensus_reached: bool,
    pub ending: RrEnding,
    /// Leading stance count / agents × 100, one decimal.
    pub agreement_percentage: f64,
    pub stance_counts: StanceCounts,
    pub total_rounds: u16,
    pub total_turns: u32,
    /// Turns per agent.
    pub agent_participation: BTreeMap<String, u32>,
    pub reasoning: String,
    /// QL-1: what a plain vote of the first positions decides, and whether the debate changed
    /// it. Absent in logs written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_baseline: Option<crate::baseline::types::VoteBaseline>,
}

/// RR-5: the verdict of the trigger check, shown before the first turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerCheck {
    pub triggered: bool,
    /// The phrases that matched, in the order of [`TRIGGER_PHRASES`].
    pub matched: Vec<String>,
    pub explanation: String,
}

/// Latest stances per stance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StanceCounts {
    #[serde(rename = "BUY")]
    pub buy: u32,
    #[serde(rename = "SELL")]
    pub sell: u32,
    #[serde(rename = "HOLD")]
    pub hold: u32,
}

impl StanceCounts {
    pub fn get(&self, s: Stance) -> u32 {
        match s {
            Stance::Buy => self.buy,
            Stance::Sell => self.sell,
            Stance::Hold => self.hold,
        }
    }

    pub(crate) fn add(&mut self, s: Stance) {
        match s {
            Stance::Buy => self.buy += 1,
            Stance::Sell => self.sell += 1,
            Stance::Hold => self.hold += 1,
        }
    }

    /// The most held stance; ties go to the more cautious (HOLD, then SELL).
    pub fn leading(&self) -> Stance {
        let mut best = Stance::Buy;
        for s in Stance::ALL {
            if self.get(s) >= self.get(best) {
                best = s;
            }
        }
        best
    }
}

/// RR-2: the check run after every round; logged as a `consensus_checked` event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConsensusCheck {
    pub round: u16,
    pub stance_counts: StanceCounts,
    pub leading: Stance,
    /// Leading count / all agents × 100, one decimal. Agents without a position count against.
    pub agreement_percentage: f64,
    pub threshold: f64,
    pub reached: bool,
    /// RR-3: has every agent spoken `min_turns_per_agent` times?
    pub min_turns_met: bool,
    /// `None`: another round follows.
    pub ending: Option<RrEnding>,
    pub verdict: String,
}
