//! S4 — the four-round debate of seed 001 (S4-1…S4-7) as a sans-IO state machine.

mod machine;
#[cfg(test)]
mod order_tests;
pub mod params;
mod rules;
#[cfg(test)]
mod tests;
pub mod types;
pub mod view;
pub mod whatif;

pub use super::request::{AgentReply, AgentRequest, ChallengeSeen, Task};
pub use machine::{run_scripted, S4Debate};
pub use rules::{aggregate, cut_short, expected_messages, normalise};
pub use types::{Consensus, DecisionCounts, S4Outcome, Vote, MAX_AGENTS, ROUND_NAMES, VETO_RISK};
