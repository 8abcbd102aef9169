//! What only an S4 debate logs (S4-2…S4-5, S4-8). The log's envelope wraps it; on the wire each
//! is one event, `{"type": "position", …}`.

use serde::{Deserialize, Serialize};

use super::types::S4Outcome;
use super::types::Vote;
use crate::shared::{Entry, NoParams};
use crate::types::{Decision, Position};

/// One event of this protocol's log as it reads it: its own events, its parameters and its outcome.
pub type S4Entry<'a> = Entry<'a, S4Event, NoParams, S4Outcome>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum S4Event {
    /// Round 1: an agent's independent analysis (S4-2).
    Position {
        agent: String,
        round: u16,
        #[serde(flatten)]
        position: Position,
    },
    /// Round 2: one of the N·(N−1) cross-challenges (S4-3).
    Challenge {
        round: u16,
        from: String,
        to: String,
        text: String,
        /// The decision the challenger argues the challenged agent should reach.
        argues_for: Decision,
    },
    /// Round 3: an agent's answer to the challenges aimed at it (S4-4).
    Revision {
        agent: String,
        round: u16,
        before: Position,
        after: Position,
        changed: bool,
    },
    /// Round 4: the locked vote (S4-5).
    Vote {
        round: u16,
        #[serde(flatten)]
        vote: Vote,
    },
    /// S4-8: an agent claimed more than 95 % confidence on a complex query; the logged position
    /// carries `clamped_to`.
    ConfidenceClamped {
        agent: String,
        round: u16,
        claimed: u8,
        clamped_to: u8,
    },
}

impl S4Event {
    /// Every `type` this protocol's events have on the wire.
    pub const TYPES: &'static [&'static str] = &[
        "position",
        "challenge",
        "revision",
        "vote",
        "confidence_clamped",
    ];

    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            S4Event::Position { .. } => "position",
            S4Event::Challenge { .. } => "challenge",
            S4Event::Revision { .. } => "revision",
            S4Event::Vote { .. } => "vote",
            S4Event::ConfidenceClamped { .. } => "confidence_clamped",
        }
    }

    /// The round the event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u16> {
        match self {
            S4Event::Position { round, .. } => Some(*round),
            S4Event::Challenge { round, .. } => Some(*round),
            S4Event::Revision { round, .. } => Some(*round),
            S4Event::Vote { round, .. } => Some(*round),
            S4Event::ConfidenceClamped { round, .. } => Some(*round),
        }
    }
}
