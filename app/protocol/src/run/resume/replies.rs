//! RS-1: a logged event read back as what produced it: which agent's answer it belongs to,
//! whether it is where a request's reply landed, and the reply itself.

use crate::collapse::{CardSource, WcEvent, WcReply, WcTask};
use crate::escalation::{EsEvent, EsReply, EsTask, MessageKind};
use crate::event::{Event, EventBody};
use crate::reconcile::{RcEvent, RcReply, RcTask, SCALE};
use crate::request::{AgentReply, AgentRequest, Task};
use crate::round_robin::{RrEvent, RrReply, RrTask};
use crate::s4::{S4Event, S4Reply, S4Task};
use crate::shared::CommonEvent;

/// The agent and round an answer's first logged event is about.
pub(super) fn about(body: &EventBody) -> Option<(&str, u16)> {
    match body {
        EventBody::Common(CommonEvent::AgentCall(c)) => Some((&c.agent, c.round)),
        EventBody::Common(CommonEvent::InjectionDetected { source, round, .. }) if *round > 0 => {
            Some((source, *round))
        }
        EventBody::S4(S4Event::ConfidenceClamped { agent, round, .. })
        | EventBody::Common(CommonEvent::AgentFailed { agent, round, .. })
        | EventBody::S4(S4Event::Position { agent, round, .. })
        | EventBody::S4(S4Event::Revision { agent, round, .. })
        | EventBody::RoundRobin(RrEvent::Turn { agent, round, .. }) => Some((agent, *round)),
        EventBody::S4(S4Event::Challenge { from, round, .. }) => Some((from, *round)),
        EventBody::Collapse(WcEvent::CardSubmitted(c)) if c.source == CardSource::Agent => {
            Some((&c.position, c.round))
        }
        EventBody::Collapse(WcEvent::CardVerified(v)) => Some((&v.agent, v.round)),
        EventBody::Collapse(WcEvent::Critiqued(c)) => Some((&c.agent, c.round)),
        EventBody::Collapse(WcEvent::PanelEvaluated(p)) => Some((&p.agent, p.round)),
        EventBody::Escalation(EsEvent::Message { round, message }) => Some((&message.from, *round)),
        EventBody::Reconcile(RcEvent::Embedded(_)) => Some((crate::reconcile::EMBEDDER, 1)),
        EventBody::Reconcile(RcEvent::Belief(b)) if b.by == crate::reconcile::RECONCILER => {
            Some((crate::reconcile::RECONCILER, 2))
        }
        _ => None,
    }
}

/// Whether the first of `events` is where the reply to `req` landed: what it produced, or its
/// failure.
pub(super) fn lands(req: &AgentRequest, events: &[Event]) -> bool {
    let Some(e) = events.first() else {
        return false;
    };
    match (&req.task, &e.body) {
        (_, EventBody::Common(CommonEvent::AgentFailed { agent, round, .. })) => {
            *agent == req.agent && *round == req.round && failure_fits(req, events)
        }
        (Task::S4(S4Task::Analyse { .. }), EventBody::S4(S4Event::Position { agent, .. }))
        | (Task::S4(S4Task::Revise { .. }), EventBody::S4(S4Event::Revision { agent, .. }))
        | (
            Task::RoundRobin(RrTask::Turn { .. }),
            EventBody::RoundRobin(RrEvent::Turn { agent, .. }),
        ) => *agent == req.agent,
        (
            Task::S4(S4Task::Challenge { target, .. }),
            EventBody::S4(S4Event::Challenge { from, to, .. }),
        ) => *from == req.agent && to == target,
        (
            Task::Collapse(WcTask::WriteCard { .. }) | Task::Collapse(WcTask::ReviseCard { .. }),
            EventBody::Collapse(WcEvent::CardSubmitted(c)),
        ) => c.source == CardSource::Agent && c.position == req.agent,
        (
            Task::Collapse(WcTask::VerifyCard { card, .. }),
            EventBody::Collapse(WcEvent::CardVerified(v)),
        ) => v.position == card.agent,
        (
            Task::Collapse(WcTask::Critique { card, .. }),
            EventBody::Collapse(WcEvent::Critiqued(c)),
        ) => c.position == card.agent,
        (
            Task::Collapse(WcTask::Evaluate { .. }),
            EventBody::Collapse(WcEvent::PanelEvaluated(p)),
        ) => p.agent == req.agent,
        (
            Task::Escalation(EsTask::Estimate { .. }),
            EventBody::Escalation(EsEvent::Message { message, round }),
        ) => *round == req.round && message.from == req.agent && message.content.value.is_some(),
        (
            Task::Escalation(EsTask::AnswerChallenge { challenge, .. })
            | Task::Escalation(EsTask::WeighEvidence { challenge, .. }),
            EventBody::Escalation(EsEvent::Message { message, .. }),
        ) => {
            message.from == req.agent
                && message
                    .content
                    .finding
                    .strip_prefix(challenge.id.as_str())
                    .is_some_and(|rest| rest.starts_with(':'))
        }
        (Task::Reconcile(RcTask::Embed { .. }), EventBody::Reconcile(RcEvent::Embedded(_))) => true,
        (
            Task::Reconcile(RcTask::Reconcile { topic, .. }),
            EventBody::Reconcile(RcEvent::Belief(b)),
        ) => b.topic == *topic,
        _ => false,
    }
}

/// S4-8: a failure names its agent and round only; where one agent has several requests out at
/// once (S4's challenges, one per target), the event its substitute wrote names the target.
fn failure_fits(req: &AgentRequest, events: &[Event]) -> bool {
    match &req.task {
        Task::S4(S4Task::Challenge { target, .. }) => events.iter().skip(1).take(4).any(|e| {
            matches!(&e.body, EventBody::S4(S4Event::Challenge { from, to, .. }) if *from == req.agent && to == target)
        }),
        _ => true,
    }
}

/// The reply that produced `body`, read back from it. `clamped`: the confidence the agent
/// claimed before S4-8 clamped it.
#[allow(clippy::too_many_lines)] // one arm per kind of reply of every protocol
pub(super) fn reply_of(
    req: &AgentRequest,
    events: &[Event],
    clamped: Option<u8>,
) -> Option<AgentReply> {
    let body = &events.first()?.body;
    Some(match (&req.task, body) {
        (
            Task::Escalation(EsTask::Estimate { .. }),
            EventBody::Escalation(EsEvent::Message { round, .. }),
        ) => {
            // ES-1: one finding per value, logged together.
            let estimates = events
                .iter()
                .map_while(|e| match &e.body {
                    EventBody::Escalation(EsEvent::Message { round: r, message })
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
            AgentReply::Escalation(EsReply::Estimates(estimates))
        }
        (
            Task::Escalation(EsTask::AnswerChallenge { own_value, .. }),
            EventBody::Escalation(EsEvent::Message { message, .. }),
        ) => {
            let acknowledge = message.kind != MessageKind::Alert;
            AgentReply::Escalation(EsReply::ChallengeAnswer(
                crate::escalation::ChallengeAnswer {
                    acknowledge,
                    value: message.content.value.unwrap_or(*own_value),
                    evidence: message.content.evidence.clone(),
                },
            ))
        }
        (
            Task::Escalation(EsTask::WeighEvidence { challenge, .. }),
            EventBody::Escalation(EsEvent::Message { message, .. }),
        ) => {
            let accept = message.kind == MessageKind::Confirmation;
            let said = if accept { "accepted" } else { "rejected" };
            let prefix = format!("{}: the evidence is {said}: ", challenge.id);
            AgentReply::Escalation(EsReply::Verdict(crate::escalation::EvidenceVerdict {
                accept,
                reason: message.content.finding.strip_prefix(&prefix)?.to_owned(),
            }))
        }
        (Task::S4(S4Task::Analyse { .. }), EventBody::S4(S4Event::Position { position, .. }))
        | (
            Task::S4(S4Task::Revise { .. }),
            EventBody::S4(S4Event::Revision {
                after: position, ..
            }),
        ) => {
            let mut p = position.clone();
            if let Some(claimed) = clamped {
                p.confidence = claimed;
            }
            AgentReply::S4(S4Reply::Position(p))
        }
        (
            Task::S4(S4Task::Challenge { .. }),
            EventBody::S4(S4Event::Challenge {
                text, argues_for, ..
            }),
        ) => AgentReply::S4(S4Reply::Challenge {
            text: text.clone(),
            argues_for: *argues_for,
        }),
        (
            Task::RoundRobin(RrTask::Turn { .. }),
            EventBody::RoundRobin(RrEvent::Turn { position, .. }),
        ) => AgentReply::RoundRobin(RrReply::Stance(position.clone())),
        (_, EventBody::Collapse(WcEvent::CardSubmitted(c))) => {
            AgentReply::Collapse(WcReply::Card(c.card.clone()))
        }
        (_, EventBody::Collapse(WcEvent::CardVerified(v))) => {
            AgentReply::Collapse(WcReply::Verification(crate::collapse::Verification {
                approve: v.approve,
                notes: v.notes.clone(),
            }))
        }
        (_, EventBody::Collapse(WcEvent::Critiqued(c))) => {
            AgentReply::Collapse(WcReply::Critique(crate::collapse::Critique {
                score: c.score,
                concerns: c.concerns.clone(),
            }))
        }
        (_, EventBody::Collapse(WcEvent::PanelEvaluated(p))) => {
            AgentReply::Collapse(WcReply::Evaluation(p.evaluation.clone()))
        }
        (_, EventBody::Reconcile(RcEvent::Embedded(e))) => {
            AgentReply::Reconcile(RcReply::Embeddings {
                model: e.model.clone(),
                vectors: e
                    .vectors
                    .iter()
                    .map(|v| v.iter().map(|x| f32::from(*x) / SCALE as f32).collect())
                    .collect(),
            })
        }
        (_, EventBody::Reconcile(RcEvent::Belief(b))) => {
            AgentReply::Reconcile(RcReply::Reconciliation(crate::reconcile::Reconciliation {
                conflicts: b.conflicts,
                consolidated_belief: b.consolidated_belief.clone(),
                confidence: b.confidence,
                needs_clarification: b.needs_clarification,
                clarification_question: b.clarification_question.clone(),
                reasoning: b.reasoning.clone(),
            }))
        }
        _ => return None,
    })
}

/// ES-5: the desk's answer that wrote `body`, when it names a challenge waiting in the queue:
/// a judge's place, or the queue full (the ladder falls back, or a supporting dispute waits for
/// the gate).
pub(super) fn admission(
    queued: &[(String, crate::escalation::Priority)],
    body: &EventBody,
) -> Option<(String, crate::escalation::Admission)> {
    use crate::escalation::Admission;
    let waiting = |id: &str| queued.iter().any(|(c, _)| c == id);
    match body {
        EventBody::Escalation(EsEvent::JudgeAssigned(j)) if waiting(&j.challenge) => {
            Some((j.challenge.clone(), Admission::Assigned(j.judge.clone())))
        }
        EventBody::Escalation(EsEvent::Escalated(e)) if waiting(&e.challenge) => {
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
pub(super) fn pipeline_time(body: &EventBody) -> Option<u64> {
    match body {
        EventBody::Escalation(EsEvent::Message { message, .. }) => Some(message.at),
        EventBody::Escalation(EsEvent::ChallengeRaised { at, .. }) => Some(*at),
        EventBody::Escalation(EsEvent::Escalated(e)) => Some(e.at),
        EventBody::Escalation(EsEvent::JudgeAssigned(j)) => Some(j.at),
        EventBody::Escalation(EsEvent::JudgeRuling(r)) => Some(r.at),
        _ => None,
    }
}
