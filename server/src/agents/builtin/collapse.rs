//! Builtin WC agents. Placeholder until they land.

use app::protocol::collapse::Verification;
use app::protocol::{AgentReply, AgentRequest};

pub(super) fn reply(_seed: u64, _req: &AgentRequest) -> AgentReply {
    AgentReply::Verification(Verification {
        approve: false,
        notes: "placeholder".into(),
    })
}
