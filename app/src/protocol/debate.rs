//! One handle over every protocol machine, so the runner, the bench and the tests drive any of
//! them the same way: `poll_request` / `handle_reply` / `handle_failure` / `poll_event`.

use serde::{Deserialize, Serialize};

use super::collapse::{WcDebate, WcOutcome};
use super::request::{AgentReply, AgentRequest};
use super::round_robin::{RrDebate, RrOutcome};
use super::s4::{S4Debate, S4Outcome};
use super::types::AgentSpec;
use super::ProtocolError;

/// The payload of a `decision` event. On the wire it is the protocol's own object: S4 has
/// `decision`, RR has `stance`, WC has `outcome` (each required, so parsing is unambiguous).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Outcome {
    S4(S4Outcome),
    RoundRobin(RrOutcome),
    Collapse(WcOutcome),
}

impl Outcome {
    /// The one-word result: `ACT`, `BUY`, `CONSENSUS_REACHED`, …
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::S4(o) => o.decision.as_str(),
            Outcome::RoundRobin(o) => o.stance.as_str(),
            Outcome::Collapse(o) => o.outcome.as_str(),
        }
    }

    pub fn reasoning(&self) -> &str {
        match self {
            Outcome::S4(o) => &o.reasoning,
            Outcome::RoundRobin(o) => &o.reasoning,
            Outcome::Collapse(o) => &o.reasoning,
        }
    }

    /// Whether the debate was cut short by its token budget (status `budget_exhausted`).
    pub fn budget_exhausted(&self) -> bool {
        match self {
            Outcome::S4(o) => o.budget_exhausted,
            Outcome::RoundRobin(o) => o.ending == super::round_robin::RrEnding::BudgetExhausted,
            Outcome::Collapse(o) => o.budget_exhausted,
        }
    }

    pub fn as_s4(&self) -> Option<&S4Outcome> {
        match self {
            Outcome::S4(o) => Some(o),
            _ => None,
        }
    }
}

/// S4-1 / RR-1: at least two agents, at most `max`, unique non-empty ids.
pub fn check_agents(agents: &[AgentSpec], max: usize) -> Result<(), ProtocolError> {
    if agents.len() < 2 {
        return Err(ProtocolError::TooFewAgents(agents.len()));
    }
    if agents.len() > max {
        return Err(ProtocolError::TooManyAgents(agents.len(), max));
    }
    for (i, a) in agents.iter().enumerate() {
        if a.id.trim().is_empty() {
            return Err(ProtocolError::EmptyAgentId);
        }
        if agents[..i].iter().any(|b| b.id == a.id) {
            return Err(ProtocolError::DuplicateAgent(a.id.clone()));
        }
    }
    Ok(())
}

#[derive(Debug)]
pub enum Debate {
    S4(S4Debate),
    RoundRobin(RrDebate),
    Collapse(Box<WcDebate>),
}

macro_rules! each {
    ($self:expr, $m:ident => $e:expr) => {
        match $self {
            Debate::S4($m) => $e,
            Debate::RoundRobin($m) => $e,
            Debate::Collapse($m) => $e,
        }
    };
}

impl Debate {
    pub fn poll_request(&mut self) -> Option<AgentRequest> {
        each!(self, m => m.poll_request())
    }

    pub fn poll_event(&mut self) -> Option<super::EventBody> {
        each!(self, m => m.poll_event())
    }

    pub fn handle_reply(&mut self, id: u32, reply: AgentReply) -> Result<(), ProtocolError> {
        each!(self, m => m.handle_reply(id, reply))
    }

    pub fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        each!(self, m => m.handle_failure(id, error))
    }

    /// The token budget ran out before the next request: stop asking and decide from what exists,
    /// the most cautious way (S4: [`super::s4::cut_short`], RR: HOLD, WC: a human decides).
    pub fn exhaust(&mut self, used: u64, budget: u64) {
        each!(self, m => m.exhaust(used, budget))
    }

    pub fn is_finished(&self) -> bool {
        each!(self, m => m.is_finished())
    }

    pub fn agents(&self) -> &[AgentSpec] {
        each!(self, m => m.agents())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chain::{recompute_decision, seal_all};
    use crate::protocol::collapse::{default_authors, WcOutcomeKind, WcParams};
    use crate::protocol::round_robin::{default_agents, RrEnding, RrParams, RrPosition, Stance};
    use crate::protocol::{Decision, EventBody, Position};

    /// Answers the first `answered` requests with `reply`, then spends the budget.
    fn cut(mut d: Debate, answered: usize, reply: &dyn Fn(usize) -> AgentReply) -> Outcome {
        let mut bodies = Vec::new();
        for n in 0.. {
            while let Some(e) = d.poll_event() {
                bodies.push(e);
            }
            if n == answered {
                // As the runner does: the calls so far are logged, then the stop.
                bodies.push(EventBody::AgentCall(crate::protocol::AgentCall {
                    agent: "utility".into(),
                    round: 1,
                    backend: "openai".into(),
                    attempts: 1,
                    latency_ms: 5,
                    prompt_tokens: 1000,
                    completion_tokens: 200,
                    ok: true,
                    estimated: false,
                }));
                d.exhaust(1200, 1000);
                break;
            }
            let req = d.poll_request().expect("a request");
            d.handle_reply(req.id, reply(n)).expect("accepted");
        }
        while let Some(e) = d.poll_event() {
            bodies.push(e);
        }
        assert!(d.is_finished());
        assert!(
            d.poll_request().is_none(),
            "no request after the budget ran out"
        );
        assert!(bodies.iter().any(|b| matches!(
            b,
            EventBody::BudgetExhausted {
                used: 1200,
                budget: 1000,
                ..
            }
        )));
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
}
