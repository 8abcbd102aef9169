//! UI-3 / SV-2: what a judge audits. Pure functions over an event log, shared by the audit page,
//! the static viewer (both in WASM), `consilium verify` and the Markdown export, so every place
//! that says "verified" or shows who changed their mind computes it with the same code.

pub mod markdown;
pub mod signature;

use serde::{Deserialize, Serialize};

use crate::protocol::chain::{
    check_budget, recompute_decision, verify_chain, BudgetStop, ChainError, RecomputeError,
};
use crate::protocol::s4::Vote;
use crate::protocol::types::display_name;
use crate::protocol::{AgentSpec, Decision, Event, EventBody, Outcome, Position};

/// The result of re-checking a log: the chain, then the decision recomputed from the votes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Check {
    /// Chain intact and the logged decision equals the recomputed one.
    Verified {
        events: usize,
        /// The logged inputs the decision was recomputed from: S4 votes, RR turns, WC cards,
        /// verifications and panel evaluations.
        votes: usize,
        outcome: Outcome,
        /// AG-2: the token budget stop, checked against the logged calls.
        #[serde(default)]
        budget: Option<BudgetStop>,
    },
    /// Chain intact, but the debate has no decision to recompute (running or interrupted).
    Unfinished { events: usize },
    /// The first problem found, e.g. "tampered at event 17: …", and the event it is at.
    Failed { reason: String, seq: Option<u64> },
}

impl Check {
    pub fn is_verified(&self) -> bool {
        matches!(self, Check::Verified { .. })
    }

    /// One line a person reads: "verified: 31 events, decision ACT recomputed".
    pub fn headline(&self) -> String {
        match self {
            Check::Verified {
                events, outcome, ..
            } => format!(
                "verified: {events} events, decision {} recomputed",
                outcome.label()
            ),
            Check::Unfinished { events } => format!(
                "chain verified ({events} events), but the log has no decision to recompute (the debate did not finish)"
            ),
            Check::Failed { reason, .. } => reason.clone(),
        }
    }

    /// The event a failed check points at, to highlight it.
    pub fn tampered_at(&self) -> Option<u64> {
        match self {
            Check::Failed { seq, .. } => *seq,
            _ => None,
        }
    }

    /// Everything that was checked, one line each; the headline last.
    pub fn details(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Check::Verified { events: n, .. } | Check::Unfinished { events: n } = self {
            lines.push(format!(
                "chain: {n} events, sequence 1..{n} gap-free, every prev_hash links to its \
                 predecessor, every hash matches its content"
            ));
        }
        if let Check::Verified { votes, outcome, .. } = self {
            lines.push(match outcome {
                Outcome::S4(o) => format!(
                    "decision: {} recomputed from {votes} logged votes ({}, {}% agreement, max risk {}, veto {}) — matches the log",
                    o.decision,
                    o.consensus.label(),
                    o.agreement_percentage,
                    o.max_risk,
                    o.veto_applied
                ),
                Outcome::RoundRobin(o) => format!(
                    "decision: {} recomputed from {votes} logged turns and every round's consensus check ({}% agreement, {} rounds, {} turns) — matches the log",
                    o.stance, o.agreement_percentage, o.total_rounds, o.total_turns
                ),
                Outcome::Collapse(o) => format!(
                    "decision: {} recomputed from {votes} logged cards, verifications and panel evaluations (scores, gates, ranking and panel consensus) — matches the log",
                    o.outcome.as_str()
                ),
            });
        }
        if let Check::Verified {
            budget: Some(b), ..
        } = self
        {
            lines.push(format!(
                "budget: stopped at {} of {} tokens — the sum of the {} logged model calls before \
                 the stop, and the budget the debate declared",
                b.used, b.budget, b.calls
            ));
        }
        lines.push(self.headline());
        lines
    }
}

/// SV-2: verifies the hash chain and recomputes the decision with the protocol's own code.
pub fn check(events: &[Event]) -> Check {
    let n = match verify_chain(events) {
        Ok(n) => n,
        Err(e) => {
            let seq = match &e {
                ChainError::Tampered { seq, .. } => Some(*seq),
                ChainError::Empty => None,
            };
            return Check::Failed {
                reason: e.to_string(),
                seq,
            };
        }
    };
    if !events
        .iter()
        .any(|e| matches!(e.body, EventBody::Decision(_)))
    {
        return Check::Unfinished { events: n };
    }
    match recompute_decision(events) {
        Ok(outcome) => Check::Verified {
            events: n,
            votes: events
                .iter()
                .filter(|e| {
                    matches!(
                        e.body,
                        EventBody::Vote { .. }
                            | EventBody::Turn { .. }
                            | EventBody::CardSubmitted(_)
                            | EventBody::CardVerified(_)
                            | EventBody::PanelEvaluated(_)
                    )
                })
                .count(),
            outcome,
            // recompute_decision has checked it; this only reports it.
            budget: check_budget(events).ok().flatten(),
        },
        // A budget stop the calls do not bear out: that event is what is wrong.
        Err(RecomputeError::Budget { seq, reason }) => Check::Failed {
            reason: format!("token budget: {reason}"),
            seq: Some(seq),
        },
        // The votes do not produce the logged decision: the decision event is what is wrong.
        Err(e) => Check::Failed {
            reason: e.to_string(),
            seq: events
                .iter()
                .find(|e| matches!(e.body, EventBody::Decision(_)))
                .map(|e| e.seq),
        },
    }
}

/// The largest export a judge's tools read: a real debate's log is tens to hundreds of KiB.
pub const MAX_EXPORT_BYTES: usize = 32 * 1024 * 1024;
/// The most events an export may hold (a real debate has well under a thousand).
pub const MAX_EXPORT_EVENTS: usize = 100_000;

/// Reads an export (`GET /api/debates/{id}/export.json`, or the `GET /api/debates/{id}` body), or a
/// bare array of events. An event that does not parse is reported by its sequence number. Hostile
/// files get a clear error in bounded time and memory: over [`MAX_EXPORT_BYTES`] or
/// [`MAX_EXPORT_EVENTS`], nested deeper than serde_json's limit (128), numbers out of range.
pub fn parse_export(text: &str) -> Result<Vec<Event>, String> {
    parse_export_full(text).map(|e| e.events)
}

/// An export as read: the debate's id and the server's signature when it carries them.
#[derive(Clone, Debug, PartialEq)]
pub struct Export {
    pub id: Option<String>,
    pub events: Vec<Event>,
    pub signature: Option<signature::LogSignature>,
}

impl Export {
    /// [`signature::check_signature`] of this export (`pinned`: a key that must have signed it).
    pub fn signature_check(&self, pinned: Option<&str>) -> signature::SignatureCheck {
        signature::check_signature(
            self.id.as_deref().unwrap_or(""),
            &self.events,
            self.signature.as_ref(),
            pinned,
        )
    }
}

/// The chain and decision check, then the signature (issue 19): a signature that does not hold
/// (cut off, re-hashed, another key than the pinned one) makes the whole check fail.
pub fn check_signed(export: &Export, pinned: Option<&str>) -> (Check, signature::SignatureCheck) {
    let checked = check(&export.events);
    let signed = export.signature_check(pinned);
    let checked = match (&checked, &signed) {
        (Check::Failed { .. }, _) => checked,
        (_, signature::SignatureCheck::Failed { reason, seq }) => Check::Failed {
            reason: reason.clone(),
            seq: *seq,
        },
        _ => checked,
    };
    (checked, signed)
}

/// [`parse_export`], keeping the id and signature.
pub fn parse_export_full(text: &str) -> Result<Export, String> {
    if text.len() > MAX_EXPORT_BYTES {
        return Err(too_large(text.len()));
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a JSON document: {e}"))?;
    let mut id = None;
    let mut signature = None;
    let events = match value {
        serde_json::Value::Array(_) => value,
        serde_json::Value::Object(mut map) => {
            id = map
                .get("id")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned);
            if let Some(sig) = map.remove("signature") {
                signature = Some(
                    serde_json::from_value(sig)
                        .map_err(|e| format!("the signature is malformed: {e}"))?,
                );
            }
            map.remove("events")
                .ok_or("the JSON object has no \"events\" array")?
        }
        _ => return Err("expected a JSON object or array".into()),
    };
    let list = events.as_array().ok_or("\"events\" is not an array")?;
    if list.len() > MAX_EXPORT_EVENTS {
        return Err(format!(
            "the log has {} events; an export holds at most {MAX_EXPORT_EVENTS}",
            list.len()
        ));
    }
    let events = list
        .iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value(v.clone()).map_err(|e| {
                let seq = v
                    .get("seq")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(i as u64 + 1);
                format!("tampered at event {seq}: not a valid event ({e})")
            })
        })
        .collect::<Result<Vec<Event>, String>>()?;
    Ok(Export {
        id,
        events,
        signature,
    })
}

/// The error for a file over [`MAX_EXPORT_BYTES`] (also checked before reading one).
pub fn too_large(bytes: usize) -> String {
    format!(
        "the file is {:.1} MB; an export is at most {} MB (a debate's log is far smaller)",
        bytes as f64 / 1_048_576.0,
        MAX_EXPORT_BYTES / 1_048_576
    )
}

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
