//! The Consilium server: HTTP API, SSE, the debate runner, agents and storage.

pub mod agents;
pub mod bench;
pub mod cli;
pub mod db;
pub mod error;
pub mod outbound;
pub mod pg;
pub mod routes;
pub mod runner;
pub mod sse;
pub mod ui_service;
pub mod verify;
