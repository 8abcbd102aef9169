//! What an S4 debate asks its agents and what they answer (S4-2…S4-4). The request envelope wraps
//! them; on the wire a task is `{"kind": …, …}` and so is a reply.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::shared::Query;
use crate::types::{Decision, Position, Role};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum S4Task {
    /// S4-2, round 1: the query only.
    Analyse { query: Arc<str> },
    /// S4-3, round 2: the query, the challenger's own round-1 position and the challenged
    /// agent's round-1 reasoning (not its decision or numbers).
    Challenge {
        query: Arc<str>,
        own: Position,
        target: String,
        target_role: Role,
        target_reasoning: String,
    },
    /// S4-4, round 3: the query, the agent's own round-1 position and every challenge aimed at it.
    Revise {
        query: Arc<str>,
        own: Position,
        challenges: Vec<ChallengeSeen>,
    },
}

impl S4Task {
    /// Every `kind` these tasks have on the wire.
    pub const KINDS: &'static [&'static str] = &["analyse", "challenge", "revise"];

    /// The reply variant this task expects, as named in the reply's `kind`.
    pub fn expects(&self) -> &'static str {
        match self {
            S4Task::Analyse { .. } => "position",
            S4Task::Challenge { .. } => "challenge",
            S4Task::Revise { .. } => "position",
        }
    }
}

impl Query for S4Task {
    fn query(&self) -> &Arc<str> {
        match self {
            S4Task::Analyse { query, .. }
            | S4Task::Challenge { query, .. }
            | S4Task::Revise { query, .. } => query,
        }
    }

    fn query_mut(&mut self) -> &mut Arc<str> {
        match self {
            S4Task::Analyse { query, .. }
            | S4Task::Challenge { query, .. }
            | S4Task::Revise { query, .. } => query,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum S4Reply {
    Position(Position),
    Challenge { text: String, argues_for: Decision },
}

impl S4Reply {
    /// Every `kind` these replies have on the wire.
    pub const KINDS: &'static [&'static str] = &["position", "challenge"];

    pub fn kind(&self) -> &'static str {
        match self {
            S4Reply::Position(_) => "position",
            S4Reply::Challenge { .. } => "challenge",
        }
    }
}

/// A challenge as its target receives it in round 3.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeSeen {
    pub from: String,
    pub from_role: Role,
    pub text: String,
    pub argues_for: Decision,
}
