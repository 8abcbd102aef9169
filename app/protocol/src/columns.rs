//! The live view's columns: one per agent, a card per message, grouped by round. Every
//! protocol's view writes cards; the reducer files them.

use serde::{Deserialize, Serialize};

use super::types::Decision;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    Neutral,
    /// Shown in red.
    Challenge,
    /// Shown in green.
    Agreement,
    Failure,
}

/// One message in an agent's column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub seq: u64,
    pub round: u16,
    /// The column (agent id) the card belongs to.
    pub agent: String,
    pub tone: Tone,
    pub title: String,
    pub decision: Option<Decision>,
    /// A label that is not an S4 decision: an RR stance, a WC approval or score.
    #[serde(default)]
    pub label: Option<String>,
    pub confidence: Option<u8>,
    pub risk: Option<u8>,
    pub body: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundView {
    pub round: u16,
    pub name: String,
    pub expected: u32,
    pub received: u32,
    pub started: bool,
    pub cards: Vec<Card>,
}

impl Card {
    /// A card without an S4 decision or numbers: a stance, a verification, a critique.
    pub fn labelled(
        seq: u64,
        round: u16,
        agent: &str,
        tone: Tone,
        title: String,
        label: Option<String>,
        body: String,
    ) -> Card {
        Card {
            seq,
            round,
            agent: agent.to_owned(),
            tone,
            title,
            decision: None,
            label,
            confidence: None,
            risk: None,
            body,
        }
    }
}

impl RoundView {
    /// A round announced but not yet started.
    pub fn planned(round: u16, name: String, expected: u32) -> RoundView {
        RoundView {
            round,
            name,
            expected,
            received: 0,
            started: false,
            cards: Vec::new(),
        }
    }
}
