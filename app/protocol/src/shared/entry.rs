//! A protocol's own reading of its log: each event as what any debate logs, the debate's start
//! (with this protocol's parameters), one of its own events, or its decision. The envelope gives
//! a protocol its log this way (`entries` in `event/`), so its view, recompute and what-if
//! never name another protocol's events.

use super::events::{BackendInfo, CommonEvent, RoundInfo};
use crate::credibility::ContextTags;
use crate::short_str::Stamp;
use crate::types::AgentSpec;

/// One logged event: its number, its time, and what it is to this protocol.
#[derive(Debug)]
pub struct Entry<'a, E, C, O> {
    pub seq: u64,
    pub ts: &'a Stamp,
    pub body: Seen<'a, E, C, O>,
}

/// What a logged event is to protocol `E` (with parameters `C` and outcome `O`).
#[derive(Debug)]
pub enum Seen<'a, E, C, O> {
    Common(&'a CommonEvent),
    /// `debate_started`, with this protocol's parameters when it logged any.
    Started {
        protocol: &'a str,
        query: &'a str,
        seed: u64,
        agents: &'a [AgentSpec],
        rounds: &'a [RoundInfo],
        config: Option<&'a C>,
        backend: Option<&'a BackendInfo>,
        context: Option<&'a ContextTags>,
    },
    Own(&'a E),
    Decided(&'a O),
    /// Another protocol's event or outcome: never in a log this protocol wrote.
    Other,
}

impl<E, C, O> Clone for Seen<'_, E, C, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, C, O> Copy for Seen<'_, E, C, O> {}

impl<E, C, O> Clone for Entry<'_, E, C, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, C, O> Copy for Entry<'_, E, C, O> {}

impl<'a, E, C, O> Entry<'a, E, C, O> {
    /// The protocol's own event, if this is one.
    pub fn own(&self) -> Option<&'a E> {
        match self.body {
            Seen::Own(e) => Some(e),
            _ => None,
        }
    }

    /// The event any debate logs, if this is one.
    pub fn common(&self) -> Option<&'a CommonEvent> {
        match self.body {
            Seen::Common(e) => Some(e),
            _ => None,
        }
    }
}
