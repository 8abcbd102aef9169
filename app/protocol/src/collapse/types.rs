//! WC's data as logged: the payloads of its events — each carries what a judge needs to re-check
//! that step: the card and every term of its score, each gate's result, the ranking, the panel —
//! and the reviews its agents return: the verifier's, the skeptic's and the panel's (WC-3…WC-5).

use serde::{Deserialize, Serialize};

use super::card::PositionCard;
use crate::types::Role;

/// WC-2: `S = w_e·E − w_r·R + w_v·v − w_k·(k/100) + w_γ·γ − w_i·I`, with every term shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreBreakdown {
    /// Mean evidence quality (0 with none).
    pub e: f64,
    /// Max over risks of severity weight × residual (0 with none).
    pub r: f64,
    pub v: f64,
    /// k/100.
    pub k: f64,
    pub gamma: f64,
    /// Number of invariant violations.
    pub i: u32,
    /// The signed, weighted terms, in formula order: +w_e·E, −w_r·R, +w_v·v, −w_k·k/100, +w_γ·γ, −w_i·I.
    pub terms: [f64; 6],
    pub total: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardSource {
    /// Written (or revised) by an agent.
    Agent,
    /// Submitted by the user with the debate request.
    User,
    /// WC-6: synthesised from the top two positions.
    Hybrid,
}

/// A card entered the debate (round 1) or was revised in a reflexion round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardSubmitted {
    pub round: u16,
    /// The position id: the author agent's id (or the user card's `agent`).
    pub position: String,
    /// 0 for the first version, n after the n-th reflexion.
    pub revision: u32,
    pub source: CardSource,
    pub card: PositionCard,
    pub score: ScoreBreakdown,
}

/// WC-3 rule 1: the verifier's review of one position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardVerified {
    pub round: u16,
    pub agent: String,
    pub position: String,
    pub approve: bool,
    pub notes: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    VerifierVeto,
    Invariants,
    CriticalRisk,
    Irreversibility,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateVerdict {
    Pass,
    Reject,
    /// Needs a human's approval; never goes to the panel (WC-3).
    Human,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateCheck {
    pub gate: Gate,
    pub verdict: GateVerdict,
    pub detail: String,
}

/// WC-3: the gates, in order, for one position. Gates after the first non-pass are still shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatesChecked {
    pub round: u16,
    pub position: String,
    pub checks: Vec<GateCheck>,
    pub verdict: GateVerdict,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    pub position: String,
    pub score: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// WC-4: top S above the threshold and verified.
    Accept,
    /// WC-4: top two within the gap, or reflexions exhausted.
    Panel,
    Reflexion,
    /// Nothing the protocol may decide alone (only human-gated or rejected positions).
    Human,
}

/// WC-4: the ranking by S among the positions that passed the gates, and what happens next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Converged {
    pub round: u16,
    pub ranking: Vec<Ranked>,
    pub step: Step,
    pub reason: String,
}

/// The skeptic's critique of the leading position before a reflexion (WC-4, WC-7).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Critiqued {
    pub round: u16,
    pub agent: String,
    pub position: String,
    pub score: f64,
    pub concerns: Vec<String>,
}

/// WC-7: why a reflexion loop runs and what the authors must answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReflexionStarted {
    pub round: u16,
    /// 1-based.
    pub attempt: u32,
    pub triggers: Vec<String>,
    pub concerns: Vec<String>,
}

/// WC-5: one panel member's evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PanelEvaluated {
    pub round: u16,
    pub agent: String,
    pub role: Role,
    pub weight: f64,
    #[serde(flatten)]
    pub evaluation: PanelEvaluation,
}

/// WC-5/WC-6: `C(p)` for every position, and the WC-6 rule that applies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PanelScored {
    pub round: u16,
    /// Highest first.
    pub consensus: Vec<Ranked>,
    pub rule: String,
}

/// WC-6: a hybrid of the top two, re-scored by the panel; it must not add a critical risk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HybridSynthesized {
    pub round: u16,
    pub from: Vec<String>,
    pub card: PositionCard,
    pub score: ScoreBreakdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WcOutcomeKind {
    /// WC-4 accepted the top position directly.
    Accepted,
    ConsensusReached,
    HybridSynthesized,
    SafeFallback,
    EscalatedToHuman,
    /// A judge chose a position for a debate escalated to a human (the queue, ES-12).
    DecidedByJudge,
}

impl WcOutcomeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WcOutcomeKind::Accepted => "ACCEPTED",
            WcOutcomeKind::ConsensusReached => "CONSENSUS_REACHED",
            WcOutcomeKind::HybridSynthesized => "HYBRID_SYNTHESIZED",
            WcOutcomeKind::SafeFallback => "SAFE_FALLBACK",
            WcOutcomeKind::EscalatedToHuman => "ESCALATED_TO_HUMAN",
            WcOutcomeKind::DecidedByJudge => "DECIDED_BY_JUDGE",
        }
    }
}

/// ES-12: a judge's decision for a debate escalated to a human: the position chosen, and why.
/// A new `decision` follows it, the judge's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HumanDecision {
    pub judge: String,
    pub chosen: String,
    pub rationale: String,
}

/// The reasoning of the decision a judge made.
pub fn judge_reason(judge: &str, rationale: &str) -> String {
    format!("Decided by judge {judge}: {rationale}")
}

/// The payload of the final `decision` event of a WC debate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WcOutcome {
    pub outcome: WcOutcomeKind,
    /// The chosen position id (`"hybrid"` for a hybrid); `None` when escalated.
    pub chosen: Option<String>,
    /// S of the chosen position.
    pub score: Option<f64>,
    /// C of the chosen position when the panel ran.
    pub consensus: Option<f64>,
    pub reflexions: u32,
    /// WC-8: whether the result may be written to memory, and why (not).
    pub memory_write: bool,
    pub memory_notes: Vec<String>,
    pub reasoning: String,
    /// The token budget ran out before the debate finished: escalated to a human.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub budget_exhausted: bool,
    /// QL-1: what a plain vote of the first positions decides, and whether the debate changed
    /// it. Absent in logs written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_baseline: Option<crate::baseline::types::VoteBaseline>,
}

/// Why a collapse debate cut short by its token budget goes to a human.
pub fn budget_reason(round: u16) -> String {
    format!(
        "The token budget ran out in round {round}, before the positions could be settled: a \
         human decides."
    )
}

/// WC-3 rule 1: the verifier's review of one card. An approval is the "verifier receipt" (WC-8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    pub approve: bool,
    pub notes: String,
}

/// The skeptic's review of the leading card during reflexion (WC-4, WC-7): a 0–10 score and
/// concerns the authors must answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Critique {
    /// 0–10; below 3.0 triggers reflexion (WC-7).
    pub score: f64,
    pub concerns: Vec<String>,
}

/// WC-5: one panel member's evaluation of every candidate position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PanelEvaluation {
    pub scores: Vec<PositionScore>,
    /// The position id this evaluator would pick.
    pub recommendation: String,
    pub concerns: Vec<String>,
    /// 0–1.
    pub confidence: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionScore {
    pub position: String,
    /// 0–1.
    pub score: f64,
    pub rationale: String,
}
