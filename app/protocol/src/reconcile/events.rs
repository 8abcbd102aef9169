//! What only a reconciliation logs (RC-1, RC-3, RC-5). The log's envelope wraps it; on the wire
//! each is one event, `{"type": "topic", …}`.

use serde::{Deserialize, Serialize};

use super::{Belief, Embedded, Topic};
use super::{RcConfig, RcOutcome};
use crate::shared::Entry;

/// One event of this protocol's log as it reads it: its own events, its parameters and its outcome.
pub type RcEntry<'a> = Entry<'a, RcEvent, RcConfig, RcOutcome>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RcEvent {
    /// RC-1: the embeddings the topics are formed from (one integer vector per observation).
    Embedded(Embedded),
    /// RC-1: a topic formed, with its members and why each joined.
    Topic(Topic),
    /// RC-3/RC-5: a topic's consolidated belief (or its question for a human), with the
    /// observations, weights and reasoning behind it.
    Belief(Box<Belief>),
}

impl RcEvent {
    /// Every `type` this protocol's events have on the wire.
    pub const TYPES: &'static [&'static str] = &["embedded", "topic", "belief"];

    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            RcEvent::Embedded(_) => "embedded",
            RcEvent::Topic(_) => "topic",
            RcEvent::Belief(_) => "belief",
        }
    }

    /// The round the event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u16> {
        match self {
            RcEvent::Embedded(_) => Some(1),
            RcEvent::Topic(_) => Some(1),
            RcEvent::Belief(_) => Some(2),
        }
    }
}
