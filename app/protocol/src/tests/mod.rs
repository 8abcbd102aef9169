//! The crate's tests that span its modules: the token budget across every protocol, and the
//! helper that answers a round's requests in every order (LM-1).

pub mod any_order;
mod budget;
