//! What a round-robin debate asks its agents and what they answer (RR-1). The request envelope wraps
//! them; on the wire a task is `{"kind": …, …}` and so is a reply.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{PeerPosition, RrPosition};
use crate::shared::Query;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RrTask {
    /// RR-1: one round-robin turn: the query, the agent's own latest position (none on its first
    /// turn) and the latest position of every peer that has spoken.
    Turn {
        query: Arc<str>,
        /// The agent's 1-based turn number.
        turn: u32,
        own: Option<RrPosition>,
        peers: Vec<PeerPosition>,
    },
}

impl RrTask {
    /// Every `kind` these tasks have on the wire.
    pub const KINDS: &'static [&'static str] = &["turn"];

    /// The reply variant this task expects, as named in the reply's `kind`.
    pub fn expects(&self) -> &'static str {
        match self {
            RrTask::Turn { .. } => "stance",
        }
    }
}

impl Query for RrTask {
    fn query(&self) -> &Arc<str> {
        match self {
            RrTask::Turn { query, .. } => query,
        }
    }

    fn query_mut(&mut self) -> &mut Arc<str> {
        match self {
            RrTask::Turn { query, .. } => query,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RrReply {
    Stance(RrPosition),
}

impl RrReply {
    /// Every `kind` these replies have on the wire.
    pub const KINDS: &'static [&'static str] = &["stance"];

    pub fn kind(&self) -> &'static str {
        match self {
            RrReply::Stance(_) => "stance",
        }
    }
}
