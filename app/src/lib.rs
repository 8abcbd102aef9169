//! Consilium's shared crate: pure protocol logic and the Leptos UI, compiled natively for the
//! server (`ssr`) and to WebAssembly for the browser (`hydrate`).
#![recursion_limit = "256"]

pub mod api;
pub mod audit;
pub mod protocol;
pub mod track_record;
pub mod ui;

pub use ui::{shell, App};
