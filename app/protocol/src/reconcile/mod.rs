//! RC — multi-agent belief reconciliation (seed 003, RC-1…RC-5) as a sans-IO state machine.
//!
//! Observations are embedded in one request (RC-1) and grouped into topics by the cosine
//! similarity of their embeddings ([`cluster`]); each topic of two or more observations is one
//! reconciler request with seed 003's XML prompt ([`reply`], RC-3), its observations weighted
//! by agent credibility and source authority ([`weights`], RC-2); the builtin reconciler
//! answers by RC-4's rules ([`rules`]). Every belief logs the observations, weights and
//! reasoning behind it (RC-5), and [`recompute`] checks them from the log alone.

mod cluster;
mod events;
mod machine;
mod outcome;
mod recompute;
mod reply;
mod requests;
mod rules;
#[cfg(test)]
mod tests;
mod types;
mod validate;
mod vectors;
mod view;
mod weights;

pub use cluster::cluster;
pub use events::{RcEntry, RcEvent};
pub use machine::{agents_of, check_embeddings, lexical_embedding, RcDebate, RcEmit};
pub use outcome::outcome;
pub use recompute::recompute;
pub use reply::{parse as parse_reply, prompt as reply_prompt};
pub use requests::{RcReply, RcTask};
pub use rules::{question, reconcile, unresolved};
pub use types::{
    Authority, Belief, BeliefLine, Embedded, Linkage, Member, Observation, RcConfig, RcOutcome,
    RcParams, RcVerdict, Reconciliation, Topic, Weighed, Weight, AVERAGE_THRESHOLD, EMBEDDER,
    MAX_CONTENT_CHARS, RECONCILER, SCALE, SINGLE,
};
pub use validate::{check_observations, parse_observations, parse_params};
pub use vectors::{quantise, Sum};
pub use view::RcState;

/// Seed 003's conflicting observations, as the `observations` field takes them (RC-1): the
/// home form's starting point, the README's example and the tests' fixture.
pub const EXAMPLE: &str = r#"[
  {"id": "o1", "agent": "agent_a", "content": "The team meeting is at 3pm in Room A", "timestamp": "2026-01-05T09:00:00Z"},
  {"id": "o2", "agent": "agent_b", "content": "The team meeting is at 4pm in Room B", "timestamp": "2026-01-05T09:10:00Z"},
  {"id": "o3", "agent": "agent_a", "content": "John has 3 cats and 2 dogs", "timestamp": "2026-01-05T10:00:00Z"},
  {"id": "o4", "agent": "agent_c", "content": "John has several pets including cats", "timestamp": "2026-01-05T11:00:00Z"},
  {"id": "o5", "agent": "agent_a", "content": "Acme's quarterly revenue is up 10%", "timestamp": "2026-01-06T15:00:00Z", "source_authority": "CEO earnings call"},
  {"id": "o6", "agent": "agent_b", "content": "Acme's quarterly revenue might be up 15%", "timestamp": "2026-01-06T18:00:00Z", "source_authority": "Reddit rumor"},
  {"id": "o7", "agent": "agent_c", "content": "The website redesign project is on track", "timestamp": "2026-01-05T09:00:00Z"},
  {"id": "o8", "agent": "agent_b", "content": "The website redesign project is delayed", "timestamp": "2026-01-07T09:00:00Z"}
]"#;
