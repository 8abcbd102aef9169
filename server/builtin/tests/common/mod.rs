//! What the replay tests share: a debate of each protocol as the server builds it, a log kept as
//! the server keeps it, and the builtin agents driving a run to its decision.
#![allow(dead_code)] // each test file uses its own part

pub use builtin::BuiltinAgents;
pub use protocol::chain::{seal, verify_chain, GENESIS};
pub use protocol::collapse::{default_authors, WcDebate, WcParams};
pub use protocol::escalation::EsDebate;
pub use protocol::event::Stamp;
pub use protocol::reconcile::{RcConfig, RcDebate};
pub use protocol::round_robin::RrDebate;
pub use protocol::run::rebuild;
pub use protocol::s4::S4Debate;
pub use protocol::{
    collapse::WcEvent, escalation::EsEvent, reconcile::RcEvent, round_robin::RrEvent, s4::S4Event,
};
pub use protocol::{
    AgentRequest, AgentSpec, Answered, CommonEvent, Debate, DebateEvent, DebateRun, Event,
    EventBody, Start,
};

pub const ES_QUERY: &str = "Value the company now that its largest customer (40% of revenue) has left, margins are falling and debt is rising.";
pub const QUERY: &str = "Should we migrate the billing database to a managed service this quarter?";

/// A debate of `protocol` as the server builds it.
pub fn machine(protocol: &str, seed: u64) -> Debate {
    match protocol {
        "s4" => Debate::S4(S4Debate::new(QUERY, AgentSpec::default_s4(), seed).expect("s4")),
        "round_robin" => Debate::RoundRobin(
            RrDebate::new(
                QUERY,
                protocol::round_robin::default_agents(),
                protocol::round_robin::RrParams::default(),
                seed,
            )
            .expect("rr"),
        ),
        "collapse" => Debate::Collapse(Box::new(
            WcDebate::new(
                QUERY,
                default_authors(),
                Vec::new(),
                WcParams::default(),
                seed,
            )
            .expect("wc"),
        )),
        "escalation" => Debate::Escalation(Box::new(
            EsDebate::new(
                ES_QUERY,
                protocol::escalation::default_agents(),
                protocol::escalation::EsParams::default(),
                seed,
            )
            .expect("es"),
        )),
        "reconcile" => {
            let observations = serde_json::from_str(
                r#"[
                {"id":"o1","agent":"sales","content":"Revenue grew 12% in the third quarter.","timestamp":"2026-01-01T00:00:00Z"},
                {"id":"o2","agent":"finance","content":"Third-quarter revenue rose by twelve percent.","timestamp":"2026-01-02T00:00:00Z"},
                {"id":"o3","agent":"audit","content":"Q3 revenue fell 3% against the prior quarter.","timestamp":"2026-01-03T00:00:00Z"},
                {"id":"o4","agent":"ops","content":"The warehouse in Leeds closes in March.","timestamp":"2026-01-04T00:00:00Z"}
            ]"#,
            )
            .expect("observations");
            let config = RcConfig {
                params: protocol::reconcile::RcParams::default(),
                observations,
                from_debates: Vec::new(),
            };
            Debate::Reconcile(Box::new(
                RcDebate::new("What happened to revenue?", config, seed).expect("rc"),
            ))
        }
        other => panic!("no protocol {other}"),
    }
}

/// The log as the server keeps it: numbered, stamped, chained.
pub struct Log {
    pub events: Vec<Event>,
    /// Where each stored batch ended: the server stores one step's events in one transaction,
    /// so a log it wrote ends at one of these.
    pub batches: Vec<usize>,
}

impl Log {
    pub fn push(&mut self, body: EventBody) {
        let seq = self.events.len() as u64 + 1;
        let prev = self
            .events
            .last()
            .map_or_else(|| GENESIS.to_owned(), |e| e.hash.to_string());
        let ts = Stamp::from(
            format!("2026-11-29T12:{:02}:{:02}.000Z", seq / 60 % 60, seq % 60).as_str(),
        );
        self.events.push(seal(Event::new(seq, ts, body), &prev));
    }

    pub fn drain(&mut self, run: &mut DebateRun) {
        while let Some(body) = run.poll_event() {
            self.push(body);
        }
        self.batches.push(self.events.len());
    }
}

/// Drives `run` to its decision as the server's loop does: every request the machine hands out
/// goes out at once; answers arrive one at a time, the last asked first (arrival order must not
/// matter, LM-1). Returns how many requests were answered.
pub fn drive(run: &mut DebateRun, agents: &BuiltinAgents, log: &mut Log) -> usize {
    drive_judged(run, agents, log, false)
}

/// [`drive`], with judge `ada` at the desk when `judged` (ES-5): she takes every queued
/// challenge and, once the agents have nothing left to answer, sends each back to its agents
/// once (ES-7's re-debate) and then confirms it.
pub fn drive_judged(
    run: &mut DebateRun,
    agents: &BuiltinAgents,
    log: &mut Log,
    judged: bool,
) -> usize {
    use protocol::escalation::{Admission, JudgeAction};
    let mut out: Vec<AgentRequest> = Vec::new();
    let mut answered = 0;
    let mut wall = 0;
    for _ in 0..10_000 {
        for (challenge, priority) in run.queued() {
            let admission = if judged {
                Admission::Assigned("ada".into())
            } else {
                // No judges: the desk overflows every queued challenge to the fallback.
                protocol::escalation::Desk::default().admit(&challenge, priority, 0)
            };
            run.admit(&challenge, admission);
        }
        if judged && out.is_empty() {
            if let Some(challenge) = run.held().first() {
                // What she did before is in the log: the same state gets the same ruling.
                let sent_back = log.events.iter().any(
                    |e| matches!(&e.body, EventBody::Escalation(EsEvent::JudgeRuling(r)) if r.challenge == *challenge),
                );
                let action = if sent_back {
                    JudgeAction::Confirm
                } else {
                    JudgeAction::Redebate {
                        context: "the customer's contract was renewed last week".into(),
                    }
                };
                if run.judge(challenge, "ada", action).is_ok() {
                    continue;
                }
            }
        }
        while let Some(req) = run.poll_request() {
            out.push(req);
        }
        log.drain(run);
        if run.is_finished() {
            return answered;
        }
        let Some(req) = out.pop() else {
            // ES-10: nothing to ask: the next timer.
            match run.wake_at() {
                Some(at) => {
                    wall = wall.max(at);
                    run.advance(wall);
                    continue;
                }
                None => return answered,
            }
        };
        let reply = agents.try_reply(&req);
        let now = log.events.last().map(|e| e.ts.clone()).unwrap_or_default();
        run.handle(
            &req,
            Answered {
                reply,
                usage: None,
                now,
            },
        );
        answered += 1;
    }
    panic!("the debate did not end");
}

/// How many agents' replies (or failures) `events` hold.
pub fn replies(events: &[Event]) -> usize {
    // ES-1: an agent's findings are one reply.
    let mut finders: Vec<&str> = Vec::new();
    for e in events {
        if let EventBody::Escalation(EsEvent::Message { round: 1, message }) = &e.body {
            if !finders.contains(&message.from.as_str()) {
                finders.push(&message.from);
            }
        }
    }
    finders.len()
        + events
            .iter()
            .filter(|e| match &e.body {
                EventBody::S4(S4Event::Position { .. })
                | EventBody::S4(S4Event::Revision { .. })
                | EventBody::RoundRobin(RrEvent::Turn { .. })
                | EventBody::Collapse(WcEvent::CardVerified(_))
                | EventBody::Collapse(WcEvent::Critiqued(_))
                | EventBody::Collapse(WcEvent::PanelEvaluated(_))
                | EventBody::Common(CommonEvent::AgentFailed { .. }) => true,
                EventBody::S4(S4Event::Challenge { text, .. }) => {
                    !text.starts_with("(no challenge")
                }
                EventBody::Collapse(WcEvent::CardSubmitted(c)) => {
                    c.source == protocol::collapse::CardSource::Agent
                }
                // The lexical grouping stands in for a failed embedder: its failure counted.
                EventBody::Reconcile(RcEvent::Embedded(e)) => e.model != "lexical-fallback",
                EventBody::Reconcile(RcEvent::Belief(b)) => b.by == protocol::reconcile::RECONCILER,
                // ES-3: a challenged agent's answer, a challenger's verdict.
                EventBody::Escalation(EsEvent::Message { round: 2, message }) => {
                    message.to.is_some()
                }
                _ => false,
            })
            .count()
}

pub fn decision(log: &Log) -> &EventBody {
    let last = &log.events.last().expect("events").body;
    assert!(
        matches!(last, EventBody::Debate(DebateEvent::Decision(_))),
        "{last:?}"
    );
    last
}
