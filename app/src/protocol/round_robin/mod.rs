//! RR — the AlphaAgents round-robin debate (seed 004, RR-1…RR-5) as a sans-IO state machine.
//!
//! Agents speak one at a time in a fixed order (RR-1); after every round the consensus check runs
//! (RR-2); the debate ends on consensus once every agent has spoken `min_turns_per_agent` times,
//! or after `max_rounds` (RR-3). A trigger check on the query runs first (RR-5).

mod rules;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use rules::{
    check_consensus, cut_short, outcome, parse_params, recompute, trigger, ConsensusCheck,
    StanceCounts, TriggerCheck, TRIGGER_PHRASES,
};

use super::event::{EventBody, RoundInfo};
use super::request::{AgentReply, AgentRequest, Task};
use super::types::{AgentSpec, Role};
use super::ProtocolError;

/// An investment stance (RR-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Stance {
    Buy,
    Sell,
    Hold,
}

impl Stance {
    /// Ordered from least to most cautious: a tie goes to the later one, and no consensus is HOLD.
    pub const ALL: [Stance; 3] = [Stance::Buy, Stance::Sell, Stance::Hold];

    pub fn as_str(self) -> &'static str {
        match self {
            Stance::Buy => "BUY",
            Stance::Sell => "SELL",
            Stance::Hold => "HOLD",
        }
    }

    pub fn parse(s: &str) -> Option<Stance> {
        Stance::ALL
            .into_iter()
            .find(|st| st.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for Stance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One agent's position at one turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RrPosition {
    pub stance: Stance,
    /// 0–100.
    pub confidence: u8,
    pub reasoning: String,
}

/// A peer's latest position as the speaking agent sees it (RR-1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerPosition {
    pub agent: String,
    pub role: Role,
    #[serde(flatten)]
    pub position: RrPosition,
}

/// RR-2/RR-3 configuration, logged in `debate_started` so the decision can be recomputed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RrParams {
    /// Share of agents that must hold the same stance, in (0, 1]; 0.75 by default.
    pub consensus_threshold: f64,
    pub min_turns_per_agent: u32,
    pub max_rounds: u8,
}

impl Default for RrParams {
    fn default() -> Self {
        RrParams {
            consensus_threshold: 0.75,
            min_turns_per_agent: 2,
            max_rounds: 5,
        }
    }
}

/// Bounds that keep a debate finite and meaningful.
pub const MAX_ROUNDS: u8 = 20;
pub const MAX_AGENTS: usize = 8;

impl RrParams {
    pub fn validate(&self) -> Result<(), ProtocolError> {
        let bad =
            |field: &'static str, problem: String| ProtocolError::BadParameter { field, problem };
        if !(self.consensus_threshold > 0.0 && self.consensus_threshold <= 1.0) {
            return Err(bad(
                "consensus_threshold",
                format!("must be in (0, 1], got {}", self.consensus_threshold),
            ));
        }
        if !(1..=MAX_ROUNDS).contains(&self.max_rounds) {
            return Err(bad(
                "max_rounds",
                format!("must be 1–{MAX_ROUNDS}, got {}", self.max_rounds),
            ));
        }
        if self.min_turns_per_agent < 1 || self.min_turns_per_agent > u32::from(self.max_rounds) {
            return Err(bad(
                "min_turns_per_agent",
                format!(
                    "must be 1–max_rounds ({}), got {}",
                    self.max_rounds, self.min_turns_per_agent
                ),
            ));
        }
        Ok(())
    }
}

/// How a round-robin debate ended (RR-2, RR-3, RR-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RrEnding {
    /// The threshold was met after everyone's minimum turns.
    Consensus,
    /// `max_rounds` ran out first.
    MaxRounds,
    /// RR-5: the query did not call for a debate; each agent answered once.
    NoDebate,
    /// The token budget ran out first: the committee holds.
    BudgetExhausted,
}

/// The payload of the final `decision` event of a round-robin debate (RR-4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RrOutcome {
    pub stance: Stance,
    pub consensus_reached: bool,
    pub ending: RrEnding,
    /// Leading stance count / agents × 100, one decimal.
    pub agreement_percentage: f64,
    pub stance_counts: StanceCounts,
    pub total_rounds: u8,
    pub total_turns: u32,
    /// Turns per agent.
    pub agent_participation: BTreeMap<String, u32>,
    pub reasoning: String,
}

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

#[derive(Debug)]
pub struct RrDebate {
    query: Arc<str>,
    agents: Vec<AgentSpec>,
    params: RrParams,
    triggered: bool,
    round: u8,
    /// Who still speaks this round, in order.
    speakers: VecDeque<usize>,
    /// Strict turn-taking: at most one request is out at a time.
    outstanding: Option<(u32, usize)>,
    positions: Vec<Option<RrPosition>>,
    turns: Vec<u32>,
    total_turns: u32,
    next_id: u32,
    events: VecDeque<EventBody>,
    outcome: Option<RrOutcome>,
}

impl RrDebate {
    pub fn new(
        query: &str,
        agents: Vec<AgentSpec>,
        params: RrParams,
        seed: u64,
    ) -> Result<Self, ProtocolError> {
        super::check_agents(&agents, MAX_AGENTS)?;
        params.validate()?;
        let n = agents.len();
        let check = trigger(query);
        let mut debate = RrDebate {
            query: Arc::from(query),
            triggered: check.triggered,
            round: 0,
            speakers: VecDeque::with_capacity(n),
            outstanding: None,
            positions: vec![None; n],
            turns: vec![0; n],
            total_turns: 0,
            next_id: 0,
            events: VecDeque::new(),
            outcome: None,
            agents,
            params,
        };
        let planned = if check.triggered {
            debate.params.max_rounds
        } else {
            1
        };
        debate.events.push_back(EventBody::DebateStarted {
            protocol: "round_robin".into(),
            query: query.to_owned(),
            seed,
            agents: debate.agents.clone(),
            rounds: (1..=planned)
                .map(|r| RoundInfo {
                    round: r,
                    name: round_name(r, false),
                    expected: n as u32,
                })
                .collect(),
            config: Some(super::event::Config::RoundRobin(debate.params.clone())),
            backend: None,
        });
        debate.events.push_back(EventBody::TriggerChecked(check));
        debate.start_round((0..n).collect());
        Ok(debate)
    }

    pub fn agents(&self) -> &[AgentSpec] {
        &self.agents
    }

    pub fn outcome(&self) -> Option<&RrOutcome> {
        self.outcome.as_ref()
    }

    pub fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }

    pub fn poll_event(&mut self) -> Option<EventBody> {
        self.events.pop_front()
    }

    /// The next speaker, built when asked so it sees every position stated before it (RR-1).
    pub fn poll_request(&mut self) -> Option<AgentRequest> {
        if self.outstanding.is_some() || self.outcome.is_some() {
            return None;
        }
        let agent = self.speakers.pop_front()?;
        let spec = &self.agents[agent];
        let peers = self
            .agents
            .iter()
            .zip(&self.positions)
            .enumerate()
            .filter(|(i, _)| *i != agent)
            .filter_map(|(_, (a, p))| {
                p.as_ref().map(|p| PeerPosition {
                    agent: a.id.clone(),
                    role: a.role,
                    position: p.clone(),
                })
            })
            .collect();
        let req = AgentRequest {
            id: self.next_id,
            agent: spec.id.clone(),
            role: spec.role,
            round: self.round,
            task: Task::Turn {
                query: self.query.clone(),
                turn: self.turns[agent] + 1,
                own: self.positions[agent].clone(),
                peers,
            },
        };
        self.next_id += 1;
        self.outstanding = Some((req.id, agent));
        self.events.push_back(EventBody::Thinking {
            agent: req.agent.clone(),
            round: self.round,
        });
        Some(req)
    }

    pub fn handle_reply(&mut self, id: u32, reply: AgentReply) -> Result<(), ProtocolError> {
        let agent = self.take_outstanding(id)?;
        let AgentReply::Stance(mut position) = reply else {
            // Put the request back: the driver reports the failure next.
            self.outstanding = Some((id, agent));
            return Err(ProtocolError::WrongReply {
                round: self.round,
                got: reply.kind(),
            });
        };
        position.confidence = position.confidence.min(100);
        self.turns[agent] += 1;
        self.total_turns += 1;
        self.events.push_back(EventBody::Turn {
            agent: self.agents[agent].id.clone(),
            round: self.round,
            turn: self.turns[agent],
            position: position.clone(),
        });
        self.positions[agent] = Some(position);
        self.end_round_if_done();
        Ok(())
    }

    /// S4-8 applies here too: a failed turn does not count toward the agent's minimum (RR-3), its
    /// previous position (if any) stands, and the debate goes on.
    pub fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        let agent = self.take_outstanding(id)?;
        let substitute = if self.positions[agent].is_some() {
            "turn lost; previous position stands"
        } else {
            "turn lost; no position yet"
        };
        self.events.push_back(EventBody::AgentFailed {
            agent: self.agents[agent].id.clone(),
            round: self.round,
            error: error.to_owned(),
            substitute: substitute.to_owned(),
        });
        self.end_round_if_done();
        Ok(())
    }

    /// The token budget ran out: no more turns; the committee HOLDs ([`rules::cut_short`]).
    pub fn exhaust(&mut self, used: u64, budget: u64) {
        if self.outcome.is_some() {
            return;
        }
        self.outstanding = None;
        self.speakers.clear();
        self.events.push_back(EventBody::BudgetExhausted {
            round: self.round,
            used,
            budget,
        });
        let check = check_consensus(
            self.round,
            &self.agents,
            &self.positions,
            &self.turns,
            &self.params,
            self.triggered,
        );
        let outcome = cut_short(&check, self.total_turns, self.participation());
        self.events
            .push_back(EventBody::Decision(super::Outcome::RoundRobin(
                outcome.clone(),
            )));
        self.outcome = Some(outcome);
    }

    fn participation(&self) -> BTreeMap<String, u32> {
        self.agents
            .iter()
            .zip(&self.turns)
            .map(|(a, t)| (a.id.clone(), *t))
            .collect()
    }

    fn take_outstanding(&mut self, id: u32) -> Result<usize, ProtocolError> {
        match self.outstanding {
            Some((rid, agent)) if rid == id => {
                self.outstanding = None;
                Ok(agent)
            }
            _ => Err(ProtocolError::UnknownRequest(id)),
        }
    }

    fn start_round(&mut self, speakers: Vec<usize>) {
        self.round += 1;
        let extra = speakers.len() < self.agents.len();
        self.events.push_back(EventBody::RoundStarted {
            round: self.round,
            name: round_name(self.round, extra),
            expected: speakers.len() as u32,
        });
        self.speakers = speakers.into();
    }

    /// RR-2/RR-3: after each round, check consensus and decide whether to go on.
    fn end_round_if_done(&mut self) {
        if !self.speakers.is_empty() || self.outstanding.is_some() {
            return;
        }
        let check = check_consensus(
            self.round,
            &self.agents,
            &self.positions,
            &self.turns,
            &self.params,
            self.triggered,
        );
        self.events
            .push_back(EventBody::ConsensusChecked(check.clone()));
        match check.ending {
            None => {
                let min = self.params.min_turns_per_agent;
                let below: Vec<usize> = (0..self.agents.len())
                    .filter(|&i| self.turns[i] < min)
                    .collect();
                // RR-3: once the group agrees, only those short of their minimum speak again.
                let speakers = if check.reached && !below.is_empty() {
                    below
                } else {
                    (0..self.agents.len()).collect()
                };
                self.start_round(speakers);
            }
            Some(_) => {
                let outcome = outcome(&check, self.round, self.total_turns, self.participation());
                self.events
                    .push_back(EventBody::Decision(super::Outcome::RoundRobin(
                        outcome.clone(),
                    )));
                self.outcome = Some(outcome);
            }
        }
    }
}

pub fn round_name(round: u8, extra_turns: bool) -> String {
    match (round, extra_turns) {
        (1, _) => "Initial Round".into(),
        (r, true) => format!("Round {r}: Extra Turns"),
        (r, false) => format!("Debate Round {r}"),
    }
}
