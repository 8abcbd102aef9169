//! AG-1: one `Agent` interface, three kinds behind it: `builtin` (the offline default), `openai`
//! (any OpenAI-compatible chat endpoint) and `http` (a remote agent service).

pub use builtin;
mod embeddings;
pub mod endpoint;
pub mod http;
pub mod openai;
pub mod prompt;
pub mod remote;
pub mod secrets;
pub mod stream;

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

    /// LM-3: [`Agent::respond`], sending each piece of the reply to `sink` as it is written
    /// (kinds that cannot stream answer whole).
    fn respond_streaming<'a>(
        &'a self,
        req: &'a AgentRequest,
        sink: stream::Sink<'a>,
    ) -> BoxFuture<'a, Answer> {
        let _ = sink;
        self.respond(req)
    }

    /// LM-1/LM-2: how many of a debate's requests may be in flight at once (1: one at a time,
    /// as the builtin agents answer, paced for people to watch).
    fn parallel(&self) -> usize {
        1
    }

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
