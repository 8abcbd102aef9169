//! AG-1: one `Agent` interface, three kinds behind it: `builtin` (the offline default), `openai`
//! (any OpenAI-compatible chat endpoint) and `http` (a remote agent service).

pub mod builtin;
mod embeddings;
pub mod http;
pub mod openai;
pub mod prompt;
pub mod remote;
pub mod secrets;

use app::protocol::{AgentReply, AgentRequest};
use futures::future::BoxFuture;

#[derive(Debug, Clone, thiserror::Error)]
pub enum AgentError {
    #[error("{0}")]
    Failed(String),
}

/// AG-2: what one call cost (defined with the machine that counts it against the budget).
pub use app::protocol::Usage;

/// An agent's answer to one request: the reply (or why there is none) and, for remote kinds,
/// the cost of getting it.
pub struct Answer {
    pub reply: Result<AgentReply, AgentError>,
    pub usage: Option<Usage>,
}

/// Answers one protocol request. Implementations must not panic on any request, and must return
/// (with an error) rather than hang: the runner also bounds every call with a timeout.
pub trait Agent: Send + Sync + 'static {
    fn respond<'a>(&'a self, req: &'a AgentRequest) -> BoxFuture<'a, Answer>;

    /// `builtin`, `openai` or `http`, as logged in `agent_call` events.
    fn backend(&self) -> &'static str;
}

impl Agent for builtin::BuiltinAgents {
    fn respond<'a>(&'a self, req: &'a AgentRequest) -> BoxFuture<'a, Answer> {
        let reply = self.try_reply(req).map_err(AgentError::Failed);
        Box::pin(std::future::ready(Answer { reply, usage: None }))
    }

    fn backend(&self) -> &'static str {
        "builtin"
    }
}
