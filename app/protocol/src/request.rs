//! What a protocol machine asks of an agent and what the agent answers, for every protocol. One
//! request type for all protocols keeps the runner and the `Agent` interface (AG-1) protocol-blind:
//! each task carries exactly what the agent may see at that step, and nothing more.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::collapse::PositionCard;
use super::collapse::{Critique, PanelEvaluation, Verification};
use super::escalation::Challenge as EsChallenge;
use super::escalation::Company;
use super::escalation::{ChallengeAnswer, Estimate, EvidenceVerdict};
use super::reconcile::{RcParams, RcReply, Weighed};
use super::round_robin::{PeerPosition, RrPosition};
use super::types::{Decision, Position, Role};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentRequest {
    /// Unique within a debate; the reply is fed back under this id.
    pub id: u32,
    pub agent: String,
    pub role: Role,
    pub round: u16,
    pub task: Task,
}

impl AgentRequest {
    /// FK-1: whether the request is asked of agent `agent`, or is an S4 challenge aimed at it.
    pub fn concerns(&self, agent: &str) -> bool {
        self.agent == agent
            || matches!(&self.task, Task::Challenge { target, .. } if target == agent)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Task {
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
    /// RR-1: one round-robin turn: the query, the agent's own latest position (none on its first
    /// turn) and the latest position of every peer that has spoken.
    Turn {
        query: Arc<str>,
        /// The agent's 1-based turn number.
        turn: u32,
        own: Option<RrPosition>,
        peers: Vec<PeerPosition>,
    },
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
    /// ES-1: state a value, with confidence and evidence, for each named assumption.
    Estimate {
        query: Arc<str>,
        assumptions: Vec<String>,
        company: Company,
    },
    /// ES-3: the challenged agent answers a challenge to its value.
    AnswerChallenge {
        query: Arc<str>,
        challenge: EsChallenge,
        own_value: f64,
        /// ES-7: what judges added when they sent the challenge back (empty the first time).
        context: Vec<String>,
    },
    /// ES-3: the challenger weighs the challenged agent's evidence.
    WeighEvidence {
        query: Arc<str>,
        challenge: EsChallenge,
        value: f64,
        evidence: Vec<String>,
    },
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

impl Task {
    pub fn query(&self) -> &Arc<str> {
        match self {
            Task::Analyse { query }
            | Task::Challenge { query, .. }
            | Task::Revise { query, .. }
            | Task::Turn { query, .. }
            | Task::WriteCard { query }
            | Task::ReviseCard { query, .. }
            | Task::VerifyCard { query, .. }
            | Task::Critique { query, .. }
            | Task::Evaluate { query, .. }
            | Task::Estimate { query, .. }
            | Task::AnswerChallenge { query, .. }
            | Task::WeighEvidence { query, .. }
            | Task::Embed { query, .. }
            | Task::Reconcile { query, .. } => query,
        }
    }

    /// FK-1: the query as this task gives it, to add a fork's note to.
    pub fn query_mut(&mut self) -> &mut Arc<str> {
        match self {
            Task::Analyse { query }
            | Task::Challenge { query, .. }
            | Task::Revise { query, .. }
            | Task::Turn { query, .. }
            | Task::WriteCard { query }
            | Task::ReviseCard { query, .. }
            | Task::VerifyCard { query, .. }
            | Task::Critique { query, .. }
            | Task::Evaluate { query, .. }
            | Task::Estimate { query, .. }
            | Task::AnswerChallenge { query, .. }
            | Task::WeighEvidence { query, .. }
            | Task::Embed { query, .. }
            | Task::Reconcile { query, .. } => query,
        }
    }

    /// FK-1: a fork's note, after the query.
    pub fn add_note(&mut self, note: &str) {
        let query = self.query_mut();
        *query = Arc::from(format!("{query}\n\n{note}"));
    }

    /// The reply variant this task expects, as named in [`AgentReply::kind`].
    pub fn expects(&self) -> &'static str {
        match self {
            Task::Analyse { .. } | Task::Revise { .. } => "position",
            Task::Challenge { .. } => "challenge",
            Task::Turn { .. } => "stance",
            Task::WriteCard { .. } | Task::ReviseCard { .. } => "card",
            Task::VerifyCard { .. } => "verification",
            Task::Critique { .. } => "critique",
            Task::Evaluate { .. } => "evaluation",
            Task::Estimate { .. } => "estimates",
            Task::AnswerChallenge { .. } => "challenge_answer",
            Task::WeighEvidence { .. } => "verdict",
            Task::Embed { .. } => "embeddings",
            Task::Reconcile { .. } => "reconciliation",
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

/// What an agent answers. The variant must match the task it was asked ([`Task::expects`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AgentReply {
    Position(Position),
    Challenge {
        text: String,
        argues_for: Decision,
    },
    Stance(RrPosition),
    Card(PositionCard),
    Verification(Verification),
    Critique(Critique),
    Evaluation(PanelEvaluation),
    Estimates(Vec<Estimate>),
    ChallengeAnswer(ChallengeAnswer),
    Verdict(EvidenceVerdict),
    /// RC-1: one vector per text, in order, and the model that made them.
    Embeddings {
        model: String,
        vectors: Vec<Vec<f32>>,
    },
    /// RC-3: the XML reply's six fields.
    Reconciliation(RcReply),
}

impl AgentReply {
    pub fn kind(&self) -> &'static str {
        match self {
            AgentReply::Position(_) => "position",
            AgentReply::Challenge { .. } => "challenge",
            AgentReply::Stance(_) => "stance",
            AgentReply::Card(_) => "card",
            AgentReply::Verification(_) => "verification",
            AgentReply::Critique(_) => "critique",
            AgentReply::Evaluation(_) => "evaluation",
            AgentReply::Estimates(_) => "estimates",
            AgentReply::ChallengeAnswer(_) => "challenge_answer",
            AgentReply::Verdict(_) => "verdict",
            AgentReply::Embeddings { .. } => "embeddings",
            AgentReply::Reconciliation(_) => "reconciliation",
        }
    }
}
