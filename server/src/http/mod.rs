//! The HTTP contract's pieces: one error mapping, the extractors, the JSON handlers and the
//! server side of the UI's server functions. [`crate::router`] puts them on paths; [`conn`] serves
//! the connections.

pub mod agents;
pub mod compare;
pub mod conn;
pub mod debates;
pub mod error;
pub mod extract;
pub mod fork;
pub mod judge;
pub mod openapi;
pub mod ui_service;
