//! S4 — the four-round debate of seed 001 (S4-1…S4-7) as a sans-IO state machine.

mod events;
mod machine;
mod params;
mod recompute;
mod requests;
mod rules;
#[cfg(test)]
mod tests;
mod types;
mod view;
mod whatif;

pub use events::{S4Entry, S4Event};
pub use machine::{S4Debate, S4Emit};
pub use params::parse_params;
pub use recompute::{recompute, Mismatch};
pub use requests::{ChallengeSeen, S4Reply, S4Task};
pub use rules::{aggregate, cut_short, expected_messages, normalise};
pub use types::{Consensus, DecisionCounts, S4Outcome, Vote, MAX_AGENTS, ROUND_NAMES, VETO_RISK};
pub use view::{on_decision, ChallengeCell, Journey, Revision, S4State};
pub use whatif::{what_if, S4WhatIf, S4WhatIfRules};
