//! SV-1: the view state of a debate is a fold of its events. The server and the browser run this
//! same reducer, so what a viewer sees is exactly what the log says.

use serde::{Deserialize, Serialize};

use super::collapse::{
    CardSubmitted, CardVerified, Converged, Critiqued, GatesChecked, HybridSynthesized,
    PanelEvaluated, PanelScored, ReflexionStarted, WcParams,
};
use super::event::{BackendInfo, Config, Event, EventBody};
use super::round_robin::{ConsensusCheck, RrParams, TriggerCheck};
use super::types::{display_name, AgentSpec, Decision};
use super::Outcome;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    Neutral,
    /// Shown in red.
    Challenge,
    /// Shown in green.
    Agreement,
    Failure,
}

/// One message in an agent's column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub seq: u64,
    pub round: u8,
    /// The column (agent id) the card belongs to.
    pub agent: String,
    pub tone: Tone,
    pub title: String,
    pub decision: Option<Decision>,
    /// A label that is not an S4 decision: an RR stance, a WC approval or score.
    #[serde(default)]
    pub label: Option<String>,
    pub confidence: Option<u8>,
    pub risk: Option<u8>,
    pub body: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundView {
    pub round: u8,
    pub name: String,
    pub expected: u32,
    pub received: u32,
    pub started: bool,
    pub cards: Vec<Card>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Running,
    Finished,
    Interrupted,
    /// Finished early: the token budget ran out, and the decision is the cautious one.
    BudgetExhausted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Finished => "finished",
            Status::Interrupted => "interrupted",
            Status::BudgetExhausted => "budget_exhausted",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DebateView {
    /// The highest sequence number folded in; events at or below it are ignored (no duplicates).
    pub last_seq: u64,
    pub protocol: String,
    pub query: String,
    pub seed: u64,
    pub agents: Vec<AgentSpec>,
    pub rounds: Vec<RoundView>,
    pub current_round: u8,
    /// Agents asked and not yet answered.
    pub thinking: Vec<String>,
    pub challenges: u32,
    pub failures: u32,
    pub decision: Option<Outcome>,
    pub interrupted: Option<String>,
    /// Round-robin only (RR-2, RR-5).
    pub rr: RrState,
    /// Weighted collapse only (WC-1…WC-6).
    pub wc: WcState,
    /// AG-2: calls, wall time and tokens per agent (remote kinds only), in order of first call.
    pub usage: Vec<AgentUsage>,
    /// S4-8: injection patterns found and confidences clamped, in log order.
    pub flags: Vec<Flag>,
    /// The token budget ran out: in which round, and the tokens used against the budget.
    pub budget_exhausted: Option<(u8, u64, u64)>,
    /// Remote agents: which backend and model, and the debate's token budget.
    pub backend: Option<BackendInfo>,
    /// The last `agent_failed` (seq, agent, round, error): the substitute card that follows
    /// points to it instead of repeating the error.
    #[serde(default)]
    last_failure: Option<(u64, String, u8, String)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentUsage {
    pub agent: String,
    pub backend: String,
    pub calls: u32,
    /// Calls that returned nothing usable.
    pub failed: u32,
    /// Attempts beyond the first, over all calls.
    pub retries: u32,
    pub latency_ms: u64,
    pub last_latency_ms: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub estimated: bool,
}

/// One S4-8 finding, as shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flag {
    pub seq: u64,
    /// `query` or the agent's id.
    pub source: String,
    pub round: u8,
    /// `injection` or `overconfidence`.
    pub kind: String,
    pub detail: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RrState {
    pub params: Option<RrParams>,
    pub trigger: Option<TriggerCheck>,
    /// One per finished round: the consensus meter.
    pub checks: Vec<ConsensusCheck>,
    /// Turns taken so far, per agent, in agent order.
    pub participation: Vec<(String, u32)>,
}

/// One position as it stands: its latest card, score, verification and gates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionState {
    pub latest: CardSubmitted,
    /// S after each revision, oldest first.
    pub history: Vec<f64>,
    pub verified: Option<CardVerified>,
    pub gates: Option<GatesChecked>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WcState {
    pub params: Option<WcParams>,
    pub positions: Vec<PositionState>,
    pub convergences: Vec<Converged>,
    pub critiques: Vec<Critiqued>,
    pub reflexions: Vec<ReflexionStarted>,
    /// The first panel's evaluations, then (if any) the hybrid's re-score.
    pub panel: Vec<PanelEvaluated>,
    pub hybrid_panel: Vec<PanelEvaluated>,
    pub panel_scores: Vec<PanelScored>,
    pub hybrid: Option<HybridSynthesized>,
}

impl WcState {
    fn position(&mut self, id: &str) -> Option<&mut PositionState> {
        self.positions.iter_mut().find(|p| p.latest.position == id)
    }
}

impl DebateView {
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> Self {
        let mut view = DebateView::default();
        for e in events {
            view.apply(e);
        }
        view
    }

    pub fn status(&self) -> Status {
        if self
            .decision
            .as_ref()
            .is_some_and(Outcome::budget_exhausted)
        {
            Status::BudgetExhausted
        } else if self.decision.is_some() {
            Status::Finished
        } else if self.interrupted.is_some() {
            Status::Interrupted
        } else {
            Status::Running
        }
    }

    pub fn messages_expected(&self) -> u32 {
        self.rounds.iter().map(|r| r.expected).sum()
    }

    pub fn messages_received(&self) -> u32 {
        self.rounds.iter().map(|r| r.received).sum()
    }

    /// 0–100, for the progress bar.
    pub fn progress_percent(&self) -> u32 {
        if self.decision.is_some() {
            return 100;
        }
        let expected = self.messages_expected();
        if expected == 0 {
            0
        } else {
            self.messages_received() * 100 / expected
        }
    }

    /// Tokens used by every agent so far.
    pub fn tokens_used(&self) -> u64 {
        self.usage
            .iter()
            .map(|u| u.prompt_tokens + u.completion_tokens)
            .sum()
    }

    pub fn is_thinking(&self, agent: &str) -> bool {
        self.thinking.iter().any(|a| a == agent)
    }

    /// Folds one event in. Returns false when it was already applied (a replayed duplicate).
    pub fn apply(&mut self, event: &Event) -> bool {
        if event.seq <= self.last_seq {
            return false;
        }
        self.last_seq = event.seq;
        let seq = event.seq;
        match &event.body {
            EventBody::DebateStarted {
                protocol,
                query,
                seed,
                agents,
                rounds,
                config,
                backend,
            } => {
                self.backend.clone_from(backend);
                match config {
                    Some(Config::RoundRobin(p)) => self.rr.params = Some(p.clone()),
                    Some(Config::Collapse(p)) => self.wc.params = Some(p.clone()),
                    None => {}
                }
                self.rr.participation = agents.iter().map(|a| (a.id.clone(), 0)).collect();
                self.protocol.clone_from(protocol);
                self.query.clone_from(query);
                self.seed = *seed;
                self.agents.clone_from(agents);
                self.rounds = rounds
                    .iter()
                    .map(|r| RoundView {
                        round: r.round,
                        name: r.name.clone(),
                        expected: r.expected,
                        received: 0,
                        started: false,
                        cards: Vec::new(),
                    })
                    .collect();
            }
            EventBody::RoundStarted {
                round,
                name,
                expected,
            } => {
                self.current_round = *round;
                // RR and WC decide their rounds as they go: a round may be new, or smaller.
                match self.round_mut(*round) {
                    Some(r) => {
                        r.started = true;
                        r.name.clone_from(name);
                        r.expected = *expected;
                    }
                    None => self.rounds.push(RoundView {
                        round: *round,
                        name: name.clone(),
                        expected: *expected,
                        received: 0,
                        started: true,
                        cards: Vec::new(),
                    }),
                }
            }
            EventBody::Thinking { agent, .. } => {
                if !self.is_thinking(agent) {
                    self.thinking.push(agent.clone());
                }
            }
            EventBody::Position {
                agent,
                round,
                position,
            } => {
                self.push_card(Card {
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
                });
            }
            EventBody::Challenge {
                round,
                from,
                to,
                text,
                argues_for,
            } => {
                self.challenges += 1;
                self.push_card(Card {
                    seq,
                    round: *round,
                    agent: from.clone(),
                    tone: Tone::Challenge,
                    title: format!("Challenges {} (argues {argues_for})", display_name(to)),
                    decision: None,
                    label: None,
                    confidence: None,
                    risk: None,
                    body: text.clone(),
                });
            }
            EventBody::Revision {
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
                self.push_card(Card {
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
                });
            }
            EventBody::Vote { round, vote } => {
                self.push_card(Card {
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
                });
            }
            EventBody::AgentFailed {
                agent,
                round,
                error,
                substitute,
            } => {
                self.failures += 1;
                self.last_failure = Some((seq, agent.clone(), *round, error.clone()));
                // The substitute position or challenge follows as its own card; this one explains it.
                if let Some(r) = self.round_mut(*round) {
                    r.cards.push(Card {
                        seq,
                        round: *round,
                        agent: agent.clone(),
                        tone: Tone::Failure,
                        title: format!("Agent failed ({substitute})"),
                        decision: None,
                        label: None,
                        confidence: None,
                        risk: None,
                        body: error.clone(),
                    });
                }
            }
            EventBody::Decision(outcome) => {
                // Final positions that match the outcome are agreements (green): S4 votes, and
                // each agent's last RR turn.
                match outcome {
                    Outcome::S4(o) => {
                        for round in &mut self.rounds {
                            for card in round.cards.iter_mut().filter(|c| c.round == 4) {
                                if card.decision.map(|d| d.verdict()) == Some(o.decision) {
                                    card.tone = Tone::Agreement;
                                }
                            }
                        }
                    }
                    Outcome::RoundRobin(o) => {
                        // Planned rounds that consensus made unnecessary are not shown.
                        self.rounds.retain(|r| r.started);
                        let stance = o.stance.as_str();
                        for agent in self.agents.iter().map(|a| a.id.clone()).collect::<Vec<_>>() {
                            let last = self
                                .rounds
                                .iter_mut()
                                .rev()
                                .flat_map(|r| r.cards.iter_mut().rev())
                                .find(|c| c.agent == agent && c.label.is_some());
                            if let Some(card) = last.filter(|c| c.label.as_deref() == Some(stance))
                            {
                                card.tone = Tone::Agreement;
                            }
                        }
                    }
                    Outcome::Collapse(_) => {}
                }
                self.thinking.clear();
                self.decision = Some(outcome.clone());
            }
            EventBody::Interrupted { reason } => {
                self.thinking.clear();
                self.interrupted = Some(reason.clone());
            }
            EventBody::AgentCall(c) => {
                let i = match self.usage.iter().position(|u| u.agent == c.agent) {
                    Some(i) => i,
                    None => {
                        self.usage.push(AgentUsage {
                            agent: c.agent.clone(),
                            backend: c.backend.clone(),
                            ..AgentUsage::default()
                        });
                        self.usage.len() - 1
                    }
                };
                let u = &mut self.usage[i];
                u.calls += 1;
                u.failed += u32::from(!c.ok);
                u.retries += c.attempts.saturating_sub(1);
                u.latency_ms += c.latency_ms;
                u.last_latency_ms = c.latency_ms;
                u.prompt_tokens += c.prompt_tokens;
                u.completion_tokens += c.completion_tokens;
                u.estimated |= c.estimated;
            }
            EventBody::InjectionDetected {
                source,
                round,
                pattern,
                excerpt,
            } => self.flags.push(Flag {
                seq,
                source: source.clone(),
                round: *round,
                kind: "injection".into(),
                detail: format!("{}: “{excerpt}”", pattern.replace('_', " ")),
            }),
            EventBody::ConfidenceClamped {
                agent,
                round,
                claimed,
                clamped_to,
            } => self.flags.push(Flag {
                seq,
                source: agent.clone(),
                round: *round,
                kind: "overconfidence".into(),
                detail: format!(
                    "claimed {claimed}% confidence on a complex query; clamped to {clamped_to}%"
                ),
            }),
            EventBody::BudgetExhausted {
                round,
                used,
                budget,
            } => {
                self.thinking.clear();
                self.budget_exhausted = Some((*round, *used, *budget));
            }
            other => self.apply_rr_wc(seq, other),
        }
        true
    }

    /// The RR and WC events: protocol state, plus a card in the speaker's column.
    fn apply_rr_wc(&mut self, seq: u64, body: &EventBody) {
        let card = |round: u8,
                    agent: &str,
                    tone: Tone,
                    title: String,
                    label: Option<String>,
                    body: String| Card {
            seq,
            round,
            agent: agent.to_owned(),
            tone,
            title,
            decision: None,
            label,
            confidence: None,
            risk: None,
            body,
        };
        match body {
            EventBody::TriggerChecked(t) => self.rr.trigger = Some(t.clone()),
            EventBody::Turn {
                agent,
                round,
                turn,
                position,
            } => {
                if let Some((_, n)) = self.rr.participation.iter_mut().find(|(a, _)| a == agent) {
                    *n = (*n).max(*turn);
                }
                let mut c = card(
                    *round,
                    agent,
                    Tone::Neutral,
                    format!("Turn {turn}: {}", position.stance),
                    Some(position.stance.as_str().to_owned()),
                    position.reasoning.clone(),
                );
                c.confidence = Some(position.confidence);
                self.push_card(c);
            }
            EventBody::ConsensusChecked(c) => self.rr.checks.push(c.clone()),
            EventBody::CardSubmitted(c) => {
                let title = if c.revision == 0 {
                    format!("Position card: S = {:.2}", c.score.total)
                } else {
                    format!("Revision {}: S = {:.2}", c.revision, c.score.total)
                };
                let plan = c
                    .card
                    .plan
                    .first()
                    .map(|p| p.action.clone())
                    .unwrap_or_default();
                self.push_card(card(c.round, &c.position, Tone::Neutral, title, None, plan));
                match self.wc.position(&c.position) {
                    Some(p) => {
                        p.history.push(c.score.total);
                        p.latest = c.clone();
                        p.verified = None;
                        p.gates = None;
                    }
                    None => self.wc.positions.push(PositionState {
                        latest: c.clone(),
                        history: vec![c.score.total],
                        verified: None,
                        gates: None,
                    }),
                }
            }
            EventBody::CardVerified(v) => {
                let (tone, label) = if v.approve {
                    (Tone::Agreement, "approved")
                } else {
                    (Tone::Challenge, "rejected")
                };
                self.push_card(card(
                    v.round,
                    &v.agent,
                    tone,
                    format!("Verifies {}", v.position),
                    Some(label.to_owned()),
                    v.notes.clone(),
                ));
                if let Some(p) = self.wc.position(&v.position) {
                    p.verified = Some(v.clone());
                }
            }
            EventBody::GatesChecked(g) => {
                if let Some(p) = self.wc.position(&g.position) {
                    p.gates = Some(g.clone());
                }
            }
            EventBody::Converged(c) => self.wc.convergences.push(c.clone()),
            EventBody::Critiqued(c) => {
                self.push_card(card(
                    c.round,
                    &c.agent,
                    Tone::Challenge,
                    format!("Critiques {}: {:.1}/10", c.position, c.score),
                    None,
                    c.concerns.join(" · "),
                ));
                self.wc.critiques.push(c.clone());
            }
            EventBody::ReflexionStarted(r) => self.wc.reflexions.push(r.clone()),
            EventBody::PanelEvaluated(p) => {
                self.push_card(card(
                    p.round,
                    &p.agent,
                    Tone::Neutral,
                    format!("Recommends {}", p.evaluation.recommendation),
                    None,
                    p.evaluation.concerns.join(" · "),
                ));
                if self.wc.hybrid.is_some() {
                    self.wc.hybrid_panel.push(p.clone());
                } else {
                    self.wc.panel.push(p.clone());
                }
            }
            EventBody::PanelScored(p) => self.wc.panel_scores.push(p.clone()),
            EventBody::HybridSynthesized(h) => self.wc.hybrid = Some(h.clone()),
            _ => {}
        }
    }

    fn round_mut(&mut self, round: u8) -> Option<&mut RoundView> {
        self.rounds.iter_mut().find(|r| r.round == round)
    }

    /// A message arrived: the agent is no longer thinking, and the round counts it.
    fn push_card(&mut self, mut card: Card) {
        self.thinking.retain(|a| *a != card.agent);
        // A substitute for a failed reply carries the error again; the failure card above has it.
        if let Some((seq, agent, round, error)) = self.last_failure.take() {
            if agent == card.agent && round == card.round && !error.is_empty() {
                card.body = card
                    .body
                    .replace(&error, &format!("see the failure above (event {seq})"));
            }
        }
        if let Some(r) = self.round_mut(card.round) {
            r.received += 1;
            r.cards.push(card);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::s4::{run_scripted, AgentReply, Task};
    use crate::protocol::{AgentSpec, Decision, Position};

    /// A scripted S4 debate as a stamped log: everyone ACTs, utility concedes to WARN.
    fn log() -> Vec<Event> {
        let (_, bodies) = run_scripted(AgentSpec::default_s4(), |req| {
            let position = |decision| {
                AgentReply::Position(Position {
                    decision,
                    confidence: 60,
                    risk: 20,
                    reasoning: "because".into(),
                })
            };
            Ok(match (&req.task, req.agent.as_str()) {
                (Task::Challenge { .. }, _) => AgentReply::Challenge {
                    text: "why?".into(),
                    argues_for: Decision::Warn,
                },
                (Task::Revise { .. }, "utility") => position(Decision::Warn),
                _ => position(Decision::Act),
            })
        });
        bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| Event::new(i as u64 + 1, String::new(), body))
            .collect()
    }

    #[test]
    fn fold_of_a_whole_debate_sv_1() {
        let events = log();
        let view = DebateView::from_events(&events);
        assert_eq!(view.status(), Status::Finished);
        assert_eq!(view.progress_percent(), 100);
        assert_eq!(view.messages_received(), 3 + 6 + 3 + 3);
        assert_eq!(view.challenges, 6);
        let cards: Vec<&Card> = view.rounds.iter().flat_map(|r| &r.cards).collect();
        let tone = |t| cards.iter().filter(|c| c.tone == t).count();
        assert_eq!(tone(Tone::Challenge), 6, "challenges are red");
        // Utility's change of mind and the two votes for the outcome (ACT) are green.
        assert_eq!(tone(Tone::Agreement), 1 + 2);
        assert!(view.thinking.is_empty());
        let outcome = view.decision.as_ref().expect("decision");
        let outcome = outcome.as_s4().expect("S4");
        assert_eq!(outcome.changed_minds, vec!["utility".to_string()]);
    }

    /// S4-8: a failed reply shows once, on its failure card; the substitute that follows points
    /// to it instead of repeating the error.
    #[test]
    fn a_substitute_points_to_its_failure_instead_of_repeating_it() {
        let (_, bodies) = run_scripted(AgentSpec::default_s4(), |req| match &req.task {
            Task::Challenge { .. } if req.agent == "safety" => Err("garbled reply".into()),
            Task::Revise { .. } if req.agent == "accuracy" => Err("no reply within 30 s".into()),
            Task::Challenge { .. } => Ok(AgentReply::Challenge {
                text: "why?".into(),
                argues_for: Decision::Warn,
            }),
            _ => Ok(AgentReply::Position(Position {
                decision: Decision::Act,
                confidence: 60,
                risk: 20,
                reasoning: "because".into(),
            })),
        });
        let events: Vec<Event> = bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| Event::new(i as u64 + 1, String::new(), body))
            .collect();
        let view = DebateView::from_events(&events);
        let cards: Vec<&Card> = view.rounds.iter().flat_map(|r| &r.cards).collect();
        let failures: Vec<&&Card> = cards.iter().filter(|c| c.tone == Tone::Failure).collect();
        assert_eq!(failures.len(), 3, "two challenges and one revision failed");
        for f in &failures {
            let next = cards
                .iter()
                .find(|c| c.seq > f.seq && c.agent == f.agent && c.round == f.round)
                .expect("a substitute follows");
            assert!(
                !next.body.contains(&f.body),
                "{:?} repeats {:?}",
                next.body,
                f.body
            );
            assert!(
                next.body
                    .contains(&format!("see the failure above (event {})", f.seq)),
                "{}",
                next.body
            );
        }
        // The log itself keeps the whole reason in the substitute.
        assert!(events.iter().any(|e| matches!(&e.body,
            EventBody::Challenge { text, .. } if text == "(no challenge: garbled reply)")));
    }

    #[test]
    fn every_event_kind_survives_the_wire() {
        // The browser parses exactly what the server serialises.
        let mut events = log();
        events.push(crate::protocol::chain::seal(
            Event::new(
                99,
                "2026-01-01T00:00:00.000Z".into(),
                EventBody::Interrupted { reason: "x".into() },
            ),
            crate::protocol::chain::GENESIS,
        ));
        for e in &events {
            let json = serde_json::to_value(e).expect("serialise");
            assert_eq!(json["seq"], e.seq);
            assert_eq!(json["type"], e.body.kind());
            let back: Event = serde_json::from_value(json).expect("deserialise");
            assert_eq!(&back, e);
        }
    }

    #[test]
    fn replayed_events_are_ignored_sv_3() {
        let events = log();
        let once = DebateView::from_events(&events);
        let mut twice = DebateView::default();
        for e in events.iter().chain(events.iter()) {
            twice.apply(e);
        }
        assert_eq!(once, twice, "applying a duplicate changes nothing");
        let mut v = DebateView::default();
        assert!(v.apply(&events[0]));
        assert!(!v.apply(&events[0]));
    }

    #[test]
    fn folding_in_pieces_equals_folding_at_once() {
        // What the browser does: SSR state up to n, then the SSE stream after n.
        let events = log();
        let whole = DebateView::from_events(&events);
        for n in 0..events.len() {
            let mut v = DebateView::from_events(&events[..n]);
            for e in &events[n..] {
                v.apply(e);
            }
            assert_eq!(v, whole, "split at {n}");
        }
    }

    #[test]
    fn thinking_and_progress_while_running() {
        let events = log();
        // Up to the first thinking event of round 1.
        let upto = events
            .iter()
            .position(|e| matches!(e.body, EventBody::Thinking { .. }))
            .expect("thinking");
        let view = DebateView::from_events(&events[..=upto]);
        assert_eq!(view.status(), Status::Running);
        assert_eq!(view.thinking, vec!["utility".to_string()]);
        assert!(view.is_thinking("utility"));
        assert_eq!(view.progress_percent(), 0);
        let view = DebateView::from_events(&events[..=upto + 1]);
        assert!(view.thinking.is_empty(), "a message ends the thinking");
        assert_eq!(view.messages_received(), 1);
        assert_eq!(view.current_round, 1);
    }

    #[test]
    fn interrupted_debates_stop_thinking() {
        let mut events = log();
        events.truncate(10);
        events.push(Event::new(
            11,
            String::new(),
            EventBody::Interrupted {
                reason: "restart".into(),
            },
        ));
        let view = DebateView::from_events(&events);
        assert_eq!(view.status(), Status::Interrupted);
        assert!(view.thinking.is_empty());
    }
}
