//! The RR machine: one speaker at a time (RR-1), the consensus check after every round (RR-2),
//! the end on consensus or after `max_rounds` (RR-3).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use super::events::RrEvent;
use super::requests::{RrReply, RrTask};
use super::rules::{check_consensus, cut_short, outcome, round_name, trigger};
use super::types::{PeerPosition, RrOutcome, RrParams, RrPosition, MAX_AGENTS};
use crate::error::ProtocolError;
use crate::shared::{CommonEvent, Emit, Machine, Request, RequestQueue, RoundInfo, Started};
use crate::types::AgentSpec;

/// What a round-robin machine logs.
pub type RrEmit = Emit<RrEvent, RrParams, RrOutcome>;

#[derive(Debug)]
pub struct RrDebate {
    query: Arc<str>,
    agents: Vec<AgentSpec>,
    params: RrParams,
    triggered: bool,
    round: u16,
    /// Who still speaks this round, in order.
    speakers: VecDeque<usize>,
    /// Strict turn-taking: at most one request is out at a time; each remembers its speaker.
    requests: RequestQueue<RrTask, usize>,
    positions: Vec<Option<RrPosition>>,
    turns: Vec<u32>,
    total_turns: u32,
    events: VecDeque<RrEmit>,
    outcome: Option<RrOutcome>,
}

impl RrDebate {
    /// FK-1: every agent asked from now on reads `note` after the query.
    pub fn add_note(&mut self, note: &str) {
        self.query = Arc::from(format!("{}\n\n{note}", self.query));
        self.requests.add_note(note);
    }

    pub fn new(
        query: &str,
        agents: Vec<AgentSpec>,
        params: RrParams,
        seed: u64,
    ) -> Result<Self, ProtocolError> {
        crate::types::check_agents(&agents, MAX_AGENTS)?;
        params.validate()?;
        let n = agents.len();
        let check = trigger(query);
        let mut debate = RrDebate {
            query: Arc::from(query),
            triggered: check.triggered,
            round: 0,
            speakers: VecDeque::with_capacity(n),
            requests: RequestQueue::with_capacity(1),
            positions: vec![None; n],
            turns: vec![0; n],
            total_turns: 0,
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
        debate.events.push_back(Emit::Started(Box::new(Started {
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
            config: Some(debate.params.clone()),
        })));
        debate
            .events
            .push_back(Emit::Own(RrEvent::TriggerChecked(check)));
        debate.start_round((0..n).collect());
        Ok(debate)
    }

    pub fn outcome(&self) -> Option<&RrOutcome> {
        self.outcome.as_ref()
    }

    fn participation(&self) -> BTreeMap<String, u32> {
        self.agents
            .iter()
            .zip(&self.turns)
            .map(|(a, t)| (a.id.clone(), *t))
            .collect()
    }

    fn start_round(&mut self, speakers: Vec<usize>) {
        self.round += 1;
        let extra = speakers.len() < self.agents.len();
        self.events
            .push_back(Emit::Common(CommonEvent::RoundStarted {
                round: self.round,
                name: round_name(self.round, extra),
                expected: speakers.len() as u32,
            }));
        self.speakers = speakers.into();
    }

    /// RR-2/RR-3: after each round, check consensus and decide whether to go on.
    fn end_round_if_done(&mut self) {
        if !self.speakers.is_empty() || self.requests.awaiting_reply() {
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
            .push_back(Emit::Own(RrEvent::ConsensusChecked(check.clone())));
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
                self.events.push_back(Emit::Decided(outcome.clone()));
                self.outcome = Some(outcome);
            }
        }
    }
}

impl Machine for RrDebate {
    type Event = RrEvent;
    type Params = RrParams;
    type Outcome = RrOutcome;
    type Task = RrTask;
    type Reply = RrReply;

    fn agents(&self) -> &[AgentSpec] {
        &self.agents
    }

    fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }

    fn poll_event(&mut self) -> Option<RrEmit> {
        self.events.pop_front()
    }

    /// The next speaker, built when asked so it sees every position stated before it (RR-1).
    fn poll_request(&mut self) -> Option<Request<RrTask>> {
        if self.requests.awaiting_reply() || self.outcome.is_some() {
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
        let task = RrTask::Turn {
            query: self.query.clone(),
            turn: self.turns[agent] + 1,
            own: self.positions[agent].clone(),
            peers,
        };
        self.requests
            .push(&spec.id, spec.role, self.round, task, agent);
        self.requests.next(&mut self.events)
    }

    fn handle_reply(&mut self, id: u32, reply: RrReply) -> Result<(), ProtocolError> {
        let agent = *self.requests.pending(id)?;
        let RrReply::Stance(mut position) = reply;
        self.requests.take(id)?;
        position.confidence = position.confidence.min(100);
        self.turns[agent] += 1;
        self.total_turns += 1;
        self.events.push_back(Emit::Own(RrEvent::Turn {
            agent: self.agents[agent].id.clone(),
            round: self.round,
            turn: self.turns[agent],
            position: position.clone(),
        }));
        self.positions[agent] = Some(position);
        self.end_round_if_done();
        Ok(())
    }

    /// S4-8 applies here too: a failed turn does not count toward the agent's minimum (RR-3), its
    /// previous position (if any) stands, and the debate goes on.
    fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        let agent = self.requests.take(id)?;
        let substitute = if self.positions[agent].is_some() {
            "turn lost; previous position stands"
        } else {
            "turn lost; no position yet"
        };
        self.events
            .push_back(Emit::Common(CommonEvent::AgentFailed {
                agent: self.agents[agent].id.clone(),
                round: self.round,
                error: error.to_owned(),
                substitute: substitute.to_owned(),
            }));
        self.end_round_if_done();
        Ok(())
    }

    /// The token budget ran out: no more turns; the committee HOLDs ([`rules::cut_short`]).
    fn exhaust(&mut self, used: u64, budget: u64) {
        if self.outcome.is_some() {
            return;
        }
        self.requests.clear();
        self.speakers.clear();
        self.events
            .push_back(Emit::Common(CommonEvent::BudgetExhausted {
                round: self.round,
                used,
                budget,
            }));
        let check = check_consensus(
            self.round,
            &self.agents,
            &self.positions,
            &self.turns,
            &self.params,
            self.triggered,
        );
        let outcome = cut_short(&check, self.total_turns, self.participation());
        self.events.push_back(Emit::Decided(outcome.clone()));
        self.outcome = Some(outcome);
    }
}
