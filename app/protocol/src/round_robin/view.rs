//! RR's part of the live view (SV-1): the trigger verdict, the consensus meter, participation,
//! and a card for each turn.

use serde::{Deserialize, Serialize};

use super::types::{ConsensusCheck, RrOutcome, RrParams, TriggerCheck};
use crate::columns::{Card, RoundView, Tone};
use crate::round_robin::RrEvent;
use crate::types::AgentSpec;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RrState {
    pub params: Option<RrParams>,
    pub trigger: Option<TriggerCheck>,
    /// One per finished round: the consensus meter.
    pub checks: Vec<ConsensusCheck>,
    /// Turns taken so far, per agent, in agent order.
    pub participation: Vec<(String, u32)>,
}

impl RrState {
    /// Folds in an RR event; returns the card it puts in its agent's column, if any.
    pub fn apply(&mut self, seq: u64, body: &RrEvent) -> Option<Card> {
        match body {
            RrEvent::TriggerChecked(t) => self.trigger = Some(t.clone()),
            RrEvent::Turn {
                agent,
                round,
                turn,
                position,
            } => {
                if let Some((_, n)) = self.participation.iter_mut().find(|(a, _)| a == agent) {
                    *n = (*n).max(*turn);
                }
                let mut c = Card::labelled(
                    seq,
                    *round,
                    agent,
                    Tone::Neutral,
                    format!("Turn {turn}: {}", position.stance),
                    Some(position.stance.as_str().to_owned()),
                    position.reasoning.clone(),
                );
                c.confidence = Some(position.confidence);
                return Some(c);
            }
            RrEvent::ConsensusChecked(c) => self.checks.push(c.clone()),
        }
        None
    }
}

/// Planned rounds that consensus made unnecessary are dropped; each agent's last turn that
/// matches the final stance is an agreement (green).
pub fn on_decision(rounds: &mut Vec<RoundView>, agents: &[AgentSpec], outcome: &RrOutcome) {
    rounds.retain(|r| r.started);
    let stance = outcome.stance.as_str();
    for agent in agents {
        let last = rounds
            .iter_mut()
            .rev()
            .flat_map(|r| r.cards.iter_mut().rev())
            .find(|c| c.agent == agent.id && c.label.is_some());
        if let Some(card) = last.filter(|c| c.label.as_deref() == Some(stance)) {
            card.tone = Tone::Agreement;
        }
    }
}
