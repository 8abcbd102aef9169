//! RS-1: a running debate folded back from its log into its machine, so it can go on after the
//! server that ran it stopped.
//!
//! The machine is built again from `debate_started` (query, seed, agents, parameters) and driven
//! through the log: every logged reply is fed back as the reply it was (read back from the event
//! it produced), every logged ruling, grant and budget stop is given again, and every event the
//! rebuilt machine writes must be the logged one, byte for byte — so what is rebuilt is what was
//! logged, and a log the machine cannot reproduce (written by a version that logged less, or
//! tampered with) is refused with the first event that differs. Nothing is asked of any agent:
//! requests whose replies were logged are answered from the log; those asked and never answered
//! are handed out again first (RS-1), and say so in their `agent_call`.

use std::collections::VecDeque;

use super::{DebateRun, ForkChanges, Start};
use crate::collapse::{CardSource, WcDebate, WcEvent};
use crate::debate::Debate;
use crate::escalation::EsDebate;
use crate::event::{BackendInfo, Config, DebateEvent, Event, EventBody};
use crate::reconcile::RcDebate;
use crate::round_robin::RrDebate;
use crate::s4::S4Debate;
use crate::shared::CommonEvent;
use crate::types::{AgentSpec, Role};

mod replay;
mod replies;

use replay::Replay;

/// A debate rebuilt from its log, ready to drive on.
#[derive(Debug)]
pub struct Rebuilt {
    /// The run, in the state its last logged event left it; it writes nothing until the runner's
    /// `resumed` event, and asks the unanswered requests again first.
    pub run: DebateRun,
    /// How many times the log was resumed before (its `resumed` events).
    pub resumes: u32,
    /// Requests asked before the stop whose replies were never logged.
    pub reasked: usize,
    /// ES-10: the debate's clock (wall milliseconds since it began, pacing left out) as the log
    /// left it; the runner adds the time the debate was down.
    pub clock_ms: u64,
    /// What the machine writes after the log's last event before it asks anything: the rest of
    /// the step the log stopped in. Logged right after `resumed`.
    pub pending: Vec<EventBody>,
}

/// RS-1: rebuilds the run of a debate from its log (which must not have ended), or says why it
/// cannot be.
pub fn rebuild(log: &[Event]) -> Result<Rebuilt, String> {
    // A reply is read back from what the log says it was: the chain vouches for that.
    crate::chain::verify_chain(log).map_err(|e| format!("its chain does not verify: {e}"))?;
    rebuild_sealed(log)
}

/// [`rebuild`] of a log the caller has just sealed itself (FK-1: a fork's first events), whose
/// chain needs no second check.
pub fn rebuild_sealed(log: &[Event]) -> Result<Rebuilt, String> {
    let last = log.last().ok_or("the log is empty")?;
    if last.body.is_terminal() {
        return Err("the debate has already ended".into());
    }
    // FK-1: a fork's log opens with where it came from; its debate starts after that.
    let opened = log
        .iter()
        .take_while(|e| matches!(e.body, EventBody::Common(CommonEvent::ForkedFrom { .. })))
        .count();
    let forks = fork_points(&log[..opened]);
    let log = &log[opened..];
    let debate = machine_of(log)?;
    let mut run = DebateRun::start(debate, start_of(log));
    let mut replay = Replay {
        log,
        forks,
        at: 0,
        written: VecDeque::new(),
        asked: Vec::new(),
        resumes: 0,
        clock_ms: 0,
    };
    replay.drive(&mut run)?;
    let reasked = replay.asked.len();
    let pending = replay.written.into();
    run.in_flight = 0;
    run.reasked = replay.asked.iter().map(|r| r.id).collect();
    run.reask = replay.asked.into();
    run.paused = run.paused || logged_pause(log);
    run.clock_ms = replay.clock_ms;
    Ok(Rebuilt {
        run,
        resumes: replay.resumes,
        reasked,
        clock_ms: replay.clock_ms,
        pending,
    })
}

/// Whether the log ends waiting for a judge on a spent budget (ES-11).
fn logged_pause(log: &[Event]) -> bool {
    for e in log.iter().rev() {
        match e.body {
            EventBody::Common(CommonEvent::BudgetPaused { .. }) => return true,
            EventBody::Common(CommonEvent::BudgetGranted { .. })
            | EventBody::Common(CommonEvent::BudgetClosed { .. }) => return false,
            _ => {}
        }
    }
    false
}

/// The machine `debate_started` describes, freshly built.
fn machine_of(log: &[Event]) -> Result<Debate, String> {
    let Some(EventBody::Debate(DebateEvent::DebateStarted {
        protocol,
        query,
        seed,
        agents,
        config,
        ..
    })) = log.first().map(|e| &e.body)
    else {
        return Err("the log does not start with debate_started".into());
    };
    // The agents as the request named them: who answers them is the run's to record.
    let agents: Vec<AgentSpec> = agents
        .iter()
        .map(|a| AgentSpec::new(a.id.clone(), a.role))
        .collect();
    let seed = *seed;
    let built = match (protocol.as_str(), config.as_deref()) {
        ("s4", None) => Debate::S4(S4Debate::new(query, agents, seed).map_err(|e| e.to_string())?),
        ("round_robin", Some(Config::RoundRobin(p))) => Debate::RoundRobin(
            RrDebate::new(query, agents, p.clone(), seed).map_err(|e| e.to_string())?,
        ),
        ("collapse", Some(Config::Collapse(p))) => {
            let authors = agents
                .into_iter()
                .filter(|a| a.role == Role::Author)
                .collect();
            let cards = log
                .iter()
                .filter_map(|e| match &e.body {
                    EventBody::Collapse(WcEvent::CardSubmitted(c))
                        if c.source == CardSource::User =>
                    {
                        Some(c.card.clone())
                    }
                    _ => None,
                })
                .collect();
            Debate::Collapse(Box::new(
                WcDebate::new(query, authors, cards, p.clone(), seed).map_err(|e| e.to_string())?,
            ))
        }
        ("escalation", Some(Config::Escalation(p))) => Debate::Escalation(Box::new(
            EsDebate::new(query, agents, *p, seed).map_err(|e| e.to_string())?,
        )),
        ("reconcile", Some(Config::Reconcile(c))) => Debate::Reconcile(Box::new(
            RcDebate::new(query, c.clone(), seed).map_err(|e| e.to_string())?,
        )),
        (other, _) => {
            return Err(format!(
                "debate_started names protocol '{other}' without the parameters it needs"
            ))
        }
    };
    Ok(built)
}

/// What the runner knew when the debate started, as `debate_started` and `credibility` record it.
fn start_of(log: &[Event]) -> Start {
    let mut start = Start::default();
    if let Some(EventBody::Debate(DebateEvent::DebateStarted {
        backend,
        agents,
        context,
        ..
    })) = log.first().map(|e| &e.body)
    {
        start.backend = backend.as_deref().cloned();
        start.budget = start.backend.as_ref().map(|b| b.token_budget);
        start.context = context.as_deref().cloned();
        let budget = start.budget.unwrap_or(0);
        start.per_agent = agents
            .iter()
            .filter_map(|a| {
                let kind = a.backend.clone()?;
                Some((
                    a.id.clone(),
                    BackendInfo {
                        kind,
                        model: a.model.clone(),
                        token_budget: budget,
                        service: None,
                    },
                ))
            })
            .collect();
    }
    start.credibility = log.iter().take(3).find_map(|e| match &e.body {
        EventBody::Common(CommonEvent::Credibility(s)) => Some(s.clone()),
        _ => None,
    });
    start
}

/// FK-1: what each of a log's `forked_from` events changes, with how many of the debate's
/// events (those after the `forked_from` events) come before it: the nearest parent's copy ends
/// last.
fn fork_points(forks: &[Event]) -> VecDeque<(usize, ForkChanges)> {
    let m = forks.len();
    let mut points: Vec<(usize, ForkChanges)> = forks
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.body {
            EventBody::Common(CommonEvent::ForkedFrom {
                after_seq, changes, ..
            }) => {
                // Fork i's parent log opens with the m - 1 - i `forked_from` events after it.
                let at = (*after_seq as usize).checked_sub(m - 1 - i)?;
                Some((at, changes.clone()))
            }
            _ => None,
        })
        .collect();
    points.sort_by_key(|(at, _)| *at);
    points.into()
}
