//! WC's reviews: the verifier's, the skeptic's and the panel's (WC-3…WC-5).

use serde::{Deserialize, Serialize};

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
