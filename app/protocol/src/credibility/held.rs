//! What each agent finally held in a finished debate: its prediction for the track record (CR-1).
//! S4: its locked vote; round-robin: its last stance; collapse: its last card (first claim, with
//! the card's score). A log without a decision holds no predictions.

use serde::{Deserialize, Serialize};

use super::types::ContextTags;
use crate::collapse::WcEvent;
use crate::event::DebateEvent;
use crate::round_robin::RrEvent;
use crate::s4::S4Event;
use crate::{Event, EventBody};

/// One agent's final position in one debate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Held {
    /// The agent's id in the debate.
    pub agent: String,
    /// Its identity across debates (`builtin:<agent>` when the log predates identities).
    pub identity: String,
    /// What it held: `ACT`, `BUY`, or a card's first claim.
    pub held: String,
    /// 0–1.
    pub confidence: f64,
    /// Detail a reader needs to judge it (a card's score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The context the request carried.
    pub tags: ContextTags,
}

/// The predictions a finished log records, in agent order.
pub fn predictions(events: &[Event]) -> Vec<Held> {
    let mut out: Vec<Held> = Vec::new();
    let mut agents = Vec::new();
    let mut tags = ContextTags::default();
    let mut decided = false;
    let put = |out: &mut Vec<Held>, h: Held| match out.iter_mut().find(|o| o.agent == h.agent) {
        Some(o) => *o = h,
        None => out.push(h),
    };
    for e in events {
        let held = match &e.body {
            EventBody::Debate(DebateEvent::DebateStarted {
                agents: a, context, ..
            }) => {
                agents.clone_from(a);
                tags = context.as_deref().cloned().unwrap_or_default();
                None
            }
            EventBody::S4(S4Event::Vote { vote, .. }) => Some((
                vote.agent.clone(),
                vote.decision.as_str().to_owned(),
                f64::from(vote.confidence) / 100.0,
                None,
            )),
            EventBody::RoundRobin(RrEvent::Turn {
                agent, position, ..
            }) => Some((
                agent.clone(),
                position.stance.as_str().to_owned(),
                f64::from(position.confidence) / 100.0,
                None,
            )),
            EventBody::Collapse(WcEvent::CardSubmitted(c)) => Some((
                c.position.clone(),
                c.card
                    .claims
                    .first()
                    .map_or_else(|| "(no claim)".to_owned(), |s| clip(s, 200)),
                c.card.confidence.clamp(0.0, 1.0),
                Some(format!("card score S = {:.2}", c.score.total)),
            )),
            EventBody::Debate(DebateEvent::Decision(_)) => {
                decided = true;
                None
            }
            _ => None,
        };
        if let Some((agent, held, confidence, detail)) = held {
            let identity = agents
                .iter()
                .find(|a: &&crate::AgentSpec| a.id == agent)
                .and_then(|a| a.identity.clone())
                .unwrap_or_else(|| super::identity("builtin", None, &agent));
            put(
                &mut out,
                Held {
                    agent,
                    identity,
                    held,
                    confidence,
                    detail,
                    tags: tags.clone(),
                },
            );
        }
    }
    if decided {
        out
    } else {
        Vec::new()
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}
