//! Builtin RR agents (valuation, sentiment, fundamental). Placeholder until they land.

use app::protocol::round_robin::{RrPosition, Stance};
use app::protocol::{AgentReply, AgentRequest};

pub(super) fn turn(_seed: u64, _req: &AgentRequest) -> AgentReply {
    AgentReply::Stance(RrPosition {
        stance: Stance::Hold,
        confidence: 50,
        reasoning: "placeholder".into(),
    })
}
