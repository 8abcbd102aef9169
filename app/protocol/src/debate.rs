//! One handle over every protocol's machine, so the drive loop, the bench and the tests drive any
//! of them the same way. Each machine speaks its protocol's own types ([`Machine`]); this is where
//! they become the log's events and the runner's requests. A new protocol adds one variant here
//! and its line in each `match`.

use super::collapse::{WcDebate, WcEmit};
use super::credibility::CredibilitySnapshot;
use super::error::ProtocolError;
use super::escalation::{EsDebate, EsEmit};
use super::event::{Config, DebateEvent, EventBody};
use super::outcome::Outcome;
use super::reconcile::{RcDebate, RcEmit};
use super::request::{AgentReply, AgentRequest, Task};
use super::round_robin::{RrDebate, RrEmit};
use super::s4::{S4Debate, S4Emit, S4Reply, S4Task};
use super::shared::{Emit, Machine, Request, Started, Supervision};
use super::types::AgentSpec;

#[derive(Debug)]
pub enum Debate {
    S4(S4Debate),
    RoundRobin(RrDebate),
    Collapse(Box<WcDebate>),
    Escalation(Box<EsDebate>),
    Reconcile(Box<RcDebate>),
}

/// `$e` for whichever protocol's machine `$debate` holds, as `$m`.
macro_rules! each_machine {
    ($debate:expr, $m:ident => $e:expr) => {
        match $debate {
            Debate::S4($m) => $e,
            Debate::RoundRobin($m) => $e,
            Debate::Collapse($m) => $e,
            Debate::Escalation($m) => $e,
            Debate::Reconcile($m) => $e,
        }
    };
}

/// A machine's emission as the log's event.
fn logged<E, C, O>(
    emit: Emit<E, C, O>,
    own: impl FnOnce(E) -> EventBody,
    config: impl FnOnce(C) -> Config,
    outcome: impl FnOnce(O) -> Outcome,
) -> EventBody {
    match emit {
        Emit::Common(e) => EventBody::Common(e),
        Emit::Own(e) => own(e),
        Emit::Decided(o) => EventBody::Debate(DebateEvent::Decision(outcome(o))),
        Emit::Started(s) => {
            let Started {
                protocol,
                query,
                seed,
                agents,
                rounds,
                config: params,
            } = *s;
            EventBody::Debate(DebateEvent::DebateStarted {
                protocol,
                query,
                seed,
                agents,
                rounds,
                config: params.map(|p| Box::new(config(p))),
                backend: None,
                context: None,
            })
        }
    }
}

impl From<S4Emit> for EventBody {
    fn from(emit: S4Emit) -> Self {
        logged(emit, EventBody::S4, |never| match never {}, Outcome::S4)
    }
}

impl From<RrEmit> for EventBody {
    fn from(emit: RrEmit) -> Self {
        logged(
            emit,
            EventBody::RoundRobin,
            Config::RoundRobin,
            Outcome::RoundRobin,
        )
    }
}

impl From<WcEmit> for EventBody {
    fn from(emit: WcEmit) -> Self {
        logged(
            emit,
            EventBody::Collapse,
            Config::Collapse,
            Outcome::Collapse,
        )
    }
}

impl From<EsEmit> for EventBody {
    fn from(emit: EsEmit) -> Self {
        logged(
            emit,
            EventBody::Escalation,
            Config::Escalation,
            Outcome::Escalation,
        )
    }
}

impl From<RcEmit> for EventBody {
    fn from(emit: RcEmit) -> Self {
        logged(
            emit,
            EventBody::Reconcile,
            Config::Reconcile,
            Outcome::Reconcile,
        )
    }
}

impl Debate {
    pub fn poll_request(&mut self) -> Option<AgentRequest> {
        match self {
            Debate::S4(m) => m.poll_request().map(|r| r.map(Task::S4)),
            Debate::RoundRobin(m) => m.poll_request().map(|r| r.map(Task::RoundRobin)),
            Debate::Collapse(m) => m.poll_request().map(|r| r.map(Task::Collapse)),
            Debate::Escalation(m) => m.poll_request().map(|r| r.map(Task::Escalation)),
            Debate::Reconcile(m) => m.poll_request().map(|r| r.map(Task::Reconcile)),
        }
    }

    pub fn poll_event(&mut self) -> Option<EventBody> {
        each_machine!(self, m => m.poll_event().map(EventBody::from))
    }

    pub fn handle_reply(&mut self, id: u32, reply: AgentReply) -> Result<(), ProtocolError> {
        match (self, reply) {
            (Debate::S4(m), AgentReply::S4(r)) => m.handle_reply(id, r),
            (Debate::RoundRobin(m), AgentReply::RoundRobin(r)) => m.handle_reply(id, r),
            (Debate::Collapse(m), AgentReply::Collapse(r)) => m.handle_reply(id, r),
            (Debate::Escalation(m), AgentReply::Escalation(r)) => m.handle_reply(id, r),
            (Debate::Reconcile(m), AgentReply::Reconcile(r)) => m.handle_reply(id, r),
            (_, reply) => Err(ProtocolError::OtherProtocol(reply.kind())),
        }
    }

    pub fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        each_machine!(self, m => m.handle_failure(id, error))
    }

    /// CR-4: the agents' credibility as the debate starts.
    pub fn set_credibility(&mut self, snapshot: &CredibilitySnapshot) {
        each_machine!(self, m => m.set_credibility(snapshot));
    }

    /// Timers and judges, for the protocol that has them ([`Machine::supervision`]).
    pub fn supervision(&self) -> Option<&dyn Supervision> {
        each_machine!(self, m => m.supervision())
    }

    /// [`Debate::supervision`], to act on.
    pub fn supervision_mut(&mut self) -> Option<&mut dyn Supervision> {
        each_machine!(self, m => m.supervision_mut())
    }
    /// FK-1: every agent asked from now on reads `note` after the query.
    pub fn add_note(&mut self, note: &str) {
        match self {
            Debate::S4(m) => m.add_note(note),
            Debate::RoundRobin(m) => m.add_note(note),
            Debate::Collapse(m) => m.add_note(note),
            Debate::Escalation(m) => m.add_note(note),
            Debate::Reconcile(m) => m.add_note(note),
        }
    }

    /// FK-1: a fork removes agent `id` from now on, where the protocol can go on without it
    /// (S4, until the votes are locked, while two agents remain); the others say why not.
    pub fn remove_agent(&mut self, id: &str) -> Result<(), String> {
        match self {
            Debate::S4(m) => m.remove_agent(id),
            Debate::RoundRobin(_) => Err(format!(
                "a round-robin debate takes its agents' turns in a fixed cycle to its decision: \
                 '{id}' cannot be removed"
            )),
            Debate::Collapse(_) => Err(format!(
                "a collapse debate weighs every author's card to the end: '{id}' cannot be removed"
            )),
            Debate::Escalation(_) => Err(format!(
                "an escalation pipeline's agents are each a stage of it: '{id}' cannot be removed"
            )),
            Debate::Reconcile(_) => Err(format!(
                "a reconciliation has one reconciler: '{id}' cannot be removed"
            )),
        }
    }

    /// See [`Machine::exhaust`].
    pub fn exhaust(&mut self, used: u64, budget: u64) {
        each_machine!(self, m => m.exhaust(used, budget));
    }

    pub fn is_finished(&self) -> bool {
        each_machine!(self, m => m.is_finished())
    }

    pub fn agents(&self) -> &[AgentSpec] {
        each_machine!(self, m => m.agents())
    }
}

/// Drives an S4 debate to the end with a scripted agent (an `Err` is an agent failure) and returns
/// every request and event: for the tests of this crate and of the crates built on it. It panics
/// if the machine refuses a scripted reply or stops before it has finished — a failed test.
#[allow(clippy::expect_used)] // a test helper: a panic is the test's failure, with its place
pub fn run_scripted(
    agents: Vec<AgentSpec>,
    mut script: impl FnMut(&Request<S4Task>) -> Result<S4Reply, String>,
) -> (Vec<Request<S4Task>>, Vec<EventBody>) {
    let mut d = S4Debate::new("Is the sky blue?", agents, 7).expect("valid debate");
    let (mut reqs, mut events) = (vec![], vec![]);
    loop {
        while let Some(e) = d.poll_event() {
            events.push(EventBody::from(e));
        }
        let Some(req) = d.poll_request() else { break };
        match script(&req) {
            Ok(reply) => d.handle_reply(req.id, reply).expect("reply accepted"),
            Err(e) => d.handle_failure(req.id, &e).expect("failure accepted"),
        }
        reqs.push(req);
    }
    assert!(d.is_finished());
    (reqs, events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{recompute_decision, seal_all};
    use crate::collapse::{default_authors, WcOutcomeKind, WcParams};
    use crate::event::DebateEvent;
    use crate::round_robin::RrReply;
    use crate::round_robin::{default_agents, RrEnding, RrParams, RrPosition, Stance};
    use crate::run::{Answered, DebateRun, Start, Usage};
    use crate::s4::S4Reply;
    use crate::shared::CommonEvent;
    use crate::Outcome;
    use crate::{Decision, EventBody, Position};

    /// Runs `d` with a 1,000-token budget: the first `answered` requests are answered with
    /// `reply`, the last of them costing 1,200 tokens (the budget is gone after it; with
    /// `answered == 0` the budget is 0 and gone at once).
    fn cut(d: Debate, answered: usize, reply: &dyn Fn(usize) -> AgentReply) -> Outcome {
        let budget = if answered == 0 { 0 } else { 1000 };
        let mut run = DebateRun::start(
            d,
            Start {
                backend: None,
                budget: Some(budget),
                ..Start::default()
            },
        );
        let mut bodies = Vec::new();
        let mut n = 0;
        loop {
            let next = run.poll_request();
            while let Some(e) = run.poll_event() {
                bodies.push(e);
            }
            let Some(req) = next else { break };
            assert!(n < answered, "a request after the budget ran out");
            let tokens = if n + 1 == answered { 1000 } else { 0 };
            let usage = Usage {
                attempts: 1,
                latency_ms: 5,
                prompt_tokens: tokens,
                completion_tokens: tokens / 5,
                estimated: false,
                ..Usage::default()
            };
            let answer = Answered {
                reply: Ok(reply(n)),
                usage: Some(usage),
                now: "2026-01-01T00:00:00.000Z".into(),
            };
            run.handle(&req, answer);
            n += 1;
        }
        assert!(run.is_finished());
        let want_used = if answered == 0 { 0 } else { 1200 };
        assert!(
            bodies.iter().any(|b| matches!(
                b,
                EventBody::Common(CommonEvent::BudgetExhausted { used, budget: b, .. }) if *used == want_used && *b == budget
            )),
            "budget_exhausted with used {want_used} of {budget}"
        );
        let calls = bodies
            .iter()
            .filter(|b| matches!(b, EventBody::Common(CommonEvent::AgentCall(_))))
            .count();
        assert_eq!(calls, answered, "one agent_call per answer");
        let log = seal_all(bodies);
        let Some(EventBody::Debate(DebateEvent::Decision(logged))) = log.last().map(|e| &e.body)
        else {
            panic!("the log ends with a decision");
        };
        assert!(logged.budget_exhausted());
        assert_eq!(
            recompute_decision(&log).as_ref(),
            Ok(logged),
            "SV-2 recompute"
        );
        logged.clone()
    }

    fn s4() -> Debate {
        Debate::S4(S4Debate::new("Ship it?", AgentSpec::default_s4(), 1).expect("s4"))
    }

    fn position(d: Decision) -> AgentReply {
        AgentReply::S4(S4Reply::Position(Position {
            decision: d,
            confidence: 80,
            risk: 10,
            reasoning: "r".into(),
        }))
    }

    /// A debate cut short decides from the positions that exist, the most cautious way, never
    /// better than WARN; agents without a position count as REFUSE.
    #[test]
    fn budget_stop_is_cautious_and_recomputable() {
        let all = [Decision::Act, Decision::Act, Decision::Act];
        let mixed = [Decision::Act, Decision::Warn, Decision::Act];
        let s4_cases: [(usize, &[Decision], &str); 4] = [
            (0, &all, "REFUSE"),
            (2, &all, "REFUSE"),
            (3, &all, "WARN"),
            (3, &mixed, "WARN"),
        ];
        for (answered, decisions, want) in s4_cases {
            let o = cut(s4(), answered, &|n| position(decisions[n % 3]));
            assert_eq!(o.label(), want, "S4 cut after {answered} replies");
        }
        let rr = Debate::RoundRobin(
            RrDebate::new(
                "Should I buy Tesla stock?",
                default_agents(),
                RrParams::default(),
                1,
            )
            .expect("rr"),
        );
        let o = cut(rr, 3, &|_| {
            AgentReply::RoundRobin(RrReply::Stance(RrPosition {
                stance: Stance::Buy,
                confidence: 90,
                reasoning: "cheap".into(),
            }))
        });
        match o {
            Outcome::RoundRobin(o) => {
                assert_eq!(
                    (o.stance, o.ending),
                    (Stance::Hold, RrEnding::BudgetExhausted)
                );
                assert_eq!(o.stance_counts.buy, 3);
            }
            other => panic!("{other:?}"),
        }
        let wc = Debate::Collapse(Box::new(
            WcDebate::new(
                "Ship it?",
                default_authors(),
                vec![],
                WcParams::default(),
                1,
            )
            .expect("wc"),
        ));
        match cut(wc, 0, &|_| unreachable!()) {
            Outcome::Collapse(o) => {
                assert_eq!(o.outcome, WcOutcomeKind::EscalatedToHuman);
                assert_eq!(o.chosen, None);
            }
            other => panic!("{other:?}"),
        }
    }

    /// An endpoint reporting `u64::MAX` tokens cannot wrap the count past the
    /// budget: the sum saturates and the debate ends `budget_exhausted` at once.
    #[test]
    fn a_hostile_usage_report_ends_the_debate_budget_exhausted() {
        let mut run = DebateRun::start(
            s4(),
            Start {
                backend: None,
                budget: Some(1_000_000),
                ..Start::default()
            },
        );
        let mut bodies = Vec::new();
        let mut asked = 0;
        loop {
            let next = run.poll_request();
            while let Some(e) = run.poll_event() {
                bodies.push(e);
            }
            let Some(req) = next else { break };
            asked += 1;
            let usage = Usage {
                attempts: 1,
                latency_ms: 1,
                prompt_tokens: u64::MAX,
                completion_tokens: u64::MAX,
                estimated: false,
                ..Usage::default()
            };
            run.handle(
                &req,
                Answered {
                    reply: Ok(position(Decision::Act)),
                    usage: Some(usage),
                    now: "2026-01-01T00:00:00.000Z".into(),
                },
            );
        }
        assert_eq!(asked, 1, "no call after the hostile report");
        assert!(bodies.iter().any(|b| matches!(
            b,
            EventBody::Common(CommonEvent::BudgetExhausted { used, .. }) if *used == u64::MAX
        )));
        let log = seal_all(bodies);
        let Some(EventBody::Debate(DebateEvent::Decision(o))) = log.last().map(|e| &e.body) else {
            panic!("a decision");
        };
        assert!(o.budget_exhausted() && o.label() != "ACT", "{o:?}");
    }
}
