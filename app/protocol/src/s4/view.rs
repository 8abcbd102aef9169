//! S4's part of the view (SV-1, UI-3): a card for each position, challenge, revision and vote for
//! the live columns, and each agent's journey and the challenge matrix for the audit view — one
//! fold of the log for both.

use serde::{Deserialize, Serialize};

use super::types::{S4Outcome, Vote};
use crate::columns::{Card, RoundView, Tone};
use crate::s4::S4Event;
use crate::types::{display_name, AgentSpec, Decision, Position};

/// What the audit view shows of an S4 debate, folded with the live view.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct S4State {
    /// One per agent, in the order `debate_started` lists them.
    pub journeys: Vec<Journey>,
    /// S4-3: the challenge matrix, in log order.
    pub challenges: Vec<ChallengeCell>,
}

/// One agent's path through the debate: what it said first, what it did with the challenges,
/// how it voted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Journey {
    pub agent: AgentSpec,
    pub initial: Option<Position>,
    pub revision: Option<Revision>,
    pub vote: Option<Vote>,
    /// Failures of this agent (S4-8), with what was substituted.
    pub failures: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    pub before: Position,
    pub after: Position,
    pub changed: bool,
}

/// One cross-challenge (S4-3): a cell of the challenge matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeCell {
    pub seq: u64,
    pub from: String,
    pub to: String,
    pub argues_for: Decision,
    pub text: String,
}

impl Journey {
    /// What changed between the round-1 position and the revision, in words.
    pub fn change_summary(&self) -> String {
        match &self.revision {
            None => "no revision logged".into(),
            Some(r) => format!(
                "{} (confidence {} → {}, risk {} → {})",
                if r.changed {
                    format!("changed {} → {}", r.before.decision, r.after.decision)
                } else {
                    format!("kept {}", r.after.decision)
                },
                r.before.confidence,
                r.after.confidence,
                r.before.risk,
                r.after.risk
            ),
        }
    }
}

impl S4State {
    /// `debate_started`: a journey for each agent.
    pub fn start(&mut self, agents: &[AgentSpec]) {
        self.journeys = agents
            .iter()
            .map(|agent| Journey {
                agent: agent.clone(),
                initial: None,
                revision: None,
                vote: None,
                failures: Vec::new(),
            })
            .collect();
        self.challenges.clear();
    }

    /// `agent_failed` (S4-8): the failure and its substitute, on the agent's journey.
    pub fn failed(&mut self, agent: &str, round: u16, error: &str, substitute: &str) {
        if let Some(j) = self.journey(agent) {
            j.failures
                .push(format!("round {round}: {error} — {substitute}"));
        }
    }

    /// Folds an S4 event into the journeys and the matrix, and returns its card for the live
    /// columns; `None` when the event is not S4's.
    pub fn apply(&mut self, seq: u64, body: &S4Event) -> Option<Card> {
        match body {
            S4Event::Position {
                agent, position, ..
            } => {
                if let Some(j) = self.journey(agent) {
                    j.initial = Some(position.clone());
                }
            }
            S4Event::Revision {
                agent,
                before,
                after,
                changed,
                ..
            } => {
                if let Some(j) = self.journey(agent) {
                    j.revision = Some(Revision {
                        before: before.clone(),
                        after: after.clone(),
                        changed: *changed,
                    });
                }
            }
            S4Event::Vote { vote, .. } => {
                if let Some(j) = self.journey(&vote.agent) {
                    j.vote = Some(vote.clone());
                }
            }
            S4Event::Challenge {
                from,
                to,
                text,
                argues_for,
                ..
            } => self.challenges.push(ChallengeCell {
                seq,
                from: from.clone(),
                to: to.clone(),
                argues_for: *argues_for,
                text: text.clone(),
            }),
            _ => return None,
        }
        card(seq, body)
    }

    /// The challenge `from` aimed at `to`, if any.
    pub fn challenge(&self, from: &str, to: &str) -> Option<&ChallengeCell> {
        self.challenges
            .iter()
            .find(|c| c.from == from && c.to == to)
    }

    fn journey(&mut self, agent: &str) -> Option<&mut Journey> {
        self.journeys.iter_mut().find(|j| j.agent.id == agent)
    }
}

/// The card an S4 event puts in its agent's column, if it is an S4 event.
fn card(seq: u64, body: &S4Event) -> Option<Card> {
    Some(match body {
        S4Event::Position {
            agent,
            round,
            position,
        } => Card {
            seq,
            round: *round,
            agent: agent.clone(),
            tone: Tone::Neutral,
            title: format!("Initial analysis: {}", position.decision),
            decision: Some(position.decision),
            label: None,
            confidence: Some(position.confidence),
            risk: Some(position.risk),
            body: position.reasoning.clone(),
        },
        S4Event::Challenge {
            round,
            from,
            to,
            text,
            argues_for,
        } => Card::labelled(
            seq,
            *round,
            from,
            Tone::Challenge,
            format!("Challenges {} (argues {argues_for})", display_name(to)),
            None,
            text.clone(),
        ),
        S4Event::Revision {
            agent,
            round,
            before,
            after,
            changed,
        } => {
            let title = if *changed {
                format!("Changed mind: {} → {}", before.decision, after.decision)
            } else {
                format!(
                    "Defends {} (confidence {} → {})",
                    after.decision, before.confidence, after.confidence
                )
            };
            Card {
                seq,
                round: *round,
                agent: agent.clone(),
                tone: if *changed {
                    Tone::Agreement
                } else {
                    Tone::Neutral
                },
                title,
                decision: Some(after.decision),
                label: None,
                confidence: Some(after.confidence),
                risk: Some(after.risk),
                body: after.reasoning.clone(),
            }
        }
        S4Event::Vote { round, vote } => Card {
            seq,
            round: *round,
            agent: vote.agent.clone(),
            tone: Tone::Neutral,
            title: format!("Final vote: {}", vote.decision),
            decision: Some(vote.decision),
            label: None,
            confidence: Some(vote.confidence),
            risk: Some(vote.risk),
            body: String::new(),
        },
        _ => return None,
    })
}

/// Final votes that match the decision are agreements (green).
pub fn on_decision(rounds: &mut [RoundView], outcome: &S4Outcome) {
    for round in rounds {
        for card in round.cards.iter_mut().filter(|c| c.round == 4) {
            if card.decision.map(|d| d.verdict()) == Some(outcome.decision) {
                card.tone = Tone::Agreement;
            }
        }
    }
}
