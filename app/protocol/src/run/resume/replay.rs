//! RS-1: the walk through a log that drives the rebuilt run: each logged event is matched
//! against what the run writes, or explained by what the run is given (a request handed out, an
//! answer, a ruling, a budget stop, a timer).

use std::collections::VecDeque;

use super::super::{Answered, DebateRun, ForkChanges, Usage};
use super::replies::{about, admission, lands, pipeline_time, reply_of};
use crate::escalation::EsEvent;
use crate::event::{Event, EventBody};
use crate::request::AgentRequest;
use crate::s4::S4Event;
use crate::shared::CommonEvent;

/// The walk through the log.
pub(super) struct Replay<'a> {
    pub(super) log: &'a [Event],
    /// FK-1: what each fork changes, to take once this many events are accounted for.
    pub(super) forks: VecDeque<(usize, ForkChanges)>,
    /// The next logged event to account for.
    pub(super) at: usize,
    /// What the rebuilt run wrote and the log has not matched yet.
    pub(super) written: VecDeque<EventBody>,
    /// Requests handed out and not answered in the log, in the order asked.
    pub(super) asked: Vec<AgentRequest>,
    pub(super) resumes: u32,
    pub(super) clock_ms: u64,
}

impl Replay<'_> {
    pub(super) fn drive(&mut self, run: &mut DebateRun) -> Result<(), String> {
        loop {
            while let Some(body) = run.poll_event() {
                self.written.push_back(body);
            }
            self.match_written()?;
            if self.written.is_empty() && self.forks.front().is_some_and(|(at, _)| *at <= self.at) {
                if let Some((_, changes)) = self.forks.pop_front() {
                    self.take(run, &changes)?;
                }
                continue;
            }
            let Some(e) = self.log.get(self.at) else {
                // A fork made where the machine had more of its step to write: the fork's
                // changes hold from its first event on, after that rest.
                while let Some((_, changes)) = self.forks.pop_front() {
                    self.take(run, &changes)?;
                }
                return Ok(());
            };
            self.give(run, e)?;
        }
    }

    /// FK-1: what a fork changes, taken where it forked: the note (asked before it and not
    /// answered: asked again with it), the budget, the agents' backends, the agents removed (what
    /// they were asked and had not answered is not asked again), or why the debate cannot take it.
    fn take(&mut self, run: &mut DebateRun, changes: &ForkChanges) -> Result<(), String> {
        for r in &changes.remove {
            run.remove_agent(r)?;
            self.asked.retain(|req| !req.concerns(r));
        }
        if let Some(note) = &changes.note {
            run.add_note(note);
            for req in &mut self.asked {
                req.task.add_note(note);
            }
        }
        if let Some(budget) = changes.token_budget {
            run.set_budget(budget);
        }
        for a in &changes.agents {
            if let Some(kind) = &a.backend {
                run.set_kind(&a.role, kind);
            }
        }
        Ok(())
    }

    /// Every event the run wrote must be the next logged one.
    fn match_written(&mut self) -> Result<(), String> {
        while let Some(body) = self.written.front() {
            let Some(e) = self.log.get(self.at) else {
                // The rest of the step the log stopped in: written after `resumed`.
                return Ok(());
            };
            if let EventBody::Common(CommonEvent::Resumed { .. }) = e.body {
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
            EventBody::Common(CommonEvent::Resumed { .. }) => {
                self.resumes += 1;
                self.at += 1;
            }
            EventBody::Common(CommonEvent::Thinking { agent, round }) => {
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
            EventBody::Common(CommonEvent::BudgetPaused { .. }) => {
                run.set_pausable(true);
                if run.poll_request().is_some() {
                    return Err(refused("the rebuilt budget is not spent".into()));
                }
            }
            EventBody::Common(CommonEvent::BudgetExhausted { .. }) => {
                if let Some(req) = run.poll_request() {
                    return Err(refused(format!(
                        "the rebuilt budget is not spent (it asks {})",
                        req.agent
                    )));
                }
            }
            EventBody::Common(CommonEvent::DailyLimitReached { spent, limit }) => {
                run.stop_for_daily_limit(*spent, *limit);
            }
            EventBody::Common(CommonEvent::BudgetGranted { judge, tokens, .. }) => run
                .budget_action(judge, crate::run::BudgetAction::Grant { tokens: *tokens })
                .map_err(|e| refused(ruling(e)))?,
            EventBody::Common(CommonEvent::BudgetClosed { judge }) => run
                .budget_action(judge, crate::run::BudgetAction::Close)
                .map_err(|e| refused(ruling(e)))?,
            EventBody::Escalation(EsEvent::JudgeRuling(r)) => run
                .judge(&r.challenge, &r.judge, r.action.clone())
                .map_err(|e| refused(ruling(e)))?,
            EventBody::Common(CommonEvent::AgentCall(c)) if c.cancelled => {
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
            EventBody::Common(CommonEvent::AgentCall(c)) => Some(Usage {
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
            EventBody::Common(CommonEvent::AgentFailed { error, .. }) => Err(error.clone()),
            body => {
                let clamped = self.log[self.at..j].iter().find_map(|x| match &x.body {
                    EventBody::S4(S4Event::ConfidenceClamped {
                        agent: a,
                        round: r,
                        claimed,
                        ..
                    }) if a == agent && *r == round => Some(*claimed),
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
                EventBody::Common(CommonEvent::Thinking { .. })
                    | EventBody::Common(CommonEvent::Resumed { .. })
            ) {
                return None;
            }
        }
        None
    }
}

fn ruling(e: crate::escalation::RulingError) -> String {
    match e {
        crate::escalation::RulingError::Invalid(why)
        | crate::escalation::RulingError::Conflict(why) => why,
    }
}
