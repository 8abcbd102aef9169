//! Pure protocol logic (sans-IO): no async, no clock, no I/O, no randomness but a passed-in seed.
//! Compiled natively for the server and to WebAssembly for the browser.

pub mod baseline;
pub mod canonical;
pub mod chain;
pub mod collapse;
pub mod columns;
pub mod credibility;
mod debate;
pub mod defence;
mod error;
pub mod escalation;
pub mod eval;
pub mod event;
pub mod normalise;
mod outcome;
pub mod parse;
mod recompute;
pub mod reconcile;
pub mod reducer;
pub mod request;
pub mod round_robin;
pub mod run;
pub mod s4;
pub mod seeded;
pub mod shared;
pub mod short_str;
pub mod status;
#[cfg(test)]
mod tests;
pub mod time;
pub mod types;

pub use debate::{run_scripted, Debate};
pub use error::ProtocolError;
pub use event::{
    AgentCall, BackendInfo, CommonEvent, Config, DebateEvent, Event, EventBody, RoundInfo,
};
pub use outcome::Outcome;
pub use reducer::DebateView;
pub use request::{AgentReply, AgentRequest, ChallengeSeen, Task};
pub use run::{Answered, DebateRun, Start, Usage};
pub use shared::Machine;
pub use shared::RequestQueue;
pub use shared::Supervision;
pub use status::DebateStatus;
pub use types::{check_agents, AgentSpec, Decision, Position, Role, Verdict};
