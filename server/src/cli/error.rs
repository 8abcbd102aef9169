//! Why a command failed: printed by `main`, which exits 1.

use std::net::SocketAddr;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Store(#[from] crate::db::StoreError),
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        addr: SocketAddr,
        error: std::io::Error,
    },
    #[error("server error: {0}")]
    Serve(std::io::Error),
    #[error("{0}")]
    Bench(String),
    #[error("{0}")]
    Verify(String),
    #[error("{0}")]
    Embed(#[from] crate::embed::EmbedError),
    #[error("{0}")]
    Signing(#[from] crate::signing::SigningError),
    /// A configuration that would expose the operator (see `refuse_open_spending`).
    #[error("{0}")]
    Unsafe(String),
    #[error("{0}")]
    Judge(String),
    #[error("{0}")]
    Import(String),
    #[error("{0}")]
    Eval(String),
    #[error("{0}")]
    ImportRecord(#[from] crate::record::import::ImportError),
    #[error("{0}")]
    Outbound(#[from] crate::outbound::OutboundError),
}
