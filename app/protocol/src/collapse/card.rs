//! WC-1: the position card, the unit the weighted collapse works on.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionCard {
    pub agent: String,
    /// ISO 8601.
    pub timestamp: String,
    pub claims: Vec<String>,
    pub plan: Vec<PlanStep>,
    pub evidence: Vec<Evidence>,
    pub risks: Vec<Risk>,
    /// γ, 0–1.
    pub confidence: f64,
    /// k: story points, hours or lines of code; normalised as k/100 in the score (WC-2).
    pub cost: u32,
    /// v, 0 (cannot be undone) – 1 (fully reversible).
    pub reversibility: f64,
    pub invariant_violations: Vec<InvariantViolation>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    pub action: String,
    pub rationale: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    Document,
    Test,
    Measurement,
    ExpertReview,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    #[serde(rename = "type")]
    pub kind: EvidenceKind,
    pub pointer: String,
    /// 0–1.
    pub quality: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Risk {
    pub severity: Severity,
    pub description: String,
    pub mitigation: String,
    /// 0–1.
    pub residual_risk: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvariantViolation {
    pub invariant_id: String,
    pub description: String,
    pub justification: String,
    pub requires_approval: bool,
}
