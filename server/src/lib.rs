//! The Consilium server: HTTP API, SSE, the debate runner, agents and storage.

pub mod agents;
