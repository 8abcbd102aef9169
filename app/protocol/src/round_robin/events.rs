//! What only a round-robin debate logs (RR-1, RR-2, RR-5). The log's envelope wraps it; on the
//! wire each is one event, `{"type": "turn", …}`.

use serde::{Deserialize, Serialize};

use super::{ConsensusCheck, RrPosition, TriggerCheck};
use super::{RrOutcome, RrParams};
use crate::shared::Entry;

/// One event of this protocol's log as it reads it: its own events, its parameters and its outcome.
pub type RrEntry<'a> = Entry<'a, RrEvent, RrParams, RrOutcome>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RrEvent {
    /// RR-5: whether the query calls for a debate, and why.
    TriggerChecked(TriggerCheck),
    /// RR-1: one agent's turn.
    Turn {
        agent: String,
        round: u16,
        /// The agent's 1-based turn number.
        turn: u32,
        #[serde(flatten)]
        position: RrPosition,
    },
    /// RR-2: the consensus check after a round.
    ConsensusChecked(ConsensusCheck),
}

impl RrEvent {
    /// Every `type` this protocol's events have on the wire.
    pub const TYPES: &'static [&'static str] = &["trigger_checked", "turn", "consensus_checked"];

    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            RrEvent::TriggerChecked(_) => "trigger_checked",
            RrEvent::Turn { .. } => "turn",
            RrEvent::ConsensusChecked(_) => "consensus_checked",
        }
    }

    /// The round the event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u16> {
        match self {
            RrEvent::TriggerChecked(_) => None,
            RrEvent::Turn { round, .. } => Some(*round),
            RrEvent::ConsensusChecked(c) => Some(c.round),
        }
    }
}
