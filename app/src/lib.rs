//! Consilium's shared crate: the Leptos UI, the wire types and the audit, compiled natively for
//! the server (`ssr`) and to WebAssembly for the browser (`hydrate`). The pure protocol core is
//! its own crate (`app/protocol`), re-exported here as `app::protocol`.
#![recursion_limit = "256"]

pub mod api;
pub mod audit;
pub use protocol;
pub mod track_record;
pub mod ui;

pub use ui::{shell, App};
