//! WC — the weighted collapse of position cards (seed 002, WC-1…WC-8) as a sans-IO machine.

mod card;
mod events;
mod machine;
mod params;
mod replay;
pub mod rules;
mod tally;
#[cfg(test)]
mod tests;
mod validate;

use serde::{Deserialize, Serialize};

pub use card::{
    Evidence, EvidenceKind, InvariantViolation, PlanStep, PositionCard, Risk, Severity,
};
pub use events::{
    budget_reason, CardSource, CardSubmitted, CardVerified, Converged, Critiqued, Gate, GateCheck,
    GateVerdict, GatesChecked, HybridSynthesized, PanelEvaluated, PanelScored, Ranked,
    ReflexionStarted, ScoreBreakdown, Step, WcOutcome, WcOutcomeKind,
};
pub use machine::{default_authors, panel_agents, WcDebate};
pub use params::{default_panel, PanelSeat, WcParams, Weights};
pub use replay::{recompute, what_if, WhatIf};
pub use validate::{check_card, check_evaluation, parse_card, parse_cards, parse_params};

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
