//! After a log's end: what judges do with a debate that has decided — a review at the gate
//! (ES-7, which may send the pipeline back to its agents: the run then resumes from the log) and
//! a decision for a debate escalated to a human (ES-12) — each new decision with its vote
//! baseline (QL-1).

use std::collections::VecDeque;

use super::DebateRun;
use crate::baseline::BaselineFold;
use crate::debate::Debate;
use crate::escalation::{JudgeAction, RulingError};
use crate::event::{entries, DebateEvent, EventBody};
use crate::shared::CommonEvent;

impl DebateRun {
    /// A machine rebuilt from `log` that runs on (ES-7: a pipeline sent back to its agents at
    /// the gate): who answers, the budget (grants included) and the tokens already used are
    /// read from the log, and so are the first positions the decisions' vote baselines count.
    pub fn resume(debate: Debate, log: &[crate::event::Event]) -> Self {
        let mut run = DebateRun {
            debate,
            kinds: Vec::new(),
            backend: None,
            budget: None,
            used: 0,
            queue: VecDeque::new(),
            fold: BaselineFold::default(),
            pausable: false,
            paused: false,
            in_flight: 0,
            costed: 0,
            reask: VecDeque::new(),
            reasked: Vec::new(),
            clock_ms: 0,
        };
        let mut decided = false;
        for e in log {
            match &e.body {
                EventBody::Debate(DebateEvent::DebateStarted {
                    backend, agents, ..
                }) => {
                    run.backend = backend.as_deref().cloned();
                    run.budget = backend.as_ref().map(|b| b.token_budget);
                    run.kinds = agents
                        .iter()
                        .filter_map(|a| a.backend.clone().map(|k| (a.id.clone(), k)))
                        .collect();
                }
                EventBody::Common(CommonEvent::AgentCall(c)) => {
                    run.used = run
                        .used
                        .saturating_add(c.prompt_tokens.saturating_add(c.completion_tokens));
                    run.costed += 1;
                }
                EventBody::Common(CommonEvent::BudgetGranted { budget, .. }) => {
                    run.budget = Some(*budget)
                }
                EventBody::Debate(DebateEvent::Decision(_)) => decided = true,
                _ => {}
            }
            if !decided {
                run.fold.see(&e.body);
            }
        }
        run
    }
}

/// What a judge's review at the gate did.
#[derive(Debug)]
pub enum GateReview {
    /// A confirmation or an override: what to append after the log's end, the new decision
    /// last (with its vote baseline, QL-1).
    Appended(Vec<EventBody>),
    /// ES-7, a re-debate: the challenge is back with its agents and the pipeline runs on. The
    /// run's first events (the ruling) come out of [`DebateRun::poll_event`]; drive it to its
    /// new decision like any run.
    Reopened(Box<DebateRun>),
}

/// ES-7, L5: a judge's review at the gate of a pipeline that has decided. The machine is
/// rebuilt from `log` at wall time `wall_ms` (Unix milliseconds) and takes the action.
/// Nothing is written when the action is refused.
pub fn gate_review(
    log: &[crate::event::Event],
    wall_ms: f64,
    challenge: &str,
    judge: &str,
    action: JudgeAction,
) -> Result<GateReview, RulingError> {
    use crate::shared::Machine;
    use crate::shared::Supervision;
    let mut machine = crate::escalation::EsDebate::reopen(&entries(log), wall_ms)
        .map_err(RulingError::Conflict)?;
    machine.judge(challenge, judge, action)?;
    if !machine.is_finished() {
        let debate = Debate::Escalation(Box::new(machine));
        return Ok(GateReview::Reopened(Box::new(DebateRun::resume(
            debate, log,
        ))));
    }
    let mut written = Vec::new();
    while let Some(emitted) = machine.poll_event() {
        written.push(emitted.into());
    }
    Ok(GateReview::Appended(with_baselines(log, written)))
}

/// ES-12: judge `judge` decides a WC debate escalated to a human by choosing position `chosen`
/// (see [`crate::collapse::decide`]); returns what to append, the new decision with its vote
/// baseline against it.
pub fn human_decision(
    log: &[crate::event::Event],
    judge: &str,
    chosen: &str,
    rationale: &str,
) -> Result<Vec<EventBody>, RulingError> {
    let written = crate::collapse::decide(&entries(log), judge, chosen, rationale)?
        .into_iter()
        .map(EventBody::from)
        .collect();
    Ok(with_baselines(log, written))
}

/// QL-1 for decisions appended to an ended log: each gets the vote baseline the first positions
/// (the events before the log's first decision) give against it.
fn with_baselines(log: &[crate::event::Event], mut written: Vec<EventBody>) -> Vec<EventBody> {
    let mut fold = BaselineFold::default();
    for e in log
        .iter()
        .take_while(|e| !matches!(e.body, EventBody::Debate(DebateEvent::Decision(_))))
    {
        fold.see(&e.body);
    }
    for body in &mut written {
        if let EventBody::Debate(DebateEvent::Decision(outcome)) = body {
            let baseline = fold.baseline(outcome);
            outcome.set_vote_baseline(baseline);
        }
    }
    written
}
