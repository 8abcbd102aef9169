//! RC-1's `from_debates`: finished debates' last positions and findings become observations —
//! one per agent per debate (S4's final positions, RR's last turns, ES's findings), stamped
//! with the time the debate logged them.

use app::api::{Setup, ValidDebate};
use app::protocol::escalation::{EsEvent, MessageKind};
use app::protocol::event::DebateEvent;
use app::protocol::reconcile::{check_observations, Observation};
use app::protocol::round_robin::RrEvent;
use app::protocol::s4::S4Event;
use app::protocol::{DebateStatus, EventBody, ProtocolError};

use super::error::StartError;
use crate::db::Store;

/// Adds the observations of `req`'s `from_debates` to its own, or says which debate cannot
/// give any and why.
pub async fn gather(store: &Store, req: &mut ValidDebate) -> Result<(), StartError> {
    let Setup::Reconcile { config } = &mut req.setup else {
        return Ok(());
    };
    let bad = |msg: String| StartError::Protocol(ProtocolError::BadInput(msg));
    for (i, id) in config.from_debates.clone().iter().enumerate() {
        match store.status(id).await? {
            None => return Err(bad(format!("from_debates[{i}]: no debate has the id “{id}”"))),
            Some(DebateStatus::Running) => {
                return Err(bad(format!(
                    "from_debates[{i}]: debate {id} is still running; reconcile it once it has finished"
                )))
            }
            Some(_) => {}
        }
        let log = store.events_after(id, 0).await?;
        let found = observations_of(id, &log);
        if found.is_empty() {
            return Err(bad(format!(
                "from_debates[{i}]: debate {id} holds no positions or findings to reconcile"
            )));
        }
        for o in found {
            if !config.observations.iter().any(|p| p.id == o.id) {
                config.observations.push(o);
            }
        }
    }
    check_observations(&config.observations).map_err(bad)
}

/// Each agent's last position (S4, RR) or every finding (ES) in a log.
pub fn observations_of(debate: &str, log: &[app::protocol::Event]) -> Vec<Observation> {
    let mut out: Vec<Observation> = Vec::new();
    let short = &debate[..debate.len().min(12)];
    let mut put = |agent: &str, content: String, ts: &str, seq: u64, replace: bool| {
        let content: String = content
            .chars()
            .take(app::protocol::reconcile::MAX_CONTENT_CHARS)
            .collect();
        let o = Observation {
            id: format!("{short}-{seq}"),
            agent: agent.to_owned(),
            content,
            topic_hint: None,
            timestamp: ts.to_owned(),
            source_authority: None,
            conflicts_with: Vec::new(),
        };
        match out.iter_mut().find(|p| replace && p.agent == agent) {
            Some(p) => *p = o,
            None => out.push(o),
        }
    };
    let mut query = String::new();
    for e in log {
        match &e.body {
            EventBody::Debate(DebateEvent::DebateStarted { query: q, .. }) => query.clone_from(q),
            EventBody::S4(S4Event::Position {
                agent, position, ..
            }) => put(
                agent,
                format!(
                    "On “{query}”: {} — {}",
                    position.decision, position.reasoning
                ),
                &e.ts,
                e.seq,
                true,
            ),
            EventBody::S4(S4Event::Revision { agent, after, .. }) => put(
                agent,
                format!("On “{query}”: {} — {}", after.decision, after.reasoning),
                &e.ts,
                e.seq,
                true,
            ),
            EventBody::RoundRobin(RrEvent::Turn {
                agent, position, ..
            }) => put(
                agent,
                format!("On “{query}”: {} — {}", position.stance, position.reasoning),
                &e.ts,
                e.seq,
                true,
            ),
            EventBody::Escalation(EsEvent::Message { message, .. })
                if matches!(
                    message.kind,
                    MessageKind::Finding | MessageKind::FindingWithPrecedent
                ) =>
            {
                put(
                    &message.from,
                    message.content.finding.clone(),
                    &e.ts,
                    e.seq,
                    false,
                );
            }
            _ => {}
        }
    }
    out
}
