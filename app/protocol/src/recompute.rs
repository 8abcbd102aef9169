//! SV-2: the decision recomputed from the logged inputs with each protocol's own rules, and the
//! budget stop checked against the logged calls (AG-2). What `verify`, the audit view and the
//! offline viewer run; the hash chain itself is in `chain`.

use serde::{Deserialize, Serialize};

use super::baseline::BaselineFold;
use super::event::{Event, EventBody};
use super::outcome::Outcome;
use crate::event::{entries, DebateEvent};
use crate::shared::CommonEvent;

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecomputeError {
    #[error("the log has no decision event (the debate did not finish)")]
    NoDecision,
    #[error(
        "the logged decision {logged} differs from the one recomputed from the votes: {recomputed}"
    )]
    Mismatch { logged: String, recomputed: String },
    /// RR and WC: a logged step differs from what the protocol's rules give for the logged inputs.
    #[error("{0}")]
    Step(String),
    /// AG-2: a `budget_exhausted` claim the logged calls do not bear out, at event `seq`.
    #[error("token budget: {reason}")]
    Budget { seq: u64, reason: String },
}

/// SV-2: recomputes the decision from the logged inputs with the protocol's own code (S4 votes,
/// RR turns, WC cards/verifications/panel) and checks it equals the logged decision event.
pub fn recompute_decision(events: &[Event]) -> Result<Outcome, RecomputeError> {
    let logged = events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Debate(DebateEvent::Decision(o)) => Some(o),
            _ => None,
        })
        .ok_or(RecomputeError::NoDecision)?;
    check_budget(events).map_err(|(seq, reason)| RecomputeError::Budget { seq, reason })?;
    // QL-1: the protocols recompute the decision itself; the vote baseline beside it is checked
    // on its own (logs written before it carry none).
    let logged_baseline = logged.vote_baseline().cloned();
    let stripped: Vec<Event>;
    let inputs = if logged_baseline.is_some() {
        stripped = events
            .iter()
            .map(|e| {
                let mut e = e.clone();
                if let EventBody::Debate(DebateEvent::Decision(o)) = &mut e.body {
                    o.set_vote_baseline(None);
                }
                e
            })
            .collect();
        &stripped[..]
    } else {
        events
    };
    let mut outcome = match logged {
        Outcome::S4(_) => super::s4::recompute(&entries(inputs))
            .map(Outcome::S4)
            .map_err(|e| match e {
                super::s4::Mismatch::NoDecision => RecomputeError::NoDecision,
                super::s4::Mismatch::Decision { logged, recomputed } => {
                    RecomputeError::Mismatch { logged, recomputed }
                }
            }),
        Outcome::RoundRobin(_) => super::round_robin::recompute(&entries(inputs))
            .map(Outcome::RoundRobin)
            .map_err(RecomputeError::Step),
        Outcome::Collapse(_) => super::collapse::recompute(&entries(inputs))
            .map(Outcome::Collapse)
            .map_err(RecomputeError::Step),
        Outcome::Escalation(_) => super::escalation::recompute(&entries(inputs))
            .map(|o| Outcome::Escalation(Box::new(o)))
            .map_err(RecomputeError::Step),
        Outcome::Reconcile(_) => super::reconcile::recompute(&entries(inputs))
            .map(Outcome::Reconcile)
            .map_err(RecomputeError::Step),
    }?;
    if let Some(logged_baseline) = logged_baseline {
        let mut fold = BaselineFold::default();
        for e in events
            .iter()
            .take_while(|e| !matches!(e.body, EventBody::Debate(DebateEvent::Decision(_))))
        {
            fold.see(&e.body);
        }
        let recomputed = fold.baseline(&outcome);
        if recomputed.as_ref() != Some(&logged_baseline) {
            return Err(RecomputeError::Step(format!(
                "the logged vote baseline ({}) differs from the one the first positions give ({})",
                logged_baseline.sentence(),
                recomputed.map_or_else(|| "none".to_owned(), |b| b.sentence())
            )));
        }
        outcome.set_vote_baseline(recomputed);
    }
    Ok(outcome)
}

/// A budget stop that the logged calls bear out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetStop {
    pub used: u64,
    pub budget: u64,
    /// The `agent_call` events whose tokens add up to `used`.
    pub calls: usize,
}

/// AG-2: a budget stop must be what the runner would have done with the logged calls. Its `used`
/// is the sum of every `agent_call`'s tokens before it, at least its `budget`, which is the one
/// `debate_started` declared (when it declared one); and no call follows it. Returns the stop, if
/// any, or the event that is wrong and why.
#[allow(clippy::too_many_lines)] // every budget claim checked in log order
pub fn check_budget(events: &[Event]) -> Result<Option<BudgetStop>, (u64, String)> {
    // The budget in force: the declared one plus every judge's grant (ES-11).
    let mut declared = None;
    let mut spent: u64 = 0;
    let mut calls = 0;
    let mut stop: Option<(u64, BudgetStop)> = None;
    // ES-11: the event that paused the debate for a judge, while it waits.
    let mut paused: Option<u64> = None;
    // SV-13: the server's daily limit stopped the debate at this event.
    let mut daily: Option<u64> = None;
    for e in events {
        let fail = |reason: String| Err((e.seq, reason));
        match &e.body {
            EventBody::Debate(DebateEvent::DebateStarted { backend, .. }) => {
                declared = backend.as_ref().map(|b| b.token_budget);
            }
            EventBody::Common(CommonEvent::AgentCall(c)) => {
                if let Some(at) = daily {
                    return fail(format!(
                        "event {} is a call made after the daily limit stopped the debate at \
                         event {at}",
                        e.seq
                    ));
                }
                if let Some((at, _)) = stop {
                    return fail(format!(
                        "event {} is a call made after the budget ran out at event {at}",
                        e.seq
                    ));
                }
                if let Some(at) = paused {
                    return fail(format!(
                        "event {} is a call made while the debate waited for a judge's budget \
                         approval (event {at})",
                        e.seq
                    ));
                }
                calls += 1;
                spent = spent
                    .saturating_add(c.prompt_tokens)
                    .saturating_add(c.completion_tokens);
            }
            EventBody::Common(CommonEvent::BudgetPaused { used, budget }) => {
                if *used != spent {
                    return fail(format!(
                        "event {} pauses at {used} tokens, the logged calls add up to {spent}",
                        e.seq
                    ));
                }
                if declared != Some(*budget) || used < budget || paused.is_some() {
                    return fail(format!(
                        "event {} pauses the debate at {used} tokens of {budget}, which is not a \
                         spent budget in force ({})",
                        e.seq,
                        declared.map_or_else(|| "none declared".to_owned(), |d| d.to_string())
                    ));
                }
                paused = Some(e.seq);
            }
            EventBody::Common(CommonEvent::BudgetGranted { tokens, budget, .. }) => {
                let before = declared.unwrap_or(0);
                if paused.is_none() || before.checked_add(*tokens) != Some(*budget) {
                    return fail(format!(
                        "event {} grants {tokens} tokens to make {budget}, but the debate was \
                         not paused on a budget of {before}",
                        e.seq
                    ));
                }
                declared = Some(*budget);
                paused = None;
            }
            EventBody::Common(CommonEvent::BudgetClosed { .. }) if paused.take().is_none() => {
                return fail(format!(
                    "event {} closes a debate that was not paused on its budget",
                    e.seq
                ));
            }
            EventBody::Common(CommonEvent::DailyLimitReached { .. }) => {
                if daily.is_some() || stop.is_some() {
                    return fail(format!("event {} is a second budget stop", e.seq));
                }
                daily = Some(e.seq);
            }
            EventBody::Common(CommonEvent::BudgetExhausted { used, budget, .. }) => {
                if *used != spent {
                    return fail(format!(
                        "event {} says {used} tokens were used, the logged calls add up to {spent}",
                        e.seq
                    ));
                }
                if let Some(at) = daily {
                    // SV-13: the server's daily limit, not the debate's budget, ended it: at
                    // what it had used, which the calls above add up to.
                    if budget != used {
                        return fail(format!(
                            "event {} follows the daily limit (event {at}) with a budget of \
                             {budget}, not the {used} tokens used",
                            e.seq
                        ));
                    }
                    stop = Some((
                        e.seq,
                        BudgetStop {
                            used: *used,
                            budget: *budget,
                            calls,
                        },
                    ));
                    continue;
                }
                if used < budget {
                    return fail(format!(
                        "event {} stops the debate at {used} tokens, under its budget of {budget}",
                        e.seq
                    ));
                }
                if let Some(d) = declared.filter(|d| d != budget) {
                    return fail(format!(
                        "event {} names a budget of {budget}, the debate declared {d}",
                        e.seq
                    ));
                }
                if stop.is_some() {
                    return fail(format!("event {} is a second budget stop", e.seq));
                }
                stop = Some((
                    e.seq,
                    BudgetStop {
                        used: *used,
                        budget: *budget,
                        calls,
                    },
                ));
            }
            _ => {}
        }
    }
    Ok(stop.map(|(_, s)| s))
}
