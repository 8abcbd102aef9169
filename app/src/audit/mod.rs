//! UI-3 / SV-2: what a judge audits. Pure functions over an event log, shared by the audit page,
//! the static viewer (both in WASM), `consilium verify` and the Markdown export, so every place
//! that says "verified" or shows who changed their mind computes it with the same code.

pub mod credibility;
mod export;
pub mod markdown;
pub mod signature;
mod verdict;

pub use verdict::{check, Check};

pub use export::{
    check_signed, parse_export, parse_export_full, too_large, Export, MAX_EXPORT_BYTES,
    MAX_EXPORT_EVENTS,
};

use serde::{Deserialize, Serialize};

use crate::protocol::collapse::WcEvent;
use crate::protocol::event::DebateEvent;
use crate::protocol::reconcile::RcEvent;
pub use crate::protocol::reducer::{ChallengeCell, Journey, Revision};
use crate::protocol::round_robin::RrEvent;
use crate::protocol::s4::S4Event;
use crate::protocol::shared::CommonEvent;
use crate::protocol::types::display_name;
use crate::protocol::{AgentSpec, DebateView, Event, EventBody, Outcome};

/// One line of the timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub seq: u64,
    pub ts: String,
    pub kind: String,
    pub round: Option<u16>,
    pub summary: String,
    pub hash: String,
}

/// Everything the audit view and the Markdown report show: the same fold of the log as the live
/// view (SV-1), plus a line per event.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Audit {
    pub view: DebateView,
    pub timeline: Vec<Entry>,
}

impl Audit {
    pub fn from_events(events: &[Event]) -> Audit {
        let mut view = DebateView::default();
        let timeline = events
            .iter()
            .map(|e| {
                view.apply(e);
                Entry {
                    seq: e.seq,
                    ts: e.ts.to_string(),
                    kind: e.body.kind().to_owned(),
                    round: e.body.round(),
                    summary: summarise(&e.body),
                    hash: e.hash.to_string(),
                }
            })
            .collect();
        Audit { view, timeline }
    }
}

/// A one-line, human description of an event.
pub fn summarise(body: &EventBody) -> String {
    match body {
        EventBody::Debate(DebateEvent::DebateStarted {
            protocol,
            agents,
            seed,
            backend,
            ..
        }) => {
            let remote = backend.as_ref().map_or(String::new(), |b| {
                let model = b
                    .model
                    .as_deref()
                    .map_or(String::new(), |m| format!(" {m}"));
                format!(
                    ", answered by {}{model}, token budget {}",
                    b.kind, b.token_budget
                )
            });
            format!(
                "{} debate started with {} (seed {seed}){remote}",
                protocol.to_uppercase(),
                agents
                    .iter()
                    .map(AgentSpec::display_name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        EventBody::Common(CommonEvent::RoundStarted {
            round,
            name,
            expected,
        }) => format!("Round {round} · {name} · {expected} messages expected"),
        EventBody::Common(CommonEvent::Thinking { agent, .. }) => {
            format!("{} is thinking", display_name(agent))
        }
        EventBody::S4(S4Event::Position {
            agent, position, ..
        }) => format!(
            "{}: {} (confidence {}, risk {}) — {}",
            display_name(agent),
            position.decision,
            position.confidence,
            position.risk,
            position.reasoning
        ),
        EventBody::S4(S4Event::Challenge {
            from,
            to,
            text,
            argues_for,
            ..
        }) => format!(
            "{} challenges {}, arguing for {argues_for}: {text}",
            display_name(from),
            display_name(to)
        ),
        EventBody::S4(S4Event::Revision {
            agent,
            before,
            after,
            changed,
            ..
        }) => {
            let what = if *changed {
                format!("changed {} → {}", before.decision, after.decision)
            } else {
                format!("kept {}", after.decision)
            };
            format!("{} {what} — {}", display_name(agent), after.reasoning)
        }
        EventBody::S4(S4Event::Vote { vote, .. }) => format!(
            "{} votes {} (confidence {}, risk {})",
            display_name(&vote.agent),
            vote.decision,
            vote.confidence,
            vote.risk
        ),
        EventBody::Common(CommonEvent::AgentFailed {
            agent,
            error,
            substitute,
            ..
        }) => format!("{} failed: {error} — {substitute}", display_name(agent)),
        EventBody::Debate(DebateEvent::Decision(Outcome::S4(o))) => format!(
            "Decision {} ({}, {}% agreement) — {}",
            o.decision,
            o.consensus.label(),
            o.agreement_percentage,
            o.reasoning
        ),
        EventBody::Debate(DebateEvent::Decision(o)) => {
            format!("Decision {} — {}", o.label(), o.reasoning())
        }
        EventBody::Common(CommonEvent::Interrupted { reason, .. }) => {
            format!("Interrupted: {reason}")
        }
        other => summarise_protocol_event(other),
    }
}

/// One line for the round-robin, collapse, call, S4-8, resume and fork events.
#[allow(clippy::too_many_lines)] // one line per event kind: a flat match
fn summarise_protocol_event(body: &EventBody) -> String {
    use crate::protocol::collapse::GateVerdict;
    match body {
        EventBody::Common(CommonEvent::Resumed {
            after_seq, reason, ..
        }) => format!("Resumed after event {after_seq}: {reason}"),
        EventBody::Common(CommonEvent::ForkedFrom {
            debate,
            after_seq,
            changes,
            ..
        }) => format!(
            "Forked from debate {debate} after its event {after_seq}{}; the next {after_seq} events are its, copied",
            changes
                .seed
                .map(|s| format!(" (agents' seed {s})"))
                .unwrap_or_default()
        ),
        EventBody::RoundRobin(RrEvent::TriggerChecked(t)) => t.explanation.clone(),
        EventBody::RoundRobin(RrEvent::Turn {
            agent,
            turn,
            position,
            ..
        }) => format!(
            "{} turn {turn}: {} (confidence {}) — {}",
            display_name(agent),
            position.stance,
            position.confidence,
            position.reasoning
        ),
        EventBody::RoundRobin(RrEvent::ConsensusChecked(c)) => c.verdict.clone(),
        EventBody::Collapse(WcEvent::CardSubmitted(c)) => format!(
            "Card {} (revision {}): {} — S = {:.2}",
            c.position,
            c.revision,
            c.card
                .plan
                .first()
                .map_or("(no plan)", |p| p.action.as_str()),
            c.score.total
        ),
        EventBody::Collapse(WcEvent::CardVerified(v)) => format!(
            "{} {} {}: {}",
            display_name(&v.agent),
            if v.approve { "approves" } else { "rejects" },
            v.position,
            v.notes
        ),
        EventBody::Collapse(WcEvent::GatesChecked(g)) => format!(
            "Gates for {}: {}",
            g.position,
            match g.verdict {
                GateVerdict::Pass => "all passed".to_owned(),
                _ => g
                    .checks
                    .iter()
                    .find(|c| c.verdict != GateVerdict::Pass)
                    .map_or_else(String::new, |c| c.detail.clone()),
            }
        ),
        EventBody::Collapse(WcEvent::Converged(c)) => c.reason.clone(),
        EventBody::Collapse(WcEvent::Critiqued(c)) => format!(
            "{} scores {} {:.1}/10: {}",
            display_name(&c.agent),
            c.position,
            c.score,
            c.concerns.join("; ")
        ),
        EventBody::Collapse(WcEvent::ReflexionStarted(r)) => {
            format!("Reflexion {}: {}", r.attempt, r.triggers.join("; "))
        }
        EventBody::Collapse(WcEvent::PanelEvaluated(p)) => format!(
            "{} (weight {}, confidence {:.2}) recommends {}",
            display_name(&p.agent),
            p.weight,
            p.evaluation.confidence,
            p.evaluation.recommendation
        ),
        EventBody::Collapse(WcEvent::PanelScored(p)) => p.rule.clone(),
        EventBody::Collapse(WcEvent::HybridSynthesized(h)) => format!(
            "Hybrid of {} — S = {:.2}",
            h.from.join(" + "),
            h.score.total
        ),
        EventBody::Common(CommonEvent::AgentCall(c)) => format!(
            "{} called ({}): {} ms, {} attempt(s), {} + {} tokens{}{}",
            display_name(&c.agent),
            c.backend,
            c.latency_ms,
            c.attempts,
            c.prompt_tokens,
            c.completion_tokens,
            if c.estimated { " (estimated)" } else { "" },
            if c.ok { "" } else { ", no usable reply" }
        ),
        EventBody::Common(CommonEvent::InjectionDetected {
            source,
            pattern,
            excerpt,
            ..
        }) => format!(
            "Injection pattern ({}) in {}: “{excerpt}”",
            pattern.replace('_', " "),
            if source == "query" {
                "the query".to_owned()
            } else {
                display_name(source)
            }
        ),
        EventBody::S4(S4Event::ConfidenceClamped {
            agent,
            claimed,
            clamped_to,
            ..
        }) => format!(
            "{} claimed {claimed}% confidence on a complex query: clamped to {clamped_to}%",
            display_name(agent)
        ),
        EventBody::Common(CommonEvent::BudgetExhausted {
            round,
            used,
            budget,
            ..
        }) => format!("Token budget exhausted in round {round}: {used} of {budget} tokens used"),
        EventBody::Common(CommonEvent::DailyLimitReached { spent, limit }) => format!(
            "The server's daily limit for remote models was reached: {spent} of {limit} tokens \
             spent today"
        ),
        EventBody::Reconcile(RcEvent::Embedded(e)) => format!(
            "{} observations embedded by {} ({} dimensions)",
            e.vectors.len(),
            e.model,
            e.dim
        ),
        EventBody::Reconcile(RcEvent::Topic(t)) => format!(
            "Topic {} “{}”: {}{}",
            t.topic,
            t.label,
            t.observation_ids.join(", "),
            if t.potential_conflict {
                " — potential conflict"
            } else {
                ""
            }
        ),
        EventBody::Reconcile(RcEvent::Belief(b)) => match (&b.consolidated_belief, &b.clarification_question) {
            (Some(belief), _) if !b.needs_clarification => format!(
                "Belief on {} (confidence {:.2}): {belief}",
                b.topic, b.confidence
            ),
            (_, q) => format!(
                "{} needs clarification: {}",
                b.topic,
                q.as_deref().unwrap_or("(no question)")
            ),
        },
        other => other.kind().to_owned(),
    }
}

#[cfg(test)]
mod tests;
