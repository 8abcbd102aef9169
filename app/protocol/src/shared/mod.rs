//! What every protocol uses and the log's envelope wraps: the events any debate logs, the shape
//! of a protocol's machine, its requests and what it emits, the request queue, the optional
//! capability of taking judges, and the changes a fork records. Nothing here imports a protocol
//! or the envelope (tests/layers.rs).

pub mod changes;
pub mod emit;
pub mod entry;
pub mod events;
pub mod judging;
pub mod machine;
pub mod queue;
pub mod request;
pub mod supervision;

pub use changes::{ForkAgent, ForkChanges};
pub use emit::{Emit, NoParams, Started};
pub use entry::{Entry, Seen};
pub use events::{AgentCall, BackendInfo, CommonEvent, RoundInfo};
pub use machine::Machine;
pub use queue::RequestQueue;
pub use request::{Query, Request};
pub use supervision::Supervision;
