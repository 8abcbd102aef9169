//! The Consilium server. The folders follow the one-way data flow:
//! `router` (HTTP surface) → `http` (JSON API) and `live` (SSE, hub) → `engine` (start, recovery)
//! → `drive` (the loop, sequencer, journal) → `agents` (who answers) and `db` (the log).
//! `access` decides who may do what (judges, the start token, limits, request guards);
//! `cli` wires it together; `outbound` is the one HTTP client for every outbound call.

#![recursion_limit = "256"]

pub mod access;
pub mod agents;
pub mod cli;
pub mod db;
pub mod drive;
/// The builtin agents' sentence model (in the `builtin` crate).
pub use builtin::embed;
pub mod engine;
pub mod eval;
pub mod http;
pub mod live;
pub mod outbound;
pub mod record;
pub mod router;
pub mod signing;
pub mod state;
