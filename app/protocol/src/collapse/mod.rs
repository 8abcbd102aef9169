//! WC — the weighted collapse of position cards (seed 002, WC-1…WC-8) as a sans-IO machine.

pub mod card;
pub mod events;
mod machine;
mod panel;
pub mod params;
mod replay;
pub mod rules;
mod steps;
mod tally;
#[cfg(test)]
mod tests;
pub mod types;
mod validate;
pub mod view;

pub use card::{
    Evidence, EvidenceKind, InvariantViolation, PlanStep, PositionCard, Risk, Severity,
};
pub use events::{
    budget_reason, judge_reason, CardSource, CardSubmitted, CardVerified, Converged, Critiqued,
    Gate, GateCheck, GateVerdict, GatesChecked, HumanDecision, HybridSynthesized, PanelEvaluated,
    PanelScored, Ranked, ReflexionStarted, ScoreBreakdown, Step, WcOutcome, WcOutcomeKind,
};
pub use machine::{default_authors, panel_agents, WcDebate};
pub use params::{default_panel, PanelSeat, WcParams, Weights};
pub use replay::{decide, recompute, what_if, WhatIf};
pub use types::{Critique, PanelEvaluation, PositionScore, Verification};
pub use validate::{check_card, check_evaluation, parse_card, parse_cards, parse_params};
