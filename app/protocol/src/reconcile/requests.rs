//! What a reconciliation asks its agents and what they answer (RC-1, RC-3). The request envelope wraps
//! them; on the wire a task is `{"kind": …, …}` and so is a reply.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{RcParams, Reconciliation, Weighed};
use crate::shared::Query;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RcTask {
    /// RC-1: embed every observation's text (one request for them all).
    Embed { query: Arc<str>, texts: Vec<String> },
    /// RC-3: reconcile one topic's observations (one request per topic, never per pair).
    Reconcile {
        query: Arc<str>,
        topic: String,
        label: String,
        observations: Vec<Weighed>,
        /// RC-4's margins, which the builtin reconciler applies.
        params: RcParams,
    },
}

impl RcTask {
    /// Every `kind` these tasks have on the wire.
    pub const KINDS: &'static [&'static str] = &["embed", "reconcile"];

    /// The reply variant this task expects, as named in the reply's `kind`.
    pub fn expects(&self) -> &'static str {
        match self {
            RcTask::Embed { .. } => "embeddings",
            RcTask::Reconcile { .. } => "reconciliation",
        }
    }
}

impl Query for RcTask {
    fn query(&self) -> &Arc<str> {
        match self {
            RcTask::Embed { query, .. } | RcTask::Reconcile { query, .. } => query,
        }
    }

    fn query_mut(&mut self) -> &mut Arc<str> {
        match self {
            RcTask::Embed { query, .. } | RcTask::Reconcile { query, .. } => query,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RcReply {
    /// RC-1: one vector per text, in order, and the model that made them.
    Embeddings {
        model: String,
        vectors: Vec<Vec<f32>>,
    },
    /// RC-3: the XML reply's six fields.
    Reconciliation(Reconciliation),
}

impl RcReply {
    /// Every `kind` these replies have on the wire.
    pub const KINDS: &'static [&'static str] = &["embeddings", "reconciliation"];

    pub fn kind(&self) -> &'static str {
        match self {
            RcReply::Embeddings { .. } => "embeddings",
            RcReply::Reconciliation(_) => "reconciliation",
        }
    }
}
