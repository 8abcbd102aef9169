//! RS-1: a logged event read back as what produced it: which agent's answer it belongs to,
//! whether it is where a request's reply landed, and the reply itself.

use crate::collapse::CardSource;
use crate::escalation::MessageKind;
use crate::event::{Event, EventBody};
use crate::reconcile::SCALE;
use crate::request::{AgentReply, AgentRequest, Task};

/// The agent and round an answer's first logged event is about.
pub(super) fn about(body: &EventBody) -> Option<(&str, u16)> {
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
pub(super) fn lands(req: &AgentRequest, events: &[Event]) -> bool {
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
pub(super) fn reply_of(
    req: &AgentRequest,
    events: &[Event],
    clamped: Option<u8>,
) -> Option<AgentReply> {
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
pub(super) fn admission(
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
pub(super) fn pipeline_time(body: &EventBody) -> Option<u64> {
    match body {
        EventBody::Message { message, .. } => Some(message.at),
        EventBody::ChallengeRaised { at, .. } => Some(*at),
        EventBody::Escalated(e) => Some(e.at),
        EventBody::JudgeAssigned(j) => Some(j.at),
        EventBody::JudgeRuling(r) => Some(r.at),
        _ => None,
    }
}
