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

/// FK-3: one fork of a debate, as `GET /api/debates/{id}/forks` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ForkSummary {
    pub id: String,
    /// The parent's event the fork goes on after.
    pub after_seq: u64,
    /// The seed its agents answer with.
    pub seed: u64,
    pub status: DebateStatus,
    pub decision: Option<String>,
    pub created_at: String,
}

/// FK-3: a debate's forks, and how many reached its decision.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Forks {
    /// The debate's own decision, once it decided.
    pub decision: Option<String>,
    /// Newest first, at most 200.
    pub forks: Vec<ForkSummary>,
    /// Forks that reached the debate's decision, of those that decided.
    pub held: u32,
    pub decided: u32,
    /// "3 of 4 forks reached the same decision (ACT)".
    pub summary: String,
}

impl Forks {
    /// Counts, against `decision`, the forks that decided.
    pub fn of(decision: Option<String>, forks: Vec<ForkSummary>) -> Forks {
        let decided = forks.iter().filter(|f| f.decision.is_some()).count() as u32;
        let held = forks
            .iter()
            .filter(|f| f.decision.is_some() && f.decision == decision)
            .count() as u32;
        let summary = match (&decision, forks.len()) {
            (_, 0) => "No forks yet.".to_owned(),
            (None, n) => format!("{n} fork(s); this debate has not decided yet."),
            (Some(d), _) => format!("{held} of {decided} forks reached the same decision ({d})."),
        };
        Forks {
            decision,
            forks,
            held,
            decided,
            summary,
        }
    }
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
