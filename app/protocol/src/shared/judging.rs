//! What judging a debate takes, for the protocols that take judges (the optional capability
//! [`super::Supervision`]): a dispute's priority in the judges' queue, the desk's answer, a
//! judge's action and why one is refused.

use serde::{Deserialize, Serialize};

/// ES-2: the order a human queue serves disputes in; earlier variants come first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Priority {
    /// The pipeline cannot go on without it (highest).
    CriticalPath,
    /// It moves the DCF inputs or the price target.
    ValuationImpact,
    /// Background research (lowest; deferred to the next gate when the queue is full).
    Supporting,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::CriticalPath => "critical-path",
            Priority::ValuationImpact => "valuation-impact",
            Priority::Supporting => "supporting",
        }
    }
}

/// Where a challenge went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Admission {
    Assigned(String),
    /// Every judge is full: level 4 now.
    Overflow,
    /// Every judge is full and the dispute is `supporting`: deferred to the next gate.
    Deferred,
}

/// ES-7: a judge's action on a challenge at level 3 (a ruling) or on a provisional decision
/// (level 5: confirm, override, re-debate).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum JudgeAction {
    Confirm,
    Override { value: f64, rationale: String },
    Redebate { context: String },
}

/// Why a judge's action was refused: bad input (400) or the wrong moment (409).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulingError {
    Invalid(String),
    Conflict(String),
}
