//! Placeholder: the builtin agents are being written.
use app::protocol::s4::{AgentReply, AgentRequest};
use app::protocol::{Decision, Position};

#[derive(Debug, Clone)]
pub struct BuiltinAgents {
    pub seed: u64,
}

impl BuiltinAgents {
    pub fn new(seed: u64) -> Self {
        BuiltinAgents { seed }
    }

    pub fn reply(&self, _req: &AgentRequest) -> AgentReply {
        AgentReply::Position(Position { decision: Decision::Act, confidence: 50, risk: 0, reasoning: String::new() })
    }
}
