//! QL-1: beside every decision, what a plain vote of the agents' *independent* first positions
//! would have decided, whether the debate changed the outcome, and who changed their mind toward
//! or away from the final verdict.
//!
//! - S4: S4-6's own aggregation on the round-1 positions.
//! - Round-robin: RR-2's consensus check on every agent's first-turn stance (HOLD without it).
//! - Collapse: the best initial card by its S score (WC-2), before critique, reflexion or panel.
//!
//! Computed from the events alone ([`BaselineFold`]), so the machine's wrapper writes it into the
//! `decision` event and `verify`, the audit view and the offline viewer recompute the same.

use super::collapse::CardSource;
use super::escalation::assumption;
use super::escalation::EsOutcome;
use super::escalation::{compute, Company};
use super::event::{Config, EventBody};
use super::outcome::Outcome;
use super::round_robin::{check_consensus, RrParams, RrPosition, Stance};
use super::s4::{aggregate, Vote};
use super::types::{AgentSpec, Decision};
use crate::collapse::WcEvent;
use crate::escalation::EsEvent;
use crate::event::DebateEvent;
use crate::round_robin::RrEvent;
use crate::s4::S4Event;

#[cfg(test)]
mod tests;
pub mod types;

pub use types::{MindChange, VoteBaseline};

/// The inputs of the baseline, folded from the log in order.
#[derive(Clone, Debug, Default)]
pub struct BaselineFold {
    agents: Vec<AgentSpec>,
    rr: Option<RrParams>,
    /// S4: round-1 positions, and each locked vote's agent and decision (all the baseline reads
    /// of it: its reasoning is not copied).
    first_votes: Vec<Vote>,
    votes: Vec<(String, Decision)>,
    /// RR: each agent's first and latest stance.
    first_stances: Vec<(String, RrPosition)>,
    last_stances: Vec<(String, Stance)>,
    /// WC: initial cards (position, S), and the last revision of each revised card.
    cards: Vec<(String, f64)>,
    revised: Vec<(String, u32)>,
    /// ES: the company, each challenged assumption's first value and who stated it, and the
    /// agents that stated findings.
    es_company: Option<Company>,
    es_first: Vec<(String, String, f64)>,
    es_finders: Vec<String>,
}

impl BaselineFold {
    pub fn see(&mut self, body: &EventBody) {
        match body {
            EventBody::Debate(DebateEvent::DebateStarted { agents, config, .. }) => {
                self.agents.clone_from(agents);
                match config.as_deref() {
                    Some(Config::RoundRobin(p)) => self.rr = Some(p.clone()),
                    Some(Config::Escalation(p)) => self.es_company = Some(p.company),
                    _ => {}
                }
            }
            EventBody::S4(S4Event::Position {
                agent, position, ..
            }) => {
                let role = self.agents.iter().find(|a| a.id == *agent).map(|a| a.role);
                if let Some(role) = role {
                    self.first_votes.push(Vote {
                        agent: agent.clone(),
                        role,
                        decision: position.decision,
                        confidence: position.confidence,
                        risk: position.risk,
                        reasoning: String::new(),
                    });
                }
            }
            EventBody::S4(S4Event::Vote { vote, .. }) => {
                self.votes.push((vote.agent.clone(), vote.decision))
            }
            EventBody::Escalation(EsEvent::Message { round: 1, message })
                if !self.es_finders.contains(&message.from) =>
            {
                self.es_finders.push(message.from.clone());
            }
            EventBody::Escalation(EsEvent::ChallengeRaised { challenge: c, .. }) => {
                self.es_first.push((
                    c.assumption.clone(),
                    c.challenged.clone(),
                    c.challenged_value,
                ));
            }
            EventBody::RoundRobin(RrEvent::Turn {
                agent, position, ..
            }) => {
                if !self.first_stances.iter().any(|(a, _)| a == agent) {
                    self.first_stances.push((agent.clone(), position.clone()));
                }
                match self.last_stances.iter_mut().find(|(a, _)| a == agent) {
                    Some(slot) => slot.1 = position.stance,
                    None => self.last_stances.push((agent.clone(), position.stance)),
                }
            }
            EventBody::Collapse(WcEvent::CardSubmitted(c)) if c.source != CardSource::Hybrid => {
                if c.revision == 0 {
                    self.cards.push((c.position.clone(), c.score.total));
                } else {
                    match self.revised.iter_mut().find(|(p, _)| *p == c.position) {
                        Some(slot) => slot.1 = c.revision,
                        None => self.revised.push((c.position.clone(), c.revision)),
                    }
                }
            }
            _ => {}
        }
    }

    /// The baseline beside `outcome`, or `None` when no independent position was logged.
    pub fn baseline(&self, outcome: &Outcome) -> Option<VoteBaseline> {
        match outcome {
            Outcome::S4(o) => {
                if self.first_votes.is_empty() {
                    return None;
                }
                let plain = aggregate(&self.first_votes, Vec::new()).decision;
                let moved = self
                    .votes
                    .iter()
                    .filter_map(|(agent, decision)| {
                        let first = self.first_votes.iter().find(|f| f.agent == *agent)?;
                        (first.decision != *decision).then(|| MindChange {
                            agent: agent.clone(),
                            from: first.decision.to_string(),
                            to: decision.to_string(),
                            toward: decision.verdict() == o.decision,
                        })
                    })
                    .collect();
                Some(VoteBaseline {
                    decision: plain.to_string(),
                    changed_outcome: plain != o.decision,
                    counted: self.first_votes.len() as u32,
                    moved,
                })
            }
            Outcome::RoundRobin(o) => {
                if self.first_stances.is_empty() {
                    return None;
                }
                let params = self.rr.clone().unwrap_or_default();
                let positions: Vec<Option<RrPosition>> = self
                    .agents
                    .iter()
                    .map(|a| {
                        self.first_stances
                            .iter()
                            .find(|(id, _)| *id == a.id)
                            .map(|(_, p)| p.clone())
                    })
                    .collect();
                let turns = vec![1; self.agents.len()];
                let check = check_consensus(1, &self.agents, &positions, &turns, &params, true);
                let plain = if check.reached {
                    check.leading
                } else {
                    Stance::Hold
                };
                let moved = self
                    .last_stances
                    .iter()
                    .filter_map(|(agent, last)| {
                        let first = self.first_stances.iter().find(|(a, _)| a == agent)?;
                        (first.1.stance != *last).then(|| MindChange {
                            agent: agent.clone(),
                            from: first.1.stance.to_string(),
                            to: last.to_string(),
                            toward: *last == o.stance,
                        })
                    })
                    .collect();
                Some(VoteBaseline {
                    decision: plain.to_string(),
                    changed_outcome: plain != o.stance,
                    counted: self.first_stances.len() as u32,
                    moved,
                })
            }
            Outcome::Escalation(o) => self.escalation(o),
            // RC weighs observations; nobody votes.
            Outcome::Reconcile(_) => None,
            Outcome::Collapse(o) => {
                // The best initial card; the first submitted wins a tie.
                let best =
                    self.cards
                        .iter()
                        .fold(None::<&(String, f64)>, |best, c| match best {
                            Some(b) if b.1 >= c.1 => Some(b),
                            _ => Some(c),
                        })?;
                let moved = self
                    .revised
                    .iter()
                    .map(|(position, revision)| MindChange {
                        agent: position.clone(),
                        from: "first card".into(),
                        to: format!("revision {revision}"),
                        toward: o.chosen.as_deref() == Some(position.as_str()),
                    })
                    .collect();
                Some(VoteBaseline {
                    decision: best.0.clone(),
                    changed_outcome: o.chosen.as_deref() != Some(best.0.as_str()),
                    counted: self.cards.len() as u32,
                    moved,
                })
            }
        }
    }
}

impl BaselineFold {
    /// ES: the plain vote is the pipeline run on the specialists' first findings, before any
    /// challenge; who moved is every challenged agent whose value the ladder changed.
    fn escalation(&self, o: &EsOutcome) -> Option<VoteBaseline> {
        let company = self.es_company?;
        let mut plain = o.assumptions.clone();
        for (key, _, first) in &self.es_first {
            plain = plain.with(key, *first);
        }
        let first = compute(&company, &plain).ok()?;
        let moved = o
            .resolutions
            .iter()
            .filter_map(|r| {
                let (key, agent, v) = self.es_first.iter().find(|(k, _, _)| *k == r.assumption)?;
                let spec = assumption(key)?;
                spec.disagree(*v, r.position).then(|| MindChange {
                    agent: agent.clone(),
                    from: format!("{key} {}", spec.show(*v)),
                    to: format!("{key} {}", spec.show(r.position)),
                    toward: true,
                })
            })
            .collect();
        Some(VoteBaseline {
            decision: first.rating.as_str().to_owned(),
            changed_outcome: first.rating != o.results.rating,
            counted: self.es_finders.len() as u32,
            moved,
        })
    }
}
