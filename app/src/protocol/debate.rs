//! One handle over every protocol machine, so the runner, the bench and the tests drive any of
//! them the same way: `poll_request` / `handle_reply` / `handle_failure` / `poll_event`.

use serde::{Deserialize, Serialize};

use super::collapse::{WcDebate, WcOutcome};
use super::request::{AgentReply, AgentRequest};
use super::round_robin::{RrDebate, RrOutcome};
use super::s4::{S4Debate, S4Outcome};
use super::types::AgentSpec;
use super::ProtocolError;

/// The payload of a `decision` event. On the wire it is the protocol's own object: S4 has
/// `decision`, RR has `stance`, WC has `outcome` (each required, so parsing is unambiguous).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Outcome {
    S4(S4Outcome),
    RoundRobin(RrOutcome),
    Collapse(WcOutcome),
}

impl Outcome {
    /// The one-word result: `ACT`, `BUY`, `CONSENSUS_REACHED`, …
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::S4(o) => o.decision.as_str(),
            Outcome::RoundRobin(o) => o.stance.as_str(),
            Outcome::Collapse(o) => o.outcome.as_str(),
        }
    }

    pub fn reasoning(&self) -> &str {
        match self {
            Outcome::S4(o) => &o.reasoning,
            Outcome::RoundRobin(o) => &o.reasoning,
            Outcome::Collapse(o) => &o.reasoning,
        }
    }

    pub fn as_s4(&self) -> Option<&S4Outcome> {
        match self {
            Outcome::S4(o) => Some(o),
            _ => None,
        }
    }
}

/// S4-1 / RR-1: at least two agents, at most `max`, unique non-empty ids.
pub fn check_agents(agents: &[AgentSpec], max: usize) -> Result<(), ProtocolError> {
    if agents.len() < 2 {
        return Err(ProtocolError::TooFewAgents(agents.len()));
    }
    if agents.len() > max {
        return Err(ProtocolError::TooManyAgents(agents.len(), max));
    }
    for (i, a) in agents.iter().enumerate() {
        if a.id.trim().is_empty() {
            return Err(ProtocolError::EmptyAgentId);
        }
        if agents[..i].iter().any(|b| b.id == a.id) {
            return Err(ProtocolError::DuplicateAgent(a.id.clone()));
        }
    }
    Ok(())
}

#[derive(Debug)]
pub enum Debate {
    S4(S4Debate),
    RoundRobin(RrDebate),
    Collapse(Box<WcDebate>),
}

macro_rules! each {
    ($self:expr, $m:ident => $e:expr) => {
        match $self {
            Debate::S4($m) => $e,
            Debate::RoundRobin($m) => $e,
            Debate::Collapse($m) => $e,
        }
    };
}

impl Debate {
    pub fn poll_request(&mut self) -> Option<AgentRequest> {
        each!(self, m => m.poll_request())
    }

    pub fn poll_event(&mut self) -> Option<super::EventBody> {
        each!(self, m => m.poll_event())
    }

    pub fn handle_reply(&mut self, id: u32, reply: AgentReply) -> Result<(), ProtocolError> {
        each!(self, m => m.handle_reply(id, reply))
    }

    pub fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        each!(self, m => m.handle_failure(id, error))
    }

    pub fn is_finished(&self) -> bool {
        each!(self, m => m.is_finished())
    }

    pub fn agents(&self) -> &[AgentSpec] {
        each!(self, m => m.agents())
    }
}
