//! SV-1: the view state of a debate is a fold of its events. The server and the browser run this
//! same reducer, so what a viewer sees is exactly what the log says.

use serde::{Deserialize, Serialize};

pub use super::collapse::{PositionState, WcState};
pub use super::columns::{Card, RoundView, Tone};
pub use super::escalation::{ChallengeView, EsState};
pub use super::reconcile::RcState;
pub use super::round_robin::RrState;
pub use super::s4::{ChallengeCell, Journey, Revision, S4State};

use super::event::{BackendInfo, Config, Event, EventBody};
use super::outcome::Outcome;
use super::status::DebateStatus;
use super::types::AgentSpec;
use crate::event::DebateEvent;
use crate::s4::S4Event;
use crate::shared::CommonEvent;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DebateView {
    /// The highest sequence number folded in; events at or below it are ignored (no duplicates).
    pub last_seq: u64,
    pub protocol: String,
    pub query: String,
    pub seed: u64,
    pub agents: Vec<AgentSpec>,
    /// FK-1: agents a fork removed from the debate.
    #[serde(default)]
    pub removed: Vec<String>,
    pub rounds: Vec<RoundView>,
    pub current_round: u16,
    /// Agents asked and not yet answered.
    pub thinking: Vec<String>,
    pub challenges: u32,
    pub failures: u32,
    pub decision: Option<Outcome>,
    /// ES-7: a judge sent a decided pipeline back to its agents; it runs again until its next
    /// decision (`decision` keeps the one that no longer stands until then).
    #[serde(default)]
    pub reopened: bool,
    pub interrupted: Option<String>,
    /// S4 only: each agent's journey and the challenge matrix (S4-3, UI-3).
    #[serde(default)]
    pub s4: S4State,
    /// Round-robin only (RR-2, RR-5).
    pub rr: RrState,
    /// Weighted collapse only (WC-1…WC-6).
    pub wc: WcState,
    /// Escalation only (ES-1…ES-9).
    #[serde(default)]
    pub es: EsState,
    /// Reconciliation only (RC-1…RC-5).
    #[serde(default)]
    pub rc: RcState,
    /// AG-2: calls, wall time and tokens per agent (remote kinds only), in order of first call.
    pub usage: Vec<AgentUsage>,
    /// S4-8: injection patterns found and confidences clamped, in log order.
    pub flags: Vec<Flag>,
    /// The token budget ran out: in which round, and the tokens used against the budget.
    pub budget_exhausted: Option<(u16, u64, u64)>,
    /// SV-13: the server's daily limit ended the debate: tokens spent today, the limit.
    #[serde(default)]
    pub daily_limit: Option<(u64, u64)>,
    /// ES-11: waiting for a judge to grant tokens or close it: tokens used, budget in force.
    #[serde(default)]
    pub budget_paused: Option<(u64, u64)>,
    /// ES-11: every grant: (judge, tokens, new budget).
    #[serde(default)]
    pub budget_grants: Vec<(String, u64, u64)>,
    /// RS-1: each time the debate was resumed from its log: the event its server stopped after.
    #[serde(default)]
    pub resumed_after: Vec<u64>,
    /// Remote agents: which backend and model, and the debate's token budget.
    pub backend: Option<BackendInfo>,
    /// CR-1: the context the request carried.
    #[serde(default)]
    pub context: Option<crate::credibility::ContextTags>,
    /// CR-4: the agents' credibility when the debate started, and CR-3's effective votes.
    #[serde(default)]
    pub credibility: Option<crate::credibility::CredibilitySnapshot>,
    /// The timestamp of the last event folded in (ES-10: the live page runs the pipeline clock
    /// on from it between events).
    #[serde(default)]
    pub last_ts: super::event::Stamp,
    /// The last `agent_failed` (seq, agent, round, error): the substitute card that follows
    /// points to it instead of repeating the error.
    #[serde(default)]
    last_failure: Option<(u64, String, u16, String)>,
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
    pub round: u16,
    /// `injection` or `overconfidence`.
    pub kind: String,
    pub detail: String,
}

impl DebateView {
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> Self {
        let mut view = DebateView::default();
        for e in events {
            view.apply(e);
        }
        view
    }

    pub fn status(&self) -> DebateStatus {
        if self
            .decision
            .as_ref()
            .is_some_and(Outcome::budget_exhausted)
        {
            DebateStatus::BudgetExhausted
        } else if self.decision.is_some() && !self.reopened {
            DebateStatus::Finished
        } else if self.interrupted.is_some() {
            DebateStatus::Interrupted
        } else {
            DebateStatus::Running
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
        (self.messages_received().min(expected) * 100)
            .checked_div(expected)
            .unwrap_or(0)
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
    #[allow(clippy::too_many_lines)] // one arm per shared event kind; protocol events go to their views
    pub fn apply(&mut self, event: &Event) -> bool {
        if event.seq <= self.last_seq {
            return false;
        }
        self.last_seq = event.seq;
        self.last_ts.clone_from(&event.ts);
        let seq = event.seq;
        if self.decision.is_some() && event.body.reopens() {
            self.reopened = true;
        }
        match &event.body {
            EventBody::Debate(DebateEvent::DebateStarted {
                protocol,
                query,
                seed,
                agents,
                rounds,
                config,
                backend,
                context,
            }) => {
                self.backend = backend.as_deref().cloned();
                self.context = context.as_deref().cloned();
                match config.as_deref() {
                    Some(Config::RoundRobin(p)) => self.rr.params = Some(p.clone()),
                    Some(Config::Collapse(p)) => self.wc.params = Some(p.clone()),
                    Some(Config::Escalation(p)) => self.es.params = Some(*p),
                    Some(Config::Reconcile(c)) => self.rc.start(c),
                    None => {}
                }
                self.rr.participation = agents.iter().map(|a| (a.id.clone(), 0)).collect();
                self.s4.start(agents);
                self.protocol.clone_from(protocol);
                self.query.clone_from(query);
                self.seed = *seed;
                self.agents.clone_from(agents);
                self.rounds = rounds
                    .iter()
                    .map(|r| RoundView::planned(r.round, r.name.clone(), r.expected))
                    .collect();
            }
            EventBody::Common(CommonEvent::Credibility(snapshot)) => {
                self.credibility = Some(snapshot.clone())
            }
            EventBody::Common(CommonEvent::RoundStarted {
                round,
                name,
                expected,
            }) => {
                self.current_round = *round;
                // RR and WC decide their rounds as they go: a round may be new, or smaller.
                match self.round_mut(*round) {
                    Some(r) => {
                        r.started = true;
                        r.name.clone_from(name);
                        r.expected = *expected;
                    }
                    None => self.rounds.push(RoundView {
                        started: true,
                        ..RoundView::planned(*round, name.clone(), *expected)
                    }),
                }
            }
            // FK-1: an agent a fork removed is asked nothing more.
            EventBody::Common(CommonEvent::ForkedFrom { changes, .. }) => {
                self.removed.extend(changes.remove.iter().cloned());
                let removed = &self.removed;
                self.thinking.retain(|a| !removed.contains(a));
            }
            EventBody::Common(CommonEvent::Thinking { agent, .. }) => {
                if !self.is_thinking(agent) && !self.removed.contains(agent) {
                    self.thinking.push(agent.clone());
                }
            }
            EventBody::Common(CommonEvent::AgentFailed {
                agent,
                round,
                error,
                substitute,
            }) => {
                self.failures += 1;
                self.thinking.retain(|a| a != agent);
                self.s4.failed(agent, *round, error, substitute);
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
            EventBody::Debate(DebateEvent::Decision(outcome)) => {
                match outcome {
                    Outcome::S4(o) => super::s4::on_decision(&mut self.rounds, o),
                    Outcome::RoundRobin(o) => {
                        super::round_robin::on_decision(&mut self.rounds, &self.agents, o);
                    }
                    Outcome::Collapse(_) | Outcome::Escalation(_) | Outcome::Reconcile(_) => {}
                }
                self.thinking.clear();
                self.decision = Some(outcome.clone());
                self.reopened = false;
            }
            EventBody::Common(CommonEvent::Interrupted { reason, .. }) => {
                self.thinking.clear();
                self.interrupted = Some(reason.clone());
            }
            EventBody::Common(CommonEvent::AgentCall(c)) => {
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
            EventBody::Common(CommonEvent::InjectionDetected {
                source,
                round,
                pattern,
                excerpt,
            }) => self.flags.push(Flag {
                seq,
                source: source.clone(),
                round: *round,
                kind: "injection".into(),
                detail: format!("{}: “{excerpt}”", pattern.replace('_', " ")),
            }),
            EventBody::S4(S4Event::ConfidenceClamped {
                agent,
                round,
                claimed,
                clamped_to,
            }) => self.flags.push(Flag {
                seq,
                source: agent.clone(),
                round: *round,
                kind: "overconfidence".into(),
                detail: format!(
                    "claimed {claimed}% confidence on a complex query; clamped to {clamped_to}%"
                ),
            }),
            EventBody::Common(CommonEvent::BudgetExhausted {
                round,
                used,
                budget,
            }) => {
                self.thinking.clear();
                self.budget_paused = None;
                self.budget_exhausted = Some((*round, *used, *budget));
            }
            EventBody::Common(CommonEvent::BudgetPaused { used, budget }) => {
                self.thinking.clear();
                self.budget_paused = Some((*used, *budget));
            }
            EventBody::Common(CommonEvent::BudgetGranted {
                judge,
                tokens,
                budget,
            }) => {
                self.budget_paused = None;
                self.budget_grants.push((judge.clone(), *tokens, *budget));
            }
            EventBody::Common(CommonEvent::BudgetClosed { .. }) => self.budget_paused = None,
            EventBody::Common(CommonEvent::Resumed { after_seq, .. }) => {
                self.resumed_after.push(*after_seq)
            }
            EventBody::Common(CommonEvent::DailyLimitReached { spent, limit }) => {
                self.thinking.clear();
                self.daily_limit = Some((*spent, *limit));
            }
            other => {
                if matches!(other, EventBody::S4(S4Event::Challenge { .. })) {
                    self.challenges += 1;
                }
                // The protocol's view takes its own events and may write a card for each.
                let card = match other {
                    EventBody::S4(e) => self.s4.apply(seq, e),
                    EventBody::RoundRobin(e) => self.rr.apply(seq, e),
                    EventBody::Collapse(e) => self.wc.apply(seq, e),
                    EventBody::Escalation(e) => self.es.apply(seq, e),
                    EventBody::Reconcile(e) => self.rc.apply(seq, e),
                    EventBody::Common(_) | EventBody::Debate(_) => None,
                };
                if let Some(card) = card {
                    self.push_card(card);
                }
            }
        }
        true
    }

    fn round_mut(&mut self, round: u16) -> Option<&mut RoundView> {
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
mod tests;
