//! Why a debate could not start.

use crate::db::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Protocol(#[from] app::protocol::ProtocolError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The request asks for an agent kind this server is not configured for.
    #[error("{0}")]
    Backend(String),
}
