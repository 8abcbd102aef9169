//! What the API answers: ids, errors, debate summaries and details, and the QL-1/QL-2 figures.

use serde::{Deserialize, Serialize};

use crate::protocol::{DebateStatus, Event};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Created {
    pub id: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    pub error: String,
}

/// One row of `GET /api/debates`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DebateSummary {
    pub id: String,
    pub query: String,
    pub protocol: String,
    /// `running | finished | interrupted | budget_exhausted`.
    pub status: DebateStatus,
    /// The decision's label: `ACT`/`WARN`/`REFUSE` (S4), `BUY`/`SELL`/`HOLD` (RR), or the WC
    /// outcome (`ACCEPTED`, `CONSENSUS_REACHED`, …).
    pub decision: Option<String>,
    pub created_at: String,
    /// QL-1: whether the debate changed what a plain vote of the first positions decided
    /// (absent until it decides, and for debates decided before the baseline existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_outcome: Option<bool>,
}

/// QL-2: one run `consilium eval` saved, as `GET /api/eval` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SavedEval {
    /// The file's name in the server's eval directory.
    pub file: String,
    pub config: crate::protocol::eval::EvalConfig,
    pub started_at: String,
    pub updated_at: String,
    pub wall_ms: u64,
    pub items: usize,
    pub report: crate::protocol::eval::Report,
}

/// QL-1 over every stored debate: `GET /api/debates/baseline`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BaselineCounts {
    /// Decided debates whose decision carries a vote baseline.
    pub decided: u64,
    /// Of those, the debates that changed the plain vote's outcome.
    pub changed: u64,
}

/// `GET /api/debates/{id}`: the summary plus the whole event log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DebateDetail {
    pub id: String,
    pub query: String,
    pub protocol: String,
    /// `running | finished | interrupted | budget_exhausted`.
    pub status: DebateStatus,
    pub decision: Option<String>,
    pub seed: u64,
    pub created_at: String,
    pub events: Vec<Event>,
    /// The server's signature over the log's end, once it has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<crate::audit::signature::LogSignature>,
}
