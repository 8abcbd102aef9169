//! WC — the weighted collapse of position cards (seed 002, WC-1…WC-8) as a sans-IO machine.

mod card;
mod events;
mod machine;
mod panel;
mod params;
mod recompute;
mod requests;
mod rules;
mod steps;
mod tally;
#[cfg(test)]
mod tests;
mod types;
mod validate;
mod view;
mod whatif;

pub use card::{
    Evidence, EvidenceKind, InvariantViolation, PlanStep, PositionCard, Risk, Severity,
};
pub use events::{WcEntry, WcEvent};
pub use machine::{default_authors, panel_agents, WcDebate, WcEmit};
pub use params::{default_panel, PanelSeat, WcParams, Weights};
pub use recompute::{decide, recompute};
pub use requests::{WcReply, WcTask};
pub use types::{
    budget_reason, judge_reason, CardSource, CardSubmitted, CardVerified, Converged, Critiqued,
    Gate, GateCheck, GateVerdict, GatesChecked, HumanDecision, HybridSynthesized, PanelEvaluated,
    PanelScored, Ranked, ReflexionStarted, ScoreBreakdown, Step, WcOutcome, WcOutcomeKind,
};
pub use types::{Critique, PanelEvaluation, PositionScore, Verification};
pub use validate::{check_card, check_evaluation, parse_card, parse_cards, parse_params};
pub use view::{PositionState, WcState};
pub use whatif::{what_if, WhatIf};
