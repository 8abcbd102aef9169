//! RR — the AlphaAgents round-robin debate (seed 004, RR-1…RR-5) as a sans-IO state machine.
//!
//! Agents speak one at a time in a fixed order (RR-1); after every round the consensus check runs
//! (RR-2); the debate ends on consensus once every agent has spoken `min_turns_per_agent` times,
//! or after `max_rounds` (RR-3). A trigger check on the query runs first (RR-5).

mod events;
mod machine;
mod recompute;
mod requests;
mod rules;
#[cfg(test)]
mod tests;
mod types;
mod view;
mod whatif;

pub use events::{RrEntry, RrEvent};
pub use machine::{RrDebate, RrEmit};
pub use recompute::recompute;
pub use requests::{RrReply, RrTask};
pub use rules::{
    check_consensus, cut_short, outcome, parse_params, round_name, trigger, TRIGGER_PHRASES,
};
pub use types::{
    ConsensusCheck, PeerPosition, RrEnding, RrOutcome, RrParams, RrPosition, Stance, StanceCounts,
    TriggerCheck, MAX_AGENTS, MAX_ROUNDS,
};
pub use view::{on_decision, RrState};
pub use whatif::{what_if, RrWhatIf, RrWhatIfRules};

use super::types::{AgentSpec, Role};

pub const DEFAULT_AGENTS: [(&str, Role); 3] = [
    ("valuation", Role::Valuation),
    ("sentiment", Role::Sentiment),
    ("fundamental", Role::Fundamental),
];

pub fn default_agents() -> Vec<AgentSpec> {
    DEFAULT_AGENTS
        .iter()
        .map(|(id, role)| AgentSpec::new(*id, *role))
        .collect()
}
