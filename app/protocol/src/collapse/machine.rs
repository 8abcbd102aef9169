//! WC as a sans-IO machine: cards → verification → gates → convergence, then reflexion loops,
//! the consensus panel and a hybrid's re-score as the rules send it (WC-1…WC-8).

use std::collections::VecDeque;
use std::sync::Arc;

use super::card::PositionCard;
use super::params::WcParams;
use super::tally::Tally;
use super::types::WcOutcome;
use super::types::{CardSource, CardVerified, Critiqued, PanelEvaluated, WcOutcomeKind};
use super::validate::{check_card, check_evaluation};
use crate::collapse::{WcEvent, WcReply, WcTask};
use crate::error::ProtocolError;
use crate::shared::{CommonEvent, Emit, Machine, Request, RequestQueue, RoundInfo, Started};
use crate::types::{AgentSpec, Role};

/// What a collapse machine logs.
pub type WcEmit = Emit<WcEvent, WcParams, WcOutcome>;

pub const MAX_AUTHORS: usize = 8;

/// Three builtin authors with different temperaments (WC-1).
pub fn default_authors() -> Vec<AgentSpec> {
    ["cautious", "pragmatic", "ambitious"]
        .into_iter()
        .map(|id| AgentSpec::new(id, Role::Author))
        .collect()
}

/// The seven panel seats as agents, ids = role names; the verifier and skeptic also verify and
/// critique (WC-5).
pub fn panel_agents(params: &WcParams) -> Vec<AgentSpec> {
    params
        .panel
        .iter()
        .map(|s| AgentSpec::new(s.role.as_str(), s.role))
        .collect()
}

#[derive(Clone, Debug)]
pub(super) enum Pending {
    Write(String),
    Revise(String),
    Verify(String),
    Critique(String),
    Evaluate { seat: usize, hybrid: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Writing,
    Verifying,
    Critiquing,
    Revising,
    Panel,
    Hybrid,
    Done,
}

#[derive(Debug)]
pub struct WcDebate {
    pub(super) query: Arc<str>,
    pub(super) agents: Vec<AgentSpec>,
    pub(super) authors: Vec<String>,
    pub(super) tally: Tally,
    pub(super) phase: Phase,
    pub(super) round: u16,
    pub(super) requests: RequestQueue<WcTask, Pending>,
    pub(super) critique: Option<(f64, Vec<String>)>,
    pub(super) events: VecDeque<WcEmit>,
    pub(super) outcome: Option<WcOutcome>,
}

impl WcDebate {
    /// FK-1: every agent asked from now on reads `note` after the query.
    pub fn add_note(&mut self, note: &str) {
        self.query = Arc::from(format!("{}\n\n{note}", self.query));
        self.requests.add_note(note);
    }

    pub fn new(
        query: &str,
        authors: Vec<AgentSpec>,
        user_cards: Vec<PositionCard>,
        params: WcParams,
        seed: u64,
    ) -> Result<Self, ProtocolError> {
        crate::check_agents(&authors, MAX_AUTHORS)?;
        let seats = panel_agents(&params);
        if let Some(a) = authors
            .iter()
            .find(|a| seats.iter().any(|s| s.id == a.id) || a.id == "hybrid")
        {
            return Err(ProtocolError::DuplicateAgent(a.id.clone()));
        }
        let mut agents = authors.clone();
        agents.extend(seats);
        let n = authors.len() as u32;
        let mut d = WcDebate {
            query: Arc::from(query),
            authors: authors.iter().map(|a| a.id.clone()).collect(),
            tally: Tally::new(params.clone()),
            phase: Phase::Writing,
            round: 1,
            requests: RequestQueue::default(),
            critique: None,
            events: VecDeque::new(),
            outcome: None,
            agents,
        };
        d.events.push_back(Emit::Started(Box::new(Started {
            protocol: "collapse".into(),
            query: query.to_owned(),
            seed,
            agents: d.agents.clone(),
            rounds: vec![
                RoundInfo {
                    round: 1,
                    name: "Position Cards".into(),
                    expected: n,
                },
                RoundInfo {
                    round: 2,
                    name: "Verification".into(),
                    expected: n,
                },
            ],
            config: Some(params),
        })));
        d.start_round("Position Cards", n);
        if user_cards.is_empty() {
            for a in d.authors.clone() {
                let task = WcTask::WriteCard {
                    query: d.query.clone(),
                };
                d.enqueue(&a, Role::Author, task, Pending::Write(a.clone()));
            }
        } else {
            // WC-1: the user's cards enter as submitted; nobody is asked.
            for card in user_cards {
                let id = card.agent.clone();
                let e = d.tally.submit(1, &id, card, CardSource::User);
                d.events
                    .push_back(Emit::Own(WcEvent::CardSubmitted(Box::new(e))));
            }
            d.advance();
        }
        Ok(d)
    }

    pub fn outcome(&self) -> Option<&WcOutcome> {
        self.outcome.as_ref()
    }

    pub(super) fn seat_agent(&self, seat: usize) -> String {
        self.tally
            .params
            .panel
            .get(seat)
            .map(|s| s.role.as_str().to_owned())
            .unwrap_or_default()
    }

    pub(super) fn panel_positions(&self, hybrid: bool) -> Vec<String> {
        if hybrid {
            vec!["hybrid".to_owned()]
        } else {
            self.tally.candidates.clone()
        }
    }

    pub(super) fn record_verification(&mut self, pos: &str, approve: bool, notes: String) {
        self.tally.verify(pos, approve);
        self.events
            .push_back(Emit::Own(WcEvent::CardVerified(CardVerified {
                round: self.round,
                agent: "verifier".into(),
                position: pos.to_owned(),
                approve,
                notes,
            })));
    }

    pub(super) fn record_critique(&mut self, pos: &str, score: f64, concerns: Vec<String>) {
        self.events
            .push_back(Emit::Own(WcEvent::Critiqued(Critiqued {
                round: self.round,
                agent: "skeptic".into(),
                position: pos.to_owned(),
                score,
                concerns: concerns.clone(),
            })));
        self.critique = Some((score, concerns));
    }

    pub(super) fn record_evaluation(
        &mut self,
        seat: usize,
        hybrid: bool,
        evaluation: super::PanelEvaluation,
    ) {
        let Some(s) = self.tally.params.panel.get(seat).cloned() else {
            return;
        };
        self.tally
            .evaluate(hybrid, seat, s.weight, evaluation.clone());
        self.events
            .push_back(Emit::Own(WcEvent::PanelEvaluated(PanelEvaluated {
                round: self.round,
                agent: s.role.as_str().to_owned(),
                role: s.role,
                weight: s.weight,
                evaluation,
            })));
    }

    pub(super) fn enqueue(&mut self, agent: &str, role: Role, task: WcTask, pending: Pending) {
        self.requests.push(agent, role, self.round, task, pending);
    }

    pub(super) fn start_round(&mut self, name: &str, expected: u32) {
        self.events
            .push_back(Emit::Common(CommonEvent::RoundStarted {
                round: self.round,
                name: name.to_owned(),
                expected,
            }));
    }

    pub(super) fn next_round(&mut self, name: &str, expected: u32) {
        self.round += 1;
        self.start_round(name, expected);
    }
}

impl Machine for WcDebate {
    type Event = WcEvent;
    type Params = WcParams;
    type Outcome = WcOutcome;
    type Task = WcTask;
    type Reply = WcReply;

    fn agents(&self) -> &[AgentSpec] {
        &self.agents
    }

    fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }

    fn poll_event(&mut self) -> Option<WcEmit> {
        self.events.pop_front()
    }

    fn poll_request(&mut self) -> Option<Request<WcTask>> {
        self.requests.next(&mut self.events)
    }

    fn handle_reply(&mut self, id: u32, reply: WcReply) -> Result<(), ProtocolError> {
        let pending = self.requests.pending(id)?.clone();
        let wrong = |got: &WcReply| ProtocolError::WrongReply {
            round: self.round,
            got: got.kind(),
        };
        match (&pending, reply) {
            (Pending::Write(a) | Pending::Revise(a), WcReply::Card(mut card)) => {
                card.agent.clone_from(a);
                check_card(&card, "card").map_err(ProtocolError::InvalidCard)?;
                self.requests.take(id)?;
                let source = CardSource::Agent;
                let e = self.tally.submit(self.round, a, card, source);
                self.events
                    .push_back(Emit::Own(WcEvent::CardSubmitted(Box::new(e))));
            }
            (Pending::Verify(pos), WcReply::Verification(v)) => {
                self.requests.take(id)?;
                self.record_verification(pos, v.approve, v.notes);
            }
            (Pending::Critique(pos), WcReply::Critique(c)) => {
                if !(c.score.is_finite() && (0.0..=10.0).contains(&c.score)) {
                    return Err(ProtocolError::InvalidCard(format!(
                        "critique.score: must be 0–10, got {}",
                        c.score
                    )));
                }
                self.requests.take(id)?;
                self.record_critique(pos, c.score, c.concerns);
            }
            (Pending::Evaluate { seat, hybrid }, WcReply::Evaluation(e)) => {
                let positions = self.panel_positions(*hybrid);
                check_evaluation(&e, &positions).map_err(ProtocolError::InvalidCard)?;
                let (seat, hybrid) = (*seat, *hybrid);
                self.requests.take(id)?;
                self.record_evaluation(seat, hybrid, e);
            }
            (_, other) => return Err(wrong(&other)),
        }
        self.advance_if_step_done();
        Ok(())
    }

    /// Never a crash, never a silent approval: a failed author keeps its previous card (or has
    /// none), a failed verifier is no receipt, a failed skeptic scores 0, a failed seat is left
    /// out of C.
    fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        let pending = self.requests.take(id)?;
        let (agent, substitute) = match &pending {
            Pending::Write(a) => (a.clone(), "no card from this author"),
            Pending::Revise(a) => (a.clone(), "its previous card stands"),
            Pending::Verify(_) => ("verifier".into(), "not approved: no verifier receipt"),
            Pending::Critique(_) => ("skeptic".into(), "skeptic score 0"),
            Pending::Evaluate { seat, .. } => {
                (self.seat_agent(*seat), "left out of the panel's consensus")
            }
        };
        self.events
            .push_back(Emit::Common(CommonEvent::AgentFailed {
                agent,
                round: self.round,
                error: error.to_owned(),
                substitute: substitute.to_owned(),
            }));
        match pending {
            Pending::Verify(pos) => {
                self.record_verification(&pos, false, format!("no verifier receipt: {error}"))
            }
            Pending::Critique(pos) => {
                self.record_critique(&pos, 0.0, vec![format!("the skeptic failed: {error}")])
            }
            _ => {}
        }
        self.advance_if_step_done();
        Ok(())
    }

    /// The token budget ran out: no more requests; a human decides (ESCALATED_TO_HUMAN).
    fn exhaust(&mut self, used: u64, budget: u64) {
        if self.phase == Phase::Done {
            return;
        }
        self.requests.clear();
        self.events
            .push_back(Emit::Common(CommonEvent::BudgetExhausted {
                round: self.round,
                used,
                budget,
            }));
        self.finish(
            WcOutcomeKind::EscalatedToHuman,
            None,
            super::budget_reason(self.round),
        );
        if let Some(o) = self.outcome.as_mut() {
            o.budget_exhausted = true;
        }
        if let Some(Emit::Decided(o)) = self.events.back_mut() {
            o.budget_exhausted = true;
        }
    }
}
