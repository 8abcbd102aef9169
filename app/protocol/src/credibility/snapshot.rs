//! CR-4: the credibility a debate used, logged as an event right after `debate_started`, so a
//! verified log recomputes the same credibility-weighted what-if later, however the record grows.

use serde::{Deserialize, Serialize};

use super::effective::EffectiveVotes;
use super::types::Credibility;
use crate::shared::CommonEvent;

/// One agent's credibility when the debate started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentCredibility {
    pub agent: String,
    pub identity: String,
    pub credibility: Credibility,
    /// Some of the record behind it is the bundled sample history, not real outcomes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sample: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CredibilitySnapshot {
    /// When the record was read (RFC 3339).
    pub as_of: String,
    pub half_life_days: f64,
    pub agents: Vec<AgentCredibility>,
    /// CR-3 for this panel.
    pub effective: EffectiveVotes,
}

impl CredibilitySnapshot {
    /// The vote weight of each agent by credibility: its score to three decimals (as the
    /// what-if panel shows it), or 0.5 when its record is too short to say (RC-2's default).
    /// The what-if panels and verify use these, so both compute with the same numbers.
    pub fn weights(&self) -> Vec<(String, f64)> {
        self.agents
            .iter()
            .map(|a| {
                let w = a.credibility.weight();
                (a.agent.clone(), (w * 1000.0).round() / 1000.0)
            })
            .collect()
    }

    /// The snapshot in a log, if it has one.
    pub fn in_log(events: &[crate::Event]) -> Option<&CredibilitySnapshot> {
        events.iter().find_map(|e| match &e.body {
            crate::EventBody::Common(CommonEvent::Credibility(s)) => Some(s),
            _ => None,
        })
    }
}
