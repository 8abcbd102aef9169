//! One handle over every protocol's machine, so the drive loop, the bench and the tests drive any
//! of them the same way ([`Machine`]). A new protocol adds one variant here.

use super::collapse::WcDebate;
use super::error::ProtocolError;
use super::escalation::EsDebate;
use super::event::EventBody;
use super::machine::Machine;
use super::reconcile::RcDebate;
use super::request::{AgentReply, AgentRequest};
use super::round_robin::RrDebate;
use super::s4::S4Debate;
use super::types::AgentSpec;

#[derive(Debug)]
pub enum Debate {
    S4(S4Debate),
    RoundRobin(RrDebate),
    Collapse(Box<WcDebate>),
    Escalation(Box<EsDebate>),
    Reconcile(Box<RcDebate>),
}

impl Debate {
    /// The protocol's machine, behind the one shape every protocol has.
    pub fn machine(&self) -> &dyn Machine {
        match self {
            Debate::S4(m) => m,
            Debate::RoundRobin(m) => m,
            Debate::Collapse(m) => m.as_ref(),
            Debate::Escalation(m) => m.as_ref(),
            Debate::Reconcile(m) => m.as_ref(),
        }
    }

    pub fn machine_mut(&mut self) -> &mut dyn Machine {
        match self {
            Debate::S4(m) => m,
            Debate::RoundRobin(m) => m,
            Debate::Collapse(m) => m.as_mut(),
            Debate::Escalation(m) => m.as_mut(),
            Debate::Reconcile(m) => m.as_mut(),
        }
    }

    pub fn poll_request(&mut self) -> Option<AgentRequest> {
        self.machine_mut().poll_request()
    }

    pub fn poll_event(&mut self) -> Option<EventBody> {
        self.machine_mut().poll_event()
    }

    pub fn handle_reply(&mut self, id: u32, reply: AgentReply) -> Result<(), ProtocolError> {
        self.machine_mut().handle_reply(id, reply)
    }

    pub fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        self.machine_mut().handle_failure(id, error)
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
        self.machine_mut().exhaust(used, budget);
    }

    pub fn is_finished(&self) -> bool {
        self.machine().is_finished()
    }

    pub fn agents(&self) -> &[AgentSpec] {
        self.machine().agents()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{recompute_decision, seal_all};
    use crate::collapse::{default_authors, WcOutcomeKind, WcParams};
    use crate::round_robin::{default_agents, RrEnding, RrParams, RrPosition, Stance};
    use crate::run::{Answered, DebateRun, Start, Usage};
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
                EventBody::BudgetExhausted { used, budget: b, .. } if *used == want_used && *b == budget
            )),
            "budget_exhausted with used {want_used} of {budget}"
        );
        let calls = bodies
            .iter()
            .filter(|b| matches!(b, EventBody::AgentCall(_)))
            .count();
        assert_eq!(calls, answered, "one agent_call per answer");
        let log = seal_all(bodies);
        let Some(EventBody::Decision(logged)) = log.last().map(|e| &e.body) else {
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
        AgentReply::Position(Position {
            decision: d,
            confidence: 80,
            risk: 10,
            reasoning: "r".into(),
        })
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
            AgentReply::Stance(RrPosition {
                stance: Stance::Buy,
                confidence: 90,
                reasoning: "cheap".into(),
            })
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
            EventBody::BudgetExhausted { used, .. } if *used == u64::MAX
        )));
        let log = seal_all(bodies);
        let Some(EventBody::Decision(o)) = log.last().map(|e| &e.body) else {
            panic!("a decision");
        };
        assert!(o.budget_exhausted() && o.label() != "ACT", "{o:?}");
    }
}
