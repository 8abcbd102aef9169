//! AG-1: one `Agent` interface, several kinds behind it. `builtin` is the offline default.

pub mod builtin;

use app::protocol::s4::{AgentReply, AgentRequest};
use futures::future::BoxFuture;

#[derive(Debug, Clone, thiserror::Error)]
pub enum AgentError {
    #[error("{0}")]
    Failed(String),
}

/// Answers one protocol request. Implementations must not panic on any request.
pub trait Agent: Send + Sync + 'static {
    fn respond<'a>(
        &'a self,
        req: &'a AgentRequest,
    ) -> BoxFuture<'a, Result<AgentReply, AgentError>>;
}

impl Agent for builtin::BuiltinAgents {
    fn respond<'a>(
        &'a self,
        req: &'a AgentRequest,
    ) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        let reply = self.reply(req);
        Box::pin(std::future::ready(Ok(reply)))
    }
}
