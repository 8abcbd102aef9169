//! The escalation pipeline's machine: the specialists state their assumptions (round 1), every
//! disagreement becomes a challenge that climbs the ladder (round 2, ES-2…ES-6), and the
//! analyses run on the resolved values — the decision names what is provisional.
//!
//! Time comes from the runner ([`Machine::advance`], wall milliseconds since the start, scaled
//! by the debate's `time_scale`); [`Machine::wake_at`] says when a timer next fires. What the
//! agents answer is taken in by [`inbox`].

mod gate;
mod inbox;
mod supervise;

use std::collections::VecDeque;
use std::sync::Arc;

use super::ladder::{Ladder, Resolution, Stage, Step};
use super::rules::{covers, disputes, final_assumptions, outcome, silent};
use super::types::{AnalysisRun, EsOutcome, EsParams, Escalated, Estimate, Resolved, MAX_AGENTS};
use super::{EsEvent, EsReply, EsTask};
use crate::credibility::{Credibility, CredibilitySnapshot};
use crate::error::ProtocolError;
use crate::shared::{
    CommonEvent, Emit, Machine, Request, RequestQueue, RoundInfo, Started, Supervision,
};
use crate::types::AgentSpec;

/// What an escalation machine logs.
pub type EsEmit = Emit<EsEvent, EsParams, Box<EsOutcome>>;

const FINDINGS: u16 = 1;
const LADDER: u16 = 2;
/// After the ladder: no more agent calls; the analyses run and the decision is logged.
const ANALYSIS: u16 = 3;

/// What an outstanding request was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asked {
    Estimate(usize),
    Answer(usize),
    Verdict(usize),
}

#[derive(Debug)]
pub struct EsDebate {
    query: Arc<str>,
    agents: Vec<AgentSpec>,
    params: EsParams,
    /// Pipeline seconds since the start, as far as the runner has told.
    now: u64,
    /// Pipeline seconds when this run began: 0, or where a pipeline sent back to its agents at
    /// the gate picks up (ES-7); the runner's clock counts from here.
    since: u64,
    round: u16,
    /// One request at a time; each remembers what it asked.
    requests: RequestQueue<EsTask, Asked>,
    to_estimate: VecDeque<usize>,
    estimates: Vec<Vec<Estimate>>,
    ladders: Vec<Ladder>,
    /// The stage each ladder's last L1 request was made in (so each step is asked once).
    asked: Vec<Option<Stage>>,
    resolutions: Vec<Resolution>,
    credibility: Option<CredibilitySnapshot>,
    events: VecDeque<EsEmit>,
    outcome: Option<EsOutcome>,
    exhausted: bool,
}

impl EsDebate {
    /// FK-1: every agent asked from now on reads `note` after the query.
    pub fn add_note(&mut self, note: &str) {
        self.query = Arc::from(format!("{}\n\n{note}", self.query));
        self.requests.add_note(note);
    }

    /// ES-10: pipeline seconds per wall second.
    pub fn time_scale(&self) -> u32 {
        self.params.time_scale
    }

    pub fn new(
        query: &str,
        agents: Vec<AgentSpec>,
        params: EsParams,
        seed: u64,
    ) -> Result<Self, ProtocolError> {
        crate::types::check_agents(&agents, MAX_AGENTS)?;
        params.validate()?;
        let n = agents.len();
        // One finding per assumption each agent covers.
        let findings: u32 = (0..n).map(|i| covers(&agents, i).len() as u32).sum();
        let mut events = VecDeque::new();
        let rounds = [(FINDINGS, "Findings", findings), (LADDER, "Challenges", 0)];
        events.push_back(Emit::Started(Box::new(Started {
            protocol: "escalation".into(),
            query: query.to_owned(),
            seed,
            agents: agents.clone(),
            rounds: rounds
                .iter()
                .map(|(round, name, expected)| RoundInfo {
                    round: *round,
                    name: (*name).to_owned(),
                    expected: *expected,
                })
                .collect(),
            config: Some(params),
        })));
        events.push_back(Emit::Common(CommonEvent::RoundStarted {
            round: FINDINGS,
            name: "Findings".into(),
            expected: findings,
        }));
        Ok(EsDebate {
            query: Arc::from(query),
            params,
            now: 0,
            since: 0,
            round: FINDINGS,
            requests: RequestQueue::with_capacity(1),
            to_estimate: (0..n).collect(),
            estimates: vec![Vec::new(); n],
            ladders: Vec::new(),
            asked: Vec::new(),
            resolutions: Vec::new(),
            credibility: None,
            events,
            outcome: None,
            exhausted: false,
            agents,
        })
    }

    pub fn outcome(&self) -> Option<&EsOutcome> {
        self.outcome.as_ref()
    }

    pub fn ladders(&self) -> &[Ladder] {
        &self.ladders
    }

    fn index(&self, id: &str) -> Option<usize> {
        self.agents.iter().position(|a| a.id == id)
    }

    fn credibility_of(&self, agent: &str) -> Credibility {
        self.credibility
            .as_ref()
            .and_then(|s| s.agents.iter().find(|a| a.agent == agent))
            .map_or(
                Credibility {
                    score: None,
                    low: None,
                    high: None,
                    points: 0,
                    status: crate::credibility::CrStatus::InsufficientData,
                },
                |a| a.credibility.clone(),
            )
    }

    fn request(&mut self, agent: usize, asked: Asked, task: EsTask) -> Option<Request<EsTask>> {
        let spec = &self.agents[agent];
        self.requests
            .push(&spec.id, spec.role, self.round, task, asked);
        self.requests.next(&mut self.events)
    }

    fn log_steps(&mut self, ladder: usize, at: u64, steps: Vec<Step>) {
        let challenge = self.ladders[ladder].challenge.id.clone();
        for step in steps {
            match step {
                Step::Escalated { level, reason } => {
                    self.events
                        .push_back(Emit::Own(EsEvent::Escalated(Escalated {
                            challenge: challenge.clone(),
                            level,
                            reason,
                            at,
                        })));
                }
                Step::Resolved(resolution) => {
                    self.resolutions
                        .retain(|r| r.challenge != resolution.challenge);
                    self.resolutions.push(resolution.clone());
                    let body = Resolved { at, resolution };
                    self.events.push_back(if body.resolution.provisional {
                        Emit::Own(EsEvent::ProvisionalDecision(Box::new(body)))
                    } else {
                        Emit::Own(EsEvent::ChallengeResolved(Box::new(body)))
                    });
                }
                Step::Redebate { .. } => {}
            }
        }
    }

    /// Fires every timer due by `self.now`, each at its own deadline, and lets the facilitator
    /// weigh every challenge that reached it (ES-4); then moves the pipeline on.
    fn settle(&mut self) {
        for i in 0..self.ladders.len() {
            while let Some(d) = self.ladders[i].deadline().filter(|d| *d <= self.now) {
                let steps = self.ladders[i].tick(d);
                self.log_steps(i, d, steps);
            }
            if matches!(self.ladders[i].stage, Stage::Facilitator { .. }) {
                let c = &self.ladders[i].challenge;
                let (a, b) = (
                    self.credibility_of(&c.challenger),
                    self.credibility_of(&c.challenged),
                );
                let now = self.now;
                let steps = self.ladders[i].facilitate(now, &a, &b);
                self.log_steps(i, now, steps);
            }
        }
        self.move_on();
    }

    fn move_on(&mut self) {
        if self.outcome.is_some() || self.requests.awaiting_reply() {
            return;
        }
        if self.round == FINDINGS && self.to_estimate.is_empty() {
            self.raise_challenges();
        }
        if self.round == LADDER && self.ladders.iter().all(settled) {
            self.finish(false);
        }
    }

    /// ES-2: round 2 opens with every disagreement as a challenge at level 1.
    fn raise_challenges(&mut self) {
        self.round = LADDER;
        let raised = disputes(&self.agents, &self.estimates, self.now);
        self.events
            .push_back(Emit::Common(CommonEvent::RoundStarted {
                round: LADDER,
                name: "Challenges".into(),
                // The challenged agent's answer and the challenger's verdict, when both are asked.
                expected: 2 * raised.len() as u32,
            }));
        for c in raised {
            self.events.push_back(Emit::Own(EsEvent::ChallengeRaised {
                at: self.now,
                challenge: Box::new(c.clone()),
            }));
            self.ladders.push(Ladder::new(c, self.now));
            self.asked.push(None);
        }
    }

    fn finish(&mut self, budget_exhausted: bool) {
        self.round = ANALYSIS;
        // L5: what is still provisional goes to the gate, where judges review it.
        let now = self.now;
        for l in self.ladders.iter_mut() {
            // Those already at the gate (a pipeline sent back to its agents) stay there.
            if matches!(l.stage, Stage::Provisional { .. }) && l.level != 5 {
                l.level = 5;
                self.events
                    .push_back(Emit::Own(EsEvent::Escalated(Escalated {
                        challenge: l.challenge.id.clone(),
                        level: 5,
                        reason:
                            "the pipeline decided: the provisional value awaits review at the gate"
                                .into(),
                        at: now,
                    })));
            }
        }
        let assumptions = final_assumptions(&self.agents, &self.estimates, &self.resolutions);
        let result = outcome(
            &self.params.company,
            assumptions,
            self.resolutions.clone(),
            budget_exhausted,
            &silent(&self.agents, &self.estimates),
        );
        self.events
            .push_back(Emit::Own(EsEvent::Analysis(AnalysisRun {
                at: self.now,
                assumptions: result.assumptions.clone(),
                results: result.results.clone(),
                provisional: result.provisional.clone(),
                rerun: Vec::new(),
            })));
        self.events
            .push_back(Emit::Decided(Box::new(result.clone())));
        self.outcome = Some(result);
    }
}

/// A ladder that no longer holds the pipeline up: resolved, or provisional (ES-6).
fn settled(l: &Ladder) -> bool {
    matches!(l.stage, Stage::Closed | Stage::Provisional { .. })
}

impl Machine for EsDebate {
    type Event = EsEvent;
    type Params = EsParams;
    type Outcome = Box<EsOutcome>;
    type Task = EsTask;
    type Reply = EsReply;

    fn agents(&self) -> &[AgentSpec] {
        &self.agents
    }

    fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }

    fn poll_event(&mut self) -> Option<EsEmit> {
        self.events.pop_front()
    }

    /// ES-1's findings are independent: every specialist is asked at once (LM-1). The
    /// ladder's steps wait for each answer.
    fn poll_request(&mut self) -> Option<Request<EsTask>> {
        if self.outcome.is_some() {
            return None;
        }
        match self.round {
            LADDER if self.requests.awaiting_reply() => None,
            FINDINGS => {
                let agent = self.to_estimate.pop_front()?;
                let task = EsTask::Estimate {
                    query: self.query.clone(),
                    assumptions: covers(&self.agents, agent),
                    company: self.params.company,
                };
                self.request(agent, Asked::Estimate(agent), task)
            }
            LADDER => self.next_l1(),
            _ => None,
        }
    }

    fn handle_reply(&mut self, id: u32, reply: EsReply) -> Result<(), ProtocolError> {
        let asked = *self.requests.pending(id)?;
        let result = match (asked, reply) {
            (Asked::Estimate(agent), EsReply::Estimates(list)) => self.estimates_in(agent, list),
            (Asked::Answer(l), EsReply::ChallengeAnswer(a)) => self.answer_in(l, a),
            (Asked::Verdict(l), EsReply::Verdict(v)) => {
                self.verdict_in(l, v);
                Ok(())
            }
            (_, other) => Err(ProtocolError::WrongReply {
                round: self.round,
                got: other.kind(),
            }),
        };
        // A refused reply leaves the request outstanding for `handle_failure`.
        if result.is_ok() {
            self.requests.take(id)?;
            self.settle();
        }
        result
    }

    fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        let asked = self.requests.take(id)?;
        let now = self.now;
        let (agent, substitute) = match asked {
            Asked::Estimate(agent) => (
                self.agents[agent].id.clone(),
                "no values: the assumptions it states keep their defaults".to_owned(),
            ),
            Asked::Answer(l) | Asked::Verdict(l) => {
                let c = &self.ladders[l].challenge;
                let who = if matches!(asked, Asked::Answer(_)) {
                    c.challenged.clone()
                } else {
                    c.challenger.clone()
                };
                let sub = format!("{} climbs to the facilitator", c.id);
                let steps = self.ladders[l].agent_failed(now, error);
                self.log_steps(l, now, steps);
                (who, sub)
            }
        };
        self.events
            .push_back(Emit::Common(CommonEvent::AgentFailed {
                agent,
                round: self.round,
                error: error.to_owned(),
                substitute,
            }));
        self.settle();
        Ok(())
    }

    /// The budget is gone: no more agent calls. Every open challenge takes its most cautious
    /// position provisionally (ES-6) and the analyses run on what exists.
    fn exhaust(&mut self, used: u64, budget: u64) {
        if self.outcome.is_some() || self.exhausted {
            return;
        }
        self.exhausted = true;
        self.requests.clear();
        self.to_estimate.clear();
        self.events
            .push_back(Emit::Common(CommonEvent::BudgetExhausted {
                round: self.round,
                used,
                budget,
            }));
        let now = self.now;
        for i in 0..self.ladders.len() {
            let steps = self.ladders[i].give_up(now, "the token budget ran out".into());
            self.log_steps(i, now, steps);
        }
        self.finish(true);
    }

    fn supervision(&self) -> Option<&dyn Supervision> {
        Some(self)
    }

    fn supervision_mut(&mut self) -> Option<&mut dyn Supervision> {
        Some(self)
    }

    fn set_credibility(&mut self, snapshot: &CredibilitySnapshot) {
        self.credibility = Some(snapshot.clone());
    }
}
