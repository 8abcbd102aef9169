//! The S4 machine: four rounds (S4-2…S4-5), then the aggregation of the locked votes (S4-6).
//!
//! The machine never awaits, reads a clock or touches I/O: the driver takes requests with
//! [`S4Debate::poll_request`], answers them with [`S4Debate::handle_reply`] (or
//! [`S4Debate::handle_failure`]) and drains the log with [`S4Debate::poll_event`].

use std::collections::VecDeque;
use std::sync::Arc;

use super::events::S4Event;
use super::requests::{ChallengeSeen, S4Reply, S4Task};
use super::rules::{aggregate, cut_short, expected_messages, normalise};
use super::types::{S4Outcome, Vote, MAX_AGENTS, ROUND_NAMES};
use crate::defence::confidence::{clamp_confidence, is_complex};
use crate::error::ProtocolError;
use crate::shared::{
    CommonEvent, Emit, Machine, NoParams, Request, RequestQueue, RoundInfo, Started,
};
use crate::types::{AgentSpec, Decision, Position};

/// What an S4 machine logs.
pub type S4Emit = Emit<S4Event, NoParams, S4Outcome>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Analysis,
    Challenge,
    Revision,
    Done,
}

#[derive(Clone, Debug)]
struct ChallengeRecord {
    from: usize,
    to: usize,
    text: String,
    argues_for: Decision,
}

#[derive(Debug)]
pub struct S4Debate {
    query: Arc<str>,
    agents: Vec<AgentSpec>,
    phase: Phase,
    initial: Vec<Option<Position>>,
    challenges: Vec<ChallengeRecord>,
    revised: Vec<Option<Position>>,
    /// Each request remembers its agent's index and the agent it is about (its challenge's
    /// target; the agent itself otherwise).
    requests: RequestQueue<S4Task, (usize, usize)>,
    /// FK-1: agents a fork removed: asked nothing more, no vote.
    removed: Vec<bool>,
    events: VecDeque<S4Emit>,
    outcome: Option<S4Outcome>,
    /// S4-8: on a complex query no agent may claim more than 95 % confidence.
    complex: bool,
}

impl S4Debate {
    /// FK-1: every agent asked from now on reads `note` after the query.
    pub fn add_note(&mut self, note: &str) {
        self.query = Arc::from(format!("{}\n\n{note}", self.query));
        self.requests.add_note(note);
    }

    /// Starts a debate: validates the agent set (S4-1: N ≥ 2, unique ids) and queues round 1.
    pub fn new(query: &str, agents: Vec<AgentSpec>, seed: u64) -> Result<Self, ProtocolError> {
        crate::types::check_agents(&agents, MAX_AGENTS)?;
        let n = agents.len();
        let mut debate = S4Debate {
            query: Arc::from(query),
            phase: Phase::Analysis,
            initial: vec![None; n],
            challenges: Vec::with_capacity(n * (n - 1)),
            revised: vec![None; n],
            removed: vec![false; n],
            requests: RequestQueue::with_capacity(n * (n - 1)),
            events: VecDeque::with_capacity(8),
            outcome: None,
            complex: is_complex(query),
            agents,
        };
        debate.events.push_back(Emit::Started(Box::new(Started {
            protocol: "s4".into(),
            query: query.to_owned(),
            seed,
            agents: debate.agents.clone(),
            rounds: (1..=4u16)
                .map(|r| RoundInfo {
                    round: r,
                    name: ROUND_NAMES[usize::from(r - 1)].into(),
                    expected: expected_messages(n, r),
                })
                .collect(),
            config: None,
        })));
        debate.start_round(1);
        for i in 0..n {
            let task = S4Task::Analyse {
                query: debate.query.clone(),
            };
            debate.enqueue(i, i, 1, task);
        }
        Ok(debate)
    }

    /// FK-1: a fork removes agent `id` from the debate from now on: it is asked nothing more (its
    /// requests still open are dropped, and so are the challenges aimed at it) and has no vote;
    /// what it said before stays in the log. Refused once the votes are locked, or when fewer
    /// than two agents would remain (S4-1).
    pub fn remove_agent(&mut self, id: &str) -> Result<(), String> {
        let i = self
            .agents
            .iter()
            .position(|a| a.id == id)
            .filter(|i| !self.removed[*i])
            .ok_or_else(|| format!("the debate has no agent '{id}' left to remove"))?;
        if self.active() <= 2 {
            return Err(format!(
                "removing '{id}' would leave one agent; an S4 debate needs at least two (S4-1)"
            ));
        }
        if self.phase == Phase::Done {
            return Err(format!(
                "the votes are locked (every agent has revised): '{id}' cannot be removed; \
                 fork from an earlier event"
            ));
        }
        self.removed[i] = true;
        self.requests
            .drop_where(|&(agent, about)| agent == i || about == i);
        self.advance_if_round_complete();
        Ok(())
    }

    /// Agents still in the debate.
    fn active(&self) -> usize {
        self.removed.iter().filter(|r| !**r).count()
    }

    /// Agents still in the debate, by index.
    fn present(&self) -> Vec<usize> {
        (0..self.agents.len())
            .filter(|i| !self.removed[*i])
            .collect()
    }

    pub fn outcome(&self) -> Option<&S4Outcome> {
        self.outcome.as_ref()
    }

    fn push_failed(&mut self, agent: &str, round: u16, error: &str, substitute: &str) {
        self.events
            .push_back(Emit::Common(CommonEvent::AgentFailed {
                agent: agent.to_owned(),
                round,
                error: error.to_owned(),
                substitute: substitute.to_owned(),
            }));
    }

    fn round(&self) -> u16 {
        match self.phase {
            Phase::Analysis => 1,
            Phase::Challenge => 2,
            Phase::Revision => 3,
            Phase::Done => 4,
        }
    }

    /// The agent a challenge request is aimed at.
    fn challenge_target(&self, id: u32) -> Result<usize, ProtocolError> {
        self.requests.pending(id).map(|&(_, about)| about)
    }

    fn enqueue(&mut self, agent: usize, about: usize, round: u16, task: S4Task) {
        let spec = &self.agents[agent];
        self.requests
            .push(&spec.id, spec.role, round, task, (agent, about));
    }

    fn start_round(&mut self, round: u16) {
        self.events
            .push_back(Emit::Common(CommonEvent::RoundStarted {
                round,
                name: ROUND_NAMES[usize::from(round - 1)].into(),
                expected: expected_messages(self.active(), round),
            }));
    }

    fn record_position(&mut self, agent: usize, p: Position) {
        let id = self.agents[agent].id.clone();
        if self.phase == Phase::Analysis {
            self.events.push_back(Emit::Own(S4Event::Position {
                agent: id,
                round: 1,
                position: p.clone(),
            }));
            self.initial[agent] = Some(p);
        } else {
            let before = self.initial[agent].clone().unwrap_or_else(|| p.clone());
            let changed = before.decision != p.decision;
            self.events.push_back(Emit::Own(S4Event::Revision {
                agent: id,
                round: 3,
                before,
                after: p.clone(),
                changed,
            }));
            self.revised[agent] = Some(p);
        }
    }

    fn record_challenge(&mut self, from: usize, to: usize, text: String, argues_for: Decision) {
        self.events.push_back(Emit::Own(S4Event::Challenge {
            round: 2,
            from: self.agents[from].id.clone(),
            to: self.agents[to].id.clone(),
            text: text.clone(),
            argues_for,
        }));
        self.challenges.push(ChallengeRecord {
            from,
            to,
            text,
            argues_for,
        });
    }

    fn advance_if_round_complete(&mut self) {
        if !self.requests.is_idle() {
            return;
        }
        match self.phase {
            Phase::Analysis => self.start_challenges(),
            Phase::Challenge => self.start_revisions(),
            Phase::Revision => self.finish(),
            Phase::Done => {}
        }
    }

    /// S4-3: every agent challenges every other agent, challenger-major order.
    fn start_challenges(&mut self) {
        self.phase = Phase::Challenge;
        self.start_round(2);
        let present = self.present();
        for &from in &present {
            for &to in present.iter().filter(|&&to| to != from) {
                let task = S4Task::Challenge {
                    query: self.query.clone(),
                    own: self.initial_of(from),
                    target: self.agents[to].id.clone(),
                    target_role: self.agents[to].role,
                    target_reasoning: self.initial_of(to).reasoning,
                };
                self.enqueue(from, to, 2, task);
            }
        }
    }

    /// S4-4: each agent sees its own round-1 position and the challenges aimed at it, in
    /// challenger order whatever order they arrived in (LM-1: nothing depends on arrival).
    fn start_revisions(&mut self) {
        self.phase = Phase::Revision;
        self.start_round(3);
        self.challenges.sort_by_key(|c| (c.from, c.to));
        for agent in self.present() {
            let challenges = self
                .challenges
                .iter()
                .filter(|c| c.to == agent)
                .map(|c| ChallengeSeen {
                    from: self.agents[c.from].id.clone(),
                    from_role: self.agents[c.from].role,
                    text: c.text.clone(),
                    argues_for: c.argues_for,
                })
                .collect();
            let task = S4Task::Revise {
                query: self.query.clone(),
                own: self.initial_of(agent),
                challenges,
            };
            self.enqueue(agent, agent, 3, task);
        }
    }

    /// S4-5 and S4-6: lock each round-3 position as the vote, then aggregate.
    fn finish(&mut self) {
        self.lock_votes(0);
    }

    /// Locks the votes and decides; `cut_in` is the round the budget ran out in (0: it did not).
    fn lock_votes(&mut self, cut_in: u16) {
        self.phase = Phase::Done;
        self.start_round(4);
        let mut votes = Vec::with_capacity(self.agents.len());
        let mut changed = Vec::new();
        for (i, spec) in self.agents.iter().enumerate() {
            if self.removed[i] {
                continue;
            }
            let locked = self.revised[i]
                .clone()
                .unwrap_or_else(|| self.initial_of(i));
            if self.initial[i].as_ref().map(|p| p.decision) != Some(locked.decision) {
                changed.push(spec.id.clone());
            }
            let vote = Vote {
                agent: spec.id.clone(),
                role: spec.role,
                decision: locked.decision,
                confidence: locked.confidence,
                risk: locked.risk,
                reasoning: locked.reasoning,
            };
            self.events.push_back(Emit::Own(S4Event::Vote {
                round: 4,
                vote: vote.clone(),
            }));
            votes.push(vote);
        }
        let outcome = if cut_in == 0 {
            aggregate(&votes, changed)
        } else {
            cut_short(&votes, changed, cut_in)
        };
        self.events.push_back(Emit::Decided(outcome.clone()));
        self.outcome = Some(outcome);
    }

    fn initial_of(&self, agent: usize) -> Position {
        self.initial[agent].clone().unwrap_or(Position {
            decision: Decision::Refuse,
            confidence: 0,
            risk: 0,
            reasoning: String::new(),
        })
    }
}

impl Machine for S4Debate {
    type Event = S4Event;
    type Params = NoParams;
    type Outcome = S4Outcome;
    type Task = S4Task;
    type Reply = S4Reply;

    fn agents(&self) -> &[AgentSpec] {
        &self.agents
    }

    /// The next agent to ask, if any. Emits a `thinking` event for it.
    fn poll_request(&mut self) -> Option<Request<S4Task>> {
        self.requests.next(&mut self.events)
    }

    /// The next event to append to the log, in order.
    fn poll_event(&mut self) -> Option<S4Emit> {
        self.events.pop_front()
    }

    fn is_finished(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Feeds an agent's reply to request `id`. A reply of the wrong shape is an error and
    /// changes nothing; the driver should then call [`S4Debate::handle_failure`].
    fn handle_reply(&mut self, id: u32, reply: S4Reply) -> Result<(), ProtocolError> {
        let (agent, _) = *self.requests.pending(id)?;
        match (self.phase, reply) {
            (Phase::Analysis | Phase::Revision, S4Reply::Position(p)) => {
                self.requests.take(id)?;
                let mut p = normalise(self.agents[agent].role, p);
                if let Some(to) = clamp_confidence(p.confidence, self.complex) {
                    self.events.push_back(Emit::Own(S4Event::ConfidenceClamped {
                        agent: self.agents[agent].id.clone(),
                        round: self.round(),
                        claimed: p.confidence,
                        clamped_to: to,
                    }));
                    p.confidence = to;
                }
                self.record_position(agent, p);
            }
            (Phase::Challenge, S4Reply::Challenge { text, argues_for }) => {
                let to = self.challenge_target(id)?;
                self.requests.take(id)?;
                self.record_challenge(agent, to, text, argues_for);
            }
            (_, reply) => {
                return Err(ProtocolError::WrongReply {
                    round: self.round(),
                    got: reply.kind(),
                })
            }
        }
        self.advance_if_round_complete();
        Ok(())
    }

    /// S4-8: an agent that errs, times out or answers garbage never stalls the debate. In rounds 1
    /// and 3 it counts as `REFUSE` with the reason; in round 2 its challenge records the failure.
    fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        let (agent, _) = *self.requests.pending(id)?;
        let round = self.round();
        let agent_id = self.agents[agent].id.clone();
        let substitute = match self.phase {
            Phase::Challenge => {
                let to = self.challenge_target(id)?;
                self.requests.take(id)?;
                let own = self.initial[agent]
                    .as_ref()
                    .map_or(Decision::Refuse, |p| p.decision);
                self.push_failed(&agent_id, round, error, "challenge left blank");
                self.record_challenge(agent, to, format!("(no challenge: {error})"), own);
                self.advance_if_round_complete();
                return Ok(());
            }
            _ => {
                self.requests.take(id)?;
                Position {
                    decision: Decision::Refuse,
                    confidence: 0,
                    risk: 0,
                    reasoning: format!("No usable reply, counted as REFUSE: {error}"),
                }
            }
        };
        self.push_failed(&agent_id, round, error, "counted as REFUSE");
        self.record_position(agent, substitute);
        self.advance_if_round_complete();
        Ok(())
    }

    /// The token budget ran out: no more requests; every agent's latest position is locked as its
    /// vote (an agent with none votes `REFUSE`) and [`cut_short`] decides.
    fn exhaust(&mut self, used: u64, budget: u64) {
        if self.phase == Phase::Done {
            return;
        }
        let round = self.round();
        self.requests.clear();
        self.events
            .push_back(Emit::Common(CommonEvent::BudgetExhausted {
                round,
                used,
                budget,
            }));
        for i in 0..self.agents.len() {
            if self.revised[i].is_none() && self.initial[i].is_none() {
                self.revised[i] = Some(Position {
                    decision: Decision::Refuse,
                    confidence: 0,
                    risk: 0,
                    reasoning: "No position before the token budget ran out: counted as REFUSE."
                        .into(),
                });
            }
        }
        self.lock_votes(round);
    }
}
