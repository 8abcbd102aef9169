//! Where an injection would sit in what agents send: every free text of a card and of a reply, of
//! every protocol, scanned with the same patterns as the query.

use super::{merge, scan, scan_all, Finding};
use crate::collapse::{PositionCard, WcReply};
use crate::escalation::EsReply;
use crate::reconcile::RcReply;
use crate::request::AgentReply;
use crate::round_robin::RrReply;
use crate::s4::S4Reply;

/// Every free-text field of a position card (claims, plan, evidence pointers, risks, invariant
/// justifications): where an injection in a user's or an agent's card would sit.
pub fn card_texts(c: &PositionCard) -> Vec<&str> {
    c.claims
        .iter()
        .map(String::as_str)
        .chain(
            c.plan
                .iter()
                .flat_map(|s| [s.action.as_str(), s.rationale.as_str()]),
        )
        .chain(c.evidence.iter().map(|e| e.pointer.as_str()))
        .chain(
            c.risks
                .iter()
                .flat_map(|r| [r.description.as_str(), r.mitigation.as_str()]),
        )
        .chain(c.invariant_violations.iter().flat_map(|v| {
            [
                v.invariant_id.as_str(),
                v.description.as_str(),
                v.justification.as_str(),
            ]
        }))
        .collect()
}

/// Scans every text of a card; one finding per pattern name.
pub fn scan_card(card: &PositionCard) -> Vec<Finding> {
    scan_all(card_texts(card))
}

/// The free text of a reply, where an injection aimed at the other agents would sit.
pub fn each_reply_text<'a>(reply: &'a AgentReply, mut f: impl FnMut(&'a str)) {
    // Visited, not collected: most replies hold one text, and the scan runs on every reply
    // (collecting would allocate a vector per reply).
    match reply {
        AgentReply::S4(S4Reply::Position(p)) => f(&p.reasoning),
        AgentReply::S4(S4Reply::Challenge { text, .. }) => f(text),
        AgentReply::RoundRobin(RrReply::Stance(s)) => f(&s.reasoning),
        AgentReply::Collapse(WcReply::Card(c)) => card_texts(c).into_iter().for_each(f),
        AgentReply::Collapse(WcReply::Verification(v)) => f(&v.notes),
        AgentReply::Collapse(WcReply::Critique(c)) => c.concerns.iter().for_each(|s| f(s)),
        AgentReply::Collapse(WcReply::Evaluation(e)) => {
            e.concerns.iter().for_each(|s| f(s));
            e.scores.iter().for_each(|s| f(&s.rationale));
        }
        AgentReply::Escalation(EsReply::Estimates(list)) => {
            list.iter().flat_map(|e| &e.evidence).for_each(|s| f(s))
        }
        AgentReply::Escalation(EsReply::ChallengeAnswer(a)) => a.evidence.iter().for_each(|s| f(s)),
        AgentReply::Escalation(EsReply::Verdict(v)) => f(&v.reason),
        AgentReply::Reconcile(RcReply::Embeddings { .. }) => {}
        AgentReply::Reconcile(RcReply::Reconciliation(r)) => [
            r.consolidated_belief.as_deref(),
            r.clarification_question.as_deref(),
            Some(r.reasoning.as_str()),
        ]
        .into_iter()
        .flatten()
        .for_each(f),
    }
}

/// Scans every text of a reply; one finding per pattern name.
pub fn scan_reply(reply: &AgentReply) -> Vec<Finding> {
    let mut out = Vec::new();
    each_reply_text(reply, |text| merge(&mut out, scan(text)));
    out
}
