//! Placeholder until the WC machine lands.

use std::collections::VecDeque;

use super::{PositionCard, WcOutcome, WcParams};
use crate::protocol::event::EventBody;
use crate::protocol::request::{AgentReply, AgentRequest};
use crate::protocol::types::AgentSpec;
use crate::protocol::ProtocolError;

#[derive(Debug)]
pub struct WcDebate {
    agents: Vec<AgentSpec>,
    events: VecDeque<EventBody>,
    outcome: Option<WcOutcome>,
}

impl WcDebate {
    pub fn new(
        _query: &str,
        _authors: Vec<AgentSpec>,
        _user_cards: Vec<PositionCard>,
        _params: WcParams,
        _seed: u64,
    ) -> Result<Self, ProtocolError> {
        Err(ProtocolError::BadParameter {
            field: "protocol",
            problem: "collapse is not implemented yet".into(),
        })
    }
    pub fn agents(&self) -> &[AgentSpec] {
        &self.agents
    }
    pub fn outcome(&self) -> Option<&WcOutcome> {
        self.outcome.as_ref()
    }
    pub fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }
    pub fn poll_event(&mut self) -> Option<EventBody> {
        self.events.pop_front()
    }
    pub fn poll_request(&mut self) -> Option<AgentRequest> {
        None
    }
    pub fn handle_reply(&mut self, id: u32, _reply: AgentReply) -> Result<(), ProtocolError> {
        Err(ProtocolError::UnknownRequest(id))
    }
    pub fn handle_failure(&mut self, id: u32, _error: &str) -> Result<(), ProtocolError> {
        Err(ProtocolError::UnknownRequest(id))
    }
}

/// Placeholder until the WC rules land.
pub fn recompute(_events: &[crate::protocol::Event]) -> Result<WcOutcome, String> {
    Err("collapse logs cannot be recomputed yet".into())
}

pub fn default_authors() -> Vec<AgentSpec> {
    Vec::new()
}

/// Placeholder until the WC what-if lands.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WhatIf {
    pub outcome: Option<super::WcOutcomeKind>,
    pub chosen: Option<String>,
    pub scores: Vec<super::Ranked>,
    pub consensus: Vec<super::Ranked>,
    pub steps: Vec<String>,
    pub unknown: Option<String>,
}

pub fn what_if(_events: &[crate::protocol::Event], _params: &WcParams) -> WhatIf {
    WhatIf {
        outcome: None,
        chosen: None,
        scores: vec![],
        consensus: vec![],
        steps: vec![],
        unknown: Some("not implemented".into()),
    }
}
