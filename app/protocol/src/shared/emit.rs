//! What a protocol's machine logs: an event any debate logs, its own start and decision, or an
//! event of its own. The envelope turns each into the log's event (`debate_started` with the
//! protocol's parameters under `config`, `decision` with its outcome).

use super::events::{CommonEvent, RoundInfo};
use crate::types::AgentSpec;

/// `E` is the protocol's own events, `C` the parameters its start logs, `O` its outcome.
#[derive(Clone, Debug, PartialEq)]
pub enum Emit<E, C, O> {
    Common(CommonEvent),
    Started(Box<Started<C>>),
    Own(E),
    Decided(O),
}

impl<E, C, O> From<CommonEvent> for Emit<E, C, O> {
    fn from(e: CommonEvent) -> Self {
        Emit::Common(e)
    }
}

/// A debate's start as its machine logs it; the runner adds the backend and the context.
#[derive(Clone, Debug, PartialEq)]
pub struct Started<C> {
    pub protocol: String,
    pub query: String,
    pub seed: u64,
    pub agents: Vec<AgentSpec>,
    pub rounds: Vec<RoundInfo>,
    /// Parameters the decision is recomputed with; none for a protocol without (S4).
    pub config: Option<C>,
}

/// The parameters of a protocol that logs none with its start (S4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoParams {}
