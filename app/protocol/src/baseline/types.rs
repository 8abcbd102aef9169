//! QL-1's record as logged in every `decision` event. Data only: the protocols' outcome types
//! carry it, and the fold in `baseline` computes it.

use serde::{Deserialize, Serialize};

/// QL-1, in the `decision` event as `vote_baseline`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteBaseline {
    /// What the plain vote decides, in the protocol's own terms (`WARN`, `BUY`, a card's id).
    pub decision: String,
    /// Whether the debate's decision differs from it.
    pub changed_outcome: bool,
    /// How many independent first positions were counted.
    pub counted: u32,
    /// Agents whose last position differs from their first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<MindChange>,
}

/// One agent that changed its mind during the debate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MindChange {
    pub agent: String,
    pub from: String,
    pub to: String,
    /// True when it moved to the final verdict, false when away from it (or between two others).
    pub toward: bool,
}

impl VoteBaseline {
    /// "A plain vote of the 3 first positions: WARN — the debate changed the outcome."
    pub fn sentence(&self) -> String {
        let verdict = if self.changed_outcome {
            "the debate changed the outcome"
        } else {
            "the debate kept it"
        };
        format!(
            "A plain vote of the {} first position{} would have decided {}: {verdict}.",
            self.counted,
            if self.counted == 1 { "" } else { "s" },
            self.decision
        )
    }
}
