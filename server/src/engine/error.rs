//! Why a debate could not start.

use crate::db::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Protocol(#[from] app::protocol::ProtocolError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// FK-1: the debate to fork does not exist.
    #[error("no debate {0}")]
    NoDebate(String),
    /// FK-1: a fork its parent's log cannot take, named.
    #[error("{0}")]
    Fork(String),
    /// The request asks for an agent kind this server is not configured for.
    #[error("{0}")]
    Backend(String),
    /// The server-wide daily token limit for remote backends is used up.
    #[error(
        "this server's daily limit of {limit} tokens for remote models is used up ({spent} spent \
         today); it resets at 00:00 UTC, in {retry_after_s} s"
    )]
    DailyBudget {
        spent: u64,
        limit: u64,
        retry_after_s: u64,
    },
}
