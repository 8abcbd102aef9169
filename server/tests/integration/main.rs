//! The server's integration tests, linked as one binary: as a test target each, every file here
//! would statically link the whole server — nineteen links of the same code, which filled a CI
//! machine's disk. One module per subject; `common` starts the real `consilium` binary on a
//! real database (SQLite, or PostgreSQL when `CONSILIUM_TEST_DB` says so) and reads its SSE.
//!
//! Select a subject with a filter: `cargo test -p server --test integration -- reconcile::`.
//! `make test` runs the subjects that touch storage again on PostgreSQL by such filters, and the
//! real-model tier (`real_model::`, `#[ignore]`d unless asked) against a local llama.cpp server.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::too_many_lines)] // a test: a panic is a failure with its place; a scenario reads top to bottom

mod common;

mod access;
mod bad_input;
mod budget_pause;
mod credibility;
mod docs;
mod escalation;
mod eval;
mod export;
mod fork;
mod fork_changes;
mod gate;
mod http_api;
mod judges;
mod keys;
mod limits;
mod live_calls;
mod openapi;
mod postgres;
mod protocols;
mod real_model;
mod reconcile;
mod remote_agents;
mod size_budget;
mod slow_clients;
mod tls;
mod verify;
mod wire;
