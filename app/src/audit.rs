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

use crate::protocol::s4::Vote;
use crate::protocol::types::display_name;
use crate::protocol::{AgentSpec, Decision, Event, EventBody, Outcome, Position};

/// One line of the timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub seq: u64,
    pub ts: String,
    pub kind: String,
    pub round: Option<u8>,
    pub summary: String,
    pub hash: String,
}

/// One agent's path through the debate: what it said first, what it did with the challenges,
/// how it voted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Journey {
    pub agent: AgentSpec,
    pub initial: Option<Position>,
    pub revision: Option<Revision>,
    pub vote: Option<Vote>,
    /// Failures of this agent (S4-8), with what was substituted.
    pub failures: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    pub before: Position,
    pub after: Position,
    pub changed: bool,
}

impl Journey {
    /// What changed between the round-1 position and the revision, in words.
    pub fn change_summary(&self) -> String {
        match &self.revision {
            None => "no revision logged".into(),
            Some(r) if !r.changed => format!(
                "kept {} (confidence {} → {}, risk {} → {})",
                r.after.decision,
                r.before.confidence,
                r.after.confidence,
                r.before.risk,
                r.after.risk
            ),
            Some(r) => format!(
                "changed {} → {} (confidence {} → {}, risk {} → {})",
                r.before.decision,
                r.after.decision,
                r.before.confidence,
                r.after.confidence,
                r.before.risk,
                r.after.risk
            ),
        }
    }
}

/// One cross-challenge (S4-3): a cell of the challenge matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeCell {
    pub seq: u64,
    pub from: String,
    pub to: String,
    pub argues_for: Decision,
    pub text: String,
}

/// Everything the audit view and the Markdown report show, folded from the log.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Audit {
    pub protocol: String,
    pub query: String,
    pub seed: u64,
    pub agents: Vec<AgentSpec>,
    pub timeline: Vec<Entry>,
    pub journeys: Vec<Journey>,
    pub challenges: Vec<ChallengeCell>,
    pub outcome: Option<Outcome>,
    pub interrupted: Option<String>,
}

impl Audit {
    pub fn from_events(events: &[Event]) -> Audit {
        let mut a = Audit::default();
        for e in events {
            a.timeline.push(Entry {
                seq: e.seq,
                ts: e.ts.clone(),
                kind: e.body.kind().to_owned(),
                round: e.body.round(),
                summary: summarise(&e.body),
                hash: e.hash.clone(),
            });
            match &e.body {
                EventBody::DebateStarted {
                    protocol,
                    query,
                    seed,
                    agents,
                    ..
                } => {
                    a.protocol.clone_from(protocol);
                    a.query.clone_from(query);
                    a.seed = *seed;
                    a.agents.clone_from(agents);
                    a.journeys = agents
                        .iter()
                        .map(|agent| Journey {
                            agent: agent.clone(),
                            initial: None,
                            revision: None,
                            vote: None,
                            failures: Vec::new(),
                        })
                        .collect();
                }
                EventBody::Position {
                    agent, position, ..
                } => {
                    if let Some(j) = a.journey(agent) {
                        j.initial = Some(position.clone());
                    }
                }
                EventBody::Revision {
                    agent,
                    before,
                    after,
                    changed,
                    ..
                } => {
                    if let Some(j) = a.journey(agent) {
                        j.revision = Some(Revision {
                            before: before.clone(),
                            after: after.clone(),
                            changed: *changed,
                        });
                    }
                }
                EventBody::Vote { vote, .. } => {
                    if let Some(j) = a.journey(&vote.agent) {
                        j.vote = Some(vote.clone());
                    }
                }
                EventBody::AgentFailed {
                    agent,
                    round,
                    error,
                    substitute,
                } => {
                    if let Some(j) = a.journey(agent) {
                        j.failures
                            .push(format!("round {round}: {error} — {substitute}"));
                    }
                }
                EventBody::Challenge {
                    from,
                    to,
                    text,
                    argues_for,
                    ..
                } => a.challenges.push(ChallengeCell {
                    seq: e.seq,
                    from: from.clone(),
                    to: to.clone(),
                    argues_for: *argues_for,
                    text: text.clone(),
                }),
                EventBody::Decision(outcome) => a.outcome = Some(outcome.clone()),
                EventBody::Interrupted { reason, .. } => a.interrupted = Some(reason.clone()),
                _ => {}
            }
        }
        a
    }

    fn journey(&mut self, agent: &str) -> Option<&mut Journey> {
        self.journeys.iter_mut().find(|j| j.agent.id == agent)
    }

    /// The challenge `from` aimed at `to`, if any.
    pub fn challenge(&self, from: &str, to: &str) -> Option<&ChallengeCell> {
        self.challenges
            .iter()
            .find(|c| c.from == from && c.to == to)
    }
}

/// A one-line, human description of an event.
pub fn summarise(body: &EventBody) -> String {
    match body {
        EventBody::DebateStarted {
            protocol,
            agents,
            seed,
            backend,
            ..
        } => {
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
        EventBody::RoundStarted {
            round,
            name,
            expected,
        } => format!("Round {round} · {name} · {expected} messages expected"),
        EventBody::Thinking { agent, .. } => format!("{} is thinking", display_name(agent)),
        EventBody::Position {
            agent, position, ..
        } => format!(
            "{}: {} (confidence {}, risk {}) — {}",
            display_name(agent),
            position.decision,
            position.confidence,
            position.risk,
            position.reasoning
        ),
        EventBody::Challenge {
            from,
            to,
            text,
            argues_for,
            ..
        } => format!(
            "{} challenges {}, arguing for {argues_for}: {text}",
            display_name(from),
            display_name(to)
        ),
        EventBody::Revision {
            agent,
            before,
            after,
            changed,
            ..
        } => {
            let what = if *changed {
                format!("changed {} → {}", before.decision, after.decision)
            } else {
                format!("kept {}", after.decision)
            };
            format!("{} {what} — {}", display_name(agent), after.reasoning)
        }
        EventBody::Vote { vote, .. } => format!(
            "{} votes {} (confidence {}, risk {})",
            display_name(&vote.agent),
            vote.decision,
            vote.confidence,
            vote.risk
        ),
        EventBody::AgentFailed {
            agent,
            error,
            substitute,
            ..
        } => format!("{} failed: {error} — {substitute}", display_name(agent)),
        EventBody::Decision(Outcome::S4(o)) => format!(
            "Decision {} ({}, {}% agreement) — {}",
            o.decision,
            o.consensus.label(),
            o.agreement_percentage,
            o.reasoning
        ),
        EventBody::Decision(o) => format!("Decision {} — {}", o.label(), o.reasoning()),
        EventBody::Interrupted { reason, .. } => format!("Interrupted: {reason}"),
        other => summarise_more(other),
    }
}

/// One line for the RR and WC events.
fn summarise_more(body: &EventBody) -> String {
    use crate::protocol::collapse::GateVerdict;
    match body {
        EventBody::TriggerChecked(t) => t.explanation.clone(),
        EventBody::Turn {
            agent,
            turn,
            position,
            ..
        } => format!(
            "{} turn {turn}: {} (confidence {}) — {}",
            display_name(agent),
            position.stance,
            position.confidence,
            position.reasoning
        ),
        EventBody::ConsensusChecked(c) => c.verdict.clone(),
        EventBody::CardSubmitted(c) => format!(
            "Card {} (revision {}): {} — S = {:.2}",
            c.position,
            c.revision,
            c.card
                .plan
                .first()
                .map_or("(no plan)", |p| p.action.as_str()),
            c.score.total
        ),
        EventBody::CardVerified(v) => format!(
            "{} {} {}: {}",
            display_name(&v.agent),
            if v.approve { "approves" } else { "rejects" },
            v.position,
            v.notes
        ),
        EventBody::GatesChecked(g) => format!(
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
        EventBody::Converged(c) => c.reason.clone(),
        EventBody::Critiqued(c) => format!(
            "{} scores {} {:.1}/10: {}",
            display_name(&c.agent),
            c.position,
            c.score,
            c.concerns.join("; ")
        ),
        EventBody::ReflexionStarted(r) => {
            format!("Reflexion {}: {}", r.attempt, r.triggers.join("; "))
        }
        EventBody::PanelEvaluated(p) => format!(
            "{} (weight {}, confidence {:.2}) recommends {}",
            display_name(&p.agent),
            p.weight,
            p.evaluation.confidence,
            p.evaluation.recommendation
        ),
        EventBody::PanelScored(p) => p.rule.clone(),
        EventBody::HybridSynthesized(h) => format!(
            "Hybrid of {} — S = {:.2}",
            h.from.join(" + "),
            h.score.total
        ),
        EventBody::AgentCall(c) => format!(
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
        EventBody::InjectionDetected {
            source,
            pattern,
            excerpt,
            ..
        } => format!(
            "Injection pattern ({}) in {}: “{excerpt}”",
            pattern.replace('_', " "),
            if source == "query" {
                "the query".to_owned()
            } else {
                display_name(source)
            }
        ),
        EventBody::ConfidenceClamped {
            agent,
            claimed,
            clamped_to,
            ..
        } => format!(
            "{} claimed {claimed}% confidence on a complex query: clamped to {clamped_to}%",
            display_name(agent)
        ),
        EventBody::BudgetExhausted {
            round,
            used,
            budget,
            ..
        } => format!("Token budget exhausted in round {round}: {used} of {budget} tokens used"),
        other => other.kind().to_owned(),
    }
}

#[cfg(test)]
mod tests;
