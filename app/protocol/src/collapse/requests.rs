//! What a collapse debate asks its agents and what they answer (WC-1…WC-5). The request envelope wraps
//! them; on the wire a task is `{"kind": …, …}` and so is a reply.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Critique, PanelEvaluation, PositionCard, Verification};
use crate::shared::Query;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WcTask {
    /// WC-1: write a position card for the query.
    WriteCard { query: Arc<str> },
    /// WC-4 reflexion: revise the agent's card in answer to the skeptic's concerns and the
    /// triggers that fired.
    ReviseCard {
        query: Arc<str>,
        card: PositionCard,
        concerns: Vec<String>,
        triggers: Vec<String>,
    },
    /// WC-3 rule 1: the verifier approves or rejects one card.
    VerifyCard { query: Arc<str>, card: PositionCard },
    /// WC-4/WC-7: the skeptic scores the leading card 0–10 and lists its concerns.
    Critique { query: Arc<str>, card: PositionCard },
    /// WC-5: a panel member scores every candidate position 0–1. Positions are named by id.
    Evaluate {
        query: Arc<str>,
        positions: Vec<(String, PositionCard)>,
    },
}

impl WcTask {
    /// Every `kind` these tasks have on the wire.
    pub const KINDS: &'static [&'static str] = &[
        "write_card",
        "revise_card",
        "verify_card",
        "critique",
        "evaluate",
    ];

    /// The reply variant this task expects, as named in the reply's `kind`.
    pub fn expects(&self) -> &'static str {
        match self {
            WcTask::WriteCard { .. } => "card",
            WcTask::ReviseCard { .. } => "card",
            WcTask::VerifyCard { .. } => "verification",
            WcTask::Critique { .. } => "critique",
            WcTask::Evaluate { .. } => "evaluation",
        }
    }
}

impl Query for WcTask {
    fn query(&self) -> &Arc<str> {
        match self {
            WcTask::WriteCard { query, .. }
            | WcTask::ReviseCard { query, .. }
            | WcTask::VerifyCard { query, .. }
            | WcTask::Critique { query, .. }
            | WcTask::Evaluate { query, .. } => query,
        }
    }

    fn query_mut(&mut self) -> &mut Arc<str> {
        match self {
            WcTask::WriteCard { query, .. }
            | WcTask::ReviseCard { query, .. }
            | WcTask::VerifyCard { query, .. }
            | WcTask::Critique { query, .. }
            | WcTask::Evaluate { query, .. } => query,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WcReply {
    Card(PositionCard),
    Verification(Verification),
    Critique(Critique),
    Evaluation(PanelEvaluation),
}

impl WcReply {
    /// Every `kind` these replies have on the wire.
    pub const KINDS: &'static [&'static str] = &["card", "verification", "critique", "evaluation"];

    pub fn kind(&self) -> &'static str {
        match self {
            WcReply::Card(_) => "card",
            WcReply::Verification(_) => "verification",
            WcReply::Critique(_) => "critique",
            WcReply::Evaluation(_) => "evaluation",
        }
    }
}
