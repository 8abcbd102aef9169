//! Pure protocol logic (sans-IO): no async, no clock, no I/O, no randomness but a passed-in seed.
//! Compiled natively for the server and to WebAssembly for the browser.

mod canonical;
pub mod chain;
pub mod collapse;
mod debate;
pub mod defence;
pub mod event;
pub mod parse;
pub mod reducer;
pub mod request;
pub mod round_robin;
pub mod s4;
pub mod types;

pub use debate::{check_agents, Debate, Outcome};
pub use event::{AgentCall, BackendInfo, Config, Event, EventBody, RoundInfo};
pub use reducer::DebateView;
pub use request::{AgentReply, AgentRequest, ChallengeSeen, Task};
pub use types::{AgentSpec, Decision, Position, Role, Verdict};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("a debate needs at least 2 agents, got {0}")]
    TooFewAgents(usize),
    #[error("a debate takes at most {1} agents, got {0}")]
    TooManyAgents(usize, usize),
    #[error("agent ids must not be empty")]
    EmptyAgentId,
    #[error("agent id '{0}' appears twice")]
    DuplicateAgent(String),
    #[error("no outstanding request with id {0}")]
    UnknownRequest(u32),
    #[error("round {round} expects a different reply, got a {got}")]
    WrongReply { round: u8, got: &'static str },
    #[error("{field}: {problem}")]
    BadParameter {
        field: &'static str,
        problem: String,
    },
    #[error("{0}")]
    InvalidCard(String),
}
