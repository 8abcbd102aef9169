//! Why the protocol core refused a request, a reply or a parameter.

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
    #[error("a {0} reply answers no request of this debate's protocol")]
    OtherProtocol(&'static str),
    #[error("round {round} expects a different reply, got a {got}")]
    WrongReply { round: u16, got: &'static str },
    #[error("{field}: {problem}")]
    BadParameter {
        field: &'static str,
        problem: String,
    },
    #[error("{0}")]
    InvalidCard(String),
    /// RC: observations or parameters that cannot be reconciled, naming the field.
    #[error("{0}")]
    BadInput(String),
    /// A reply of the right kind whose content cannot be used, and why.
    #[error("{0}")]
    BadReply(String),
}
