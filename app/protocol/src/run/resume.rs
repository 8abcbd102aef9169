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

use super::{Answered, DebateRun, Start, Usage};
use crate::collapse::{CardSource, WcDebate};
use crate::debate::Debate;
use crate::escalation::EsDebate;
use crate::escalation::MessageKind;
use crate::event::{BackendInfo, Config, Event, EventBody};
use crate::reconcile::{RcDebate, SCALE};
use crate::request::{AgentReply, AgentRequest, Task};
use crate::round_robin::RrDebate;
use crate::s4::S4Debate;
use crate::types::{AgentSpec, Role};

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
        .take_while(|e| matches!(e.body, EventBody::ForkedFrom { .. }))
        .count();
    let notes = fork_notes(&log[..opened]);
    let log = &log[opened..];
    let debate = machine_of(log)?;
    let mut run = DebateRun::start(debate, start_of(log));
    let mut replay = Replay {
        log,
        notes,
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
            EventBody::BudgetPaused { .. } => return true,
            EventBody::BudgetGranted { .. } | EventBody::BudgetClosed { .. } => return false,
            _ => {}
        }
    }
    false
}

/// The machine `debate_started` describes, freshly built.
fn machine_of(log: &[Event]) -> Result<Debate, String> {
    let Some(EventBody::DebateStarted {
        protocol,
        query,
        seed,
        agents,
        config,
        ..
    }) = log.first().map(|e| &e.body)
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
                    EventBody::CardSubmitted(c) if c.source == CardSource::User => {
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
    if let Some(EventBody::DebateStarted {
        backend,
        agents,
        context,
        ..
    }) = log.first().map(|e| &e.body)
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
        EventBody::Credibility(s) => Some(s.clone()),
        _ => None,
    });
    start
}

/// FK-1: the notes a fork's `forked_from` events give the agents, each with how many of the
/// debate's events (those after the `forked_from` events) come before it: the nearest parent's
/// copy ends last.
fn fork_notes(forks: &[Event]) -> VecDeque<(usize, String)> {
    let m = forks.len();
    let mut notes: Vec<(usize, String)> = forks
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.body {
            EventBody::ForkedFrom {
                after_seq, changes, ..
            } => {
                // Fork i's parent log opens with the m - 1 - i `forked_from` events after it.
                let at = (*after_seq as usize).checked_sub(m - 1 - i)?;
                Some((at, changes.note.clone()?))
            }
            _ => None,
        })
        .collect();
    notes.sort_by_key(|(at, _)| *at);
    notes.into()
}

/// The walk through the log.
struct Replay<'a> {
    log: &'a [Event],
    /// FK-1: notes to give the agents once this many events are accounted for.
    notes: VecDeque<(usize, String)>,
    /// The next logged event to account for.
    at: usize,
    /// What the rebuilt run wrote and the log has not matched yet.
    written: VecDeque<EventBody>,
    /// Requests handed out and not answered in the log, in the order asked.
    asked: Vec<AgentRequest>,
    resumes: u32,
    clock_ms: u64,
}

impl Replay<'_> {
    fn drive(&mut self, run: &mut DebateRun) -> Result<(), String> {
        loop {
            while let Some(body) = run.poll_event() {
                self.written.push_back(body);
            }
            self.match_written()?;
            if self.written.is_empty() && self.notes.front().is_some_and(|(at, _)| *at == self.at) {
                if let Some((_, note)) = self.notes.pop_front() {
                    run.add_note(&note);
                    // Asked before the note and not answered: asked again with it.
                    for req in &mut self.asked {
                        req.task.add_note(&note);
                    }
                }
                continue;
            }
            let Some(e) = self.log.get(self.at) else {
                return Ok(());
            };
            self.give(run, e)?;
        }
    }

    /// Every event the run wrote must be the next logged one.
    fn match_written(&mut self) -> Result<(), String> {
        while let Some(body) = self.written.front() {
            let Some(e) = self.log.get(self.at) else {
                // The rest of the step the log stopped in: written after `resumed`.
                return Ok(());
            };
            if let EventBody::Resumed { .. } = e.body {
                self.resumes += 1;
                self.at += 1;
                continue;
            }
            if *body != e.body {
                return Err(format!(
                    "event {} ('{}') is not what the rebuilt machine writes there ('{}')",
                    e.seq,
                    e.body.kind(),
                    body.kind()
                ));
            }
            self.written.pop_front();
            self.at += 1;
        }
        Ok(())
    }

    /// The logged event `e` follows from something given to the run: a request handed out, an
    /// answer, a judge's act, a budget stop. Gives it.
    fn give(&mut self, run: &mut DebateRun, e: &Event) -> Result<(), String> {
        let refused = |what: String| format!("event {} ('{}'): {what}", e.seq, e.body.kind());
        self.tick(run, &e.body);
        // A timer that fired by then (ES-10) wrote it.
        if let Some(body) = run.poll_event() {
            self.written.push_back(body);
            return Ok(());
        }
        // ES-5: a challenge waiting for a judge's place got the desk's answer.
        if let Some((challenge, admission)) = admission(&run.queued(), &e.body) {
            run.admit(&challenge, admission);
            return Ok(());
        }
        match &e.body {
            EventBody::Resumed { .. } => {
                self.resumes += 1;
                self.at += 1;
            }
            EventBody::Thinking { agent, round } => {
                let req = run
                    .poll_request()
                    .ok_or_else(|| refused("the rebuilt machine has nothing to ask".into()))?;
                if req.agent != *agent || req.round != *round {
                    return Err(refused(format!(
                        "the rebuilt machine asks {} in round {} instead",
                        req.agent, req.round
                    )));
                }
                self.asked.push(req);
            }
            EventBody::BudgetPaused { .. } => {
                run.set_pausable(true);
                if run.poll_request().is_some() {
                    return Err(refused("the rebuilt budget is not spent".into()));
                }
            }
            EventBody::BudgetExhausted { .. } => {
                if let Some(req) = run.poll_request() {
                    return Err(refused(format!(
                        "the rebuilt budget is not spent (it asks {})",
                        req.agent
                    )));
                }
            }
            EventBody::DailyLimitReached { spent, limit } => {
                run.stop_for_daily_limit(*spent, *limit);
            }
            EventBody::BudgetGranted { judge, tokens, .. } => run
                .budget_action(judge, super::BudgetAction::Grant { tokens: *tokens })
                .map_err(|e| refused(ruling(e)))?,
            EventBody::BudgetClosed { judge } => run
                .budget_action(judge, super::BudgetAction::Close)
                .map_err(|e| refused(ruling(e)))?,
            EventBody::JudgeRuling(r) => run
                .judge(&r.challenge, &r.judge, r.action.clone())
                .map_err(|e| refused(ruling(e)))?,
            EventBody::AgentCall(c) if c.cancelled => {
                // LM-4: cancelled at a stop; the machine was never told, and it is asked again.
                if !self
                    .asked
                    .iter()
                    .any(|r| r.agent == c.agent && r.round == c.round)
                {
                    return Err(refused(format!("{} was not being asked", c.agent)));
                }
                run.cancelled(&c.agent, c.round, c.latency_ms);
            }
            _ => self.answer(run, e)?,
        }
        Ok(())
    }

    /// ES-10: a logged event that carries its pipeline time brings the rebuilt clock there
    /// first, so the timers that fired before it fire again.
    fn tick(&mut self, run: &mut DebateRun, body: &EventBody) {
        let Some(at) = pipeline_time(body) else {
            return;
        };
        let Some(scale) = run.time_scale() else {
            return;
        };
        let wall = crate::escalation::wall_ms_at(at, scale);
        if wall > self.clock_ms {
            self.clock_ms = wall;
            run.advance(wall);
        }
    }

    /// The logged event `e` is the first of an answer: its cost, its scans, or what it produced.
    /// Finds the request it answers and the event it landed as, and feeds the reply back.
    fn answer(&mut self, run: &mut DebateRun, e: &Event) -> Result<(), String> {
        let (agent, round) = about(&e.body).ok_or_else(|| {
            format!(
                "event {} ('{}') follows from nothing the rebuilt machine was given",
                e.seq,
                e.body.kind()
            )
        })?;
        let (k, j) = self.landing(agent, round).ok_or_else(|| {
            format!(
                "event {} ('{}'): no logged reply of {agent} in round {round} answers a request \
                 the rebuilt machine asked",
                e.seq,
                e.body.kind()
            )
        })?;
        let req = self.asked.remove(k);
        let landed = &self.log[j];
        let usage = match &e.body {
            EventBody::AgentCall(c) => Some(Usage {
                attempts: c.attempts,
                latency_ms: c.latency_ms,
                prompt_tokens: c.prompt_tokens,
                completion_tokens: c.completion_tokens,
                estimated: c.estimated,
                retry_after_ms: c.retry_after_ms,
                streamed: c.streamed,
            }),
            _ => None,
        };
        let reply = match &landed.body {
            EventBody::AgentFailed { error, .. } => Err(error.clone()),
            body => {
                let clamped = self.log[self.at..j].iter().find_map(|x| match &x.body {
                    EventBody::ConfidenceClamped {
                        agent: a,
                        round: r,
                        claimed,
                        ..
                    } if a == agent && *r == round => Some(*claimed),
                    _ => None,
                });
                Ok(reply_of(&req, &self.log[j..], clamped).ok_or_else(|| {
                    format!("event {} ('{}') holds no reply", landed.seq, body.kind())
                })?)
            }
        };
        run.handle(
            &req,
            Answered {
                reply,
                usage,
                now: landed.ts.clone(),
            },
        );
        Ok(())
    }

    /// The first logged event from here that is the reply of `agent` in `round` to a request
    /// asked and not answered: (the request's place in `asked`, the event's index).
    fn landing(&self, agent: &str, round: u16) -> Option<(usize, usize)> {
        for (j, e) in self.log.iter().enumerate().skip(self.at) {
            for (k, req) in self.asked.iter().enumerate() {
                if req.agent == agent && req.round == round && lands(req, &self.log[j..]) {
                    return Some((k, j));
                }
            }
            // A reply's events are logged together: past another's content, stop looking.
            if matches!(
                e.body,
                EventBody::Thinking { .. } | EventBody::Resumed { .. }
            ) {
                return None;
            }
        }
        None
    }
}

/// The agent and round an answer's first logged event is about.
fn about(body: &EventBody) -> Option<(&str, u16)> {
    match body {
        EventBody::AgentCall(c) => Some((&c.agent, c.round)),
        EventBody::InjectionDetected { source, round, .. } if *round > 0 => Some((source, *round)),
        EventBody::ConfidenceClamped { agent, round, .. }
        | EventBody::AgentFailed { agent, round, .. }
        | EventBody::Position { agent, round, .. }
        | EventBody::Revision { agent, round, .. }
        | EventBody::Turn { agent, round, .. } => Some((agent, *round)),
        EventBody::Challenge { from, round, .. } => Some((from, *round)),
        EventBody::CardSubmitted(c) if c.source == CardSource::Agent => {
            Some((&c.position, c.round))
        }
        EventBody::CardVerified(v) => Some((&v.agent, v.round)),
        EventBody::Critiqued(c) => Some((&c.agent, c.round)),
        EventBody::PanelEvaluated(p) => Some((&p.agent, p.round)),
        EventBody::Message { round, message } => Some((&message.from, *round)),
        EventBody::Embedded(_) => Some((crate::reconcile::EMBEDDER, 1)),
        EventBody::Belief(b) if b.by == crate::reconcile::RECONCILER => {
            Some((crate::reconcile::RECONCILER, 2))
        }
        _ => None,
    }
}

/// Whether the first of `events` is where the reply to `req` landed: what it produced, or its
/// failure.
fn lands(req: &AgentRequest, events: &[Event]) -> bool {
    let Some(e) = events.first() else {
        return false;
    };
    match (&req.task, &e.body) {
        (_, EventBody::AgentFailed { agent, round, .. }) => {
            *agent == req.agent && *round == req.round && failure_fits(req, events)
        }
        (Task::Analyse { .. }, EventBody::Position { agent, .. })
        | (Task::Revise { .. }, EventBody::Revision { agent, .. })
        | (Task::Turn { .. }, EventBody::Turn { agent, .. }) => *agent == req.agent,
        (Task::Challenge { target, .. }, EventBody::Challenge { from, to, .. }) => {
            *from == req.agent && to == target
        }
        (Task::WriteCard { .. } | Task::ReviseCard { .. }, EventBody::CardSubmitted(c)) => {
            c.source == CardSource::Agent && c.position == req.agent
        }
        (Task::VerifyCard { card, .. }, EventBody::CardVerified(v)) => v.position == card.agent,
        (Task::Critique { card, .. }, EventBody::Critiqued(c)) => c.position == card.agent,
        (Task::Evaluate { .. }, EventBody::PanelEvaluated(p)) => p.agent == req.agent,
        (Task::Estimate { .. }, EventBody::Message { message, round }) => {
            *round == req.round && message.from == req.agent && message.content.value.is_some()
        }
        (
            Task::AnswerChallenge { challenge, .. } | Task::WeighEvidence { challenge, .. },
            EventBody::Message { message, .. },
        ) => {
            message.from == req.agent
                && message
                    .content
                    .finding
                    .strip_prefix(challenge.id.as_str())
                    .is_some_and(|rest| rest.starts_with(':'))
        }
        (Task::Embed { .. }, EventBody::Embedded(_)) => true,
        (Task::Reconcile { topic, .. }, EventBody::Belief(b)) => b.topic == *topic,
        _ => false,
    }
}

/// S4-8: a failure names its agent and round only; where one agent has several requests out at
/// once (S4's challenges, one per target), the event its substitute wrote names the target.
fn failure_fits(req: &AgentRequest, events: &[Event]) -> bool {
    match &req.task {
        Task::Challenge { target, .. } => events.iter().skip(1).take(4).any(|e| {
            matches!(&e.body, EventBody::Challenge { from, to, .. } if *from == req.agent && to == target)
        }),
        _ => true,
    }
}

/// The reply that produced `body`, read back from it. `clamped`: the confidence the agent
/// claimed before S4-8 clamped it.
fn reply_of(req: &AgentRequest, events: &[Event], clamped: Option<u8>) -> Option<AgentReply> {
    let body = &events.first()?.body;
    Some(match (&req.task, body) {
        (Task::Estimate { .. }, EventBody::Message { round, .. }) => {
            // ES-1: one finding per value, logged together.
            let estimates = events
                .iter()
                .map_while(|e| match &e.body {
                    EventBody::Message { round: r, message }
                        if r == round && message.from == req.agent =>
                    {
                        Some(message)
                    }
                    _ => None,
                })
                .filter_map(|m| {
                    Some(crate::escalation::Estimate {
                        assumption: m.content.assumption.clone()?,
                        value: m.content.value?,
                        confidence: m.content.confidence,
                        evidence: m.content.evidence.clone(),
                    })
                })
                .collect();
            AgentReply::Estimates(estimates)
        }
        (Task::AnswerChallenge { own_value, .. }, EventBody::Message { message, .. }) => {
            let acknowledge = message.kind != MessageKind::Alert;
            AgentReply::ChallengeAnswer(crate::escalation::ChallengeAnswer {
                acknowledge,
                value: message.content.value.unwrap_or(*own_value),
                evidence: message.content.evidence.clone(),
            })
        }
        (Task::WeighEvidence { challenge, .. }, EventBody::Message { message, .. }) => {
            let accept = message.kind == MessageKind::Confirmation;
            let said = if accept { "accepted" } else { "rejected" };
            let prefix = format!("{}: the evidence is {said}: ", challenge.id);
            AgentReply::Verdict(crate::escalation::EvidenceVerdict {
                accept,
                reason: message.content.finding.strip_prefix(&prefix)?.to_owned(),
            })
        }
        (Task::Analyse { .. }, EventBody::Position { position, .. })
        | (
            Task::Revise { .. },
            EventBody::Revision {
                after: position, ..
            },
        ) => {
            let mut p = position.clone();
            if let Some(claimed) = clamped {
                p.confidence = claimed;
            }
            AgentReply::Position(p)
        }
        (
            Task::Challenge { .. },
            EventBody::Challenge {
                text, argues_for, ..
            },
        ) => AgentReply::Challenge {
            text: text.clone(),
            argues_for: *argues_for,
        },
        (Task::Turn { .. }, EventBody::Turn { position, .. }) => {
            AgentReply::Stance(position.clone())
        }
        (_, EventBody::CardSubmitted(c)) => AgentReply::Card(c.card.clone()),
        (_, EventBody::CardVerified(v)) => {
            AgentReply::Verification(crate::collapse::Verification {
                approve: v.approve,
                notes: v.notes.clone(),
            })
        }
        (_, EventBody::Critiqued(c)) => AgentReply::Critique(crate::collapse::Critique {
            score: c.score,
            concerns: c.concerns.clone(),
        }),
        (_, EventBody::PanelEvaluated(p)) => AgentReply::Evaluation(p.evaluation.clone()),
        (_, EventBody::Embedded(e)) => AgentReply::Embeddings {
            model: e.model.clone(),
            vectors: e
                .vectors
                .iter()
                .map(|v| v.iter().map(|x| f32::from(*x) / SCALE as f32).collect())
                .collect(),
        },
        (_, EventBody::Belief(b)) => AgentReply::Reconciliation(crate::reconcile::RcReply {
            conflicts: b.conflicts,
            consolidated_belief: b.consolidated_belief.clone(),
            confidence: b.confidence,
            needs_clarification: b.needs_clarification,
            clarification_question: b.clarification_question.clone(),
            reasoning: b.reasoning.clone(),
        }),
        _ => return None,
    })
}

/// ES-5: the desk's answer that wrote `body`, when it names a challenge waiting in the queue:
/// a judge's place, or the queue full (the ladder falls back, or a supporting dispute waits for
/// the gate).
fn admission(
    queued: &[(String, crate::escalation::Priority)],
    body: &EventBody,
) -> Option<(String, crate::escalation::Admission)> {
    use crate::escalation::Admission;
    let waiting = |id: &str| queued.iter().any(|(c, _)| c == id);
    match body {
        EventBody::JudgeAssigned(j) if waiting(&j.challenge) => {
            Some((j.challenge.clone(), Admission::Assigned(j.judge.clone())))
        }
        EventBody::Escalated(e) if waiting(&e.challenge) => {
            let deferred = e.reason.contains("deferred to the next gate");
            let answer = if deferred {
                Admission::Deferred
            } else {
                Admission::Overflow
            };
            Some((e.challenge.clone(), answer))
        }
        _ => None,
    }
}

/// ES-10: the pipeline second an event happened at, for the events that record it.
fn pipeline_time(body: &EventBody) -> Option<u64> {
    match body {
        EventBody::Message { message, .. } => Some(message.at),
        EventBody::ChallengeRaised { at, .. } => Some(*at),
        EventBody::Escalated(e) => Some(e.at),
        EventBody::JudgeAssigned(j) => Some(j.at),
        EventBody::JudgeRuling(r) => Some(r.at),
        _ => None,
    }
}

fn ruling(e: crate::escalation::RulingError) -> String {
    match e {
        crate::escalation::RulingError::Invalid(why)
        | crate::escalation::RulingError::Conflict(why) => why,
    }
}
