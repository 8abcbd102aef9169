//! What an escalation debate asks its agents and what they answer (ES-1, ES-3). The request envelope wraps
//! them; on the wire a task is `{"kind": …, …}` and so is a reply.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Challenge, ChallengeAnswer, Company, Estimate, EvidenceVerdict};
use crate::shared::Query;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EsTask {
    /// ES-1: state a value, with confidence and evidence, for each named assumption.
    Estimate {
        query: Arc<str>,
        assumptions: Vec<String>,
        company: Company,
    },
    /// ES-3: the challenged agent answers a challenge to its value.
    AnswerChallenge {
        query: Arc<str>,
        challenge: Challenge,
        own_value: f64,
        /// ES-7: what judges added when they sent the challenge back (empty the first time).
        context: Vec<String>,
    },
    /// ES-3: the challenger weighs the challenged agent's evidence.
    WeighEvidence {
        query: Arc<str>,
        challenge: Challenge,
        value: f64,
        evidence: Vec<String>,
    },
}

impl EsTask {
    /// Every `kind` these tasks have on the wire.
    pub const KINDS: &'static [&'static str] = &["estimate", "answer_challenge", "weigh_evidence"];

    /// The reply variant this task expects, as named in the reply's `kind`.
    pub fn expects(&self) -> &'static str {
        match self {
            EsTask::Estimate { .. } => "estimates",
            EsTask::AnswerChallenge { .. } => "challenge_answer",
            EsTask::WeighEvidence { .. } => "verdict",
        }
    }
}

impl Query for EsTask {
    fn query(&self) -> &Arc<str> {
        match self {
            EsTask::Estimate { query, .. }
            | EsTask::AnswerChallenge { query, .. }
            | EsTask::WeighEvidence { query, .. } => query,
        }
    }

    fn query_mut(&mut self) -> &mut Arc<str> {
        match self {
            EsTask::Estimate { query, .. }
            | EsTask::AnswerChallenge { query, .. }
            | EsTask::WeighEvidence { query, .. } => query,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EsReply {
    Estimates(Vec<Estimate>),
    ChallengeAnswer(ChallengeAnswer),
    Verdict(EvidenceVerdict),
}

impl EsReply {
    /// Every `kind` these replies have on the wire.
    pub const KINDS: &'static [&'static str] = &["estimates", "challenge_answer", "verdict"];

    pub fn kind(&self) -> &'static str {
        match self {
            EsReply::Estimates(_) => "estimates",
            EsReply::ChallengeAnswer(_) => "challenge_answer",
            EsReply::Verdict(_) => "verdict",
        }
    }
}
