//! CR-1…CR-4: agent credibility from a track record. Pure: the server loads the record and the
//! clock's time, these functions compute; the browser runs the same code on a logged snapshot.
//!
//! - [`identity`]: one stable name per agent across debates (`builtin:safety`,
//!   `openai:qwen2.5-7b:safety`, `http:agents.example:8080:safety`).
//! - [`score`]: CR-1's formula, with its breakdown (every part a viewer may ask about).
//! - [`effective`]: CR-3, the effective number of independent votes of a panel.
//! - [`held`]: what each agent finally held in a finished log (its prediction).
//! - [`snapshot`]: CR-4, the credibility a debate used, logged so verify recomputes the same
//!   weights later.

pub mod effective;
pub mod held;
pub mod identity;
pub mod score;
pub mod snapshot;
mod types;

#[cfg(test)]
mod tests;

pub use effective::{effective_votes, EffectiveVotes};
pub use held::{predictions, Held};
pub use identity::identity;
pub use score::{credibility, wilson};
pub use snapshot::{AgentCredibility, CredibilitySnapshot};
pub use types::{Breakdown, ContextTags, CrParams, CrStatus, Credibility, Period, Point, Trend};
