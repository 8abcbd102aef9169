//! UI-4: the judges' desk across pipelines — the cases of the latest escalation debates
//! (held, provisional, awaiting review at the gate) with precedents from one another, the
//! collapse debates escalated to a human (ES-12), and each judge's load.

use app::protocol::escalation::{
    attach_precedents, docket, order, DeskView, EscalatedToHuman, Paused,
};
use app::protocol::event::{entries, DebateEvent};
use app::protocol::EventBody;

use super::Engine;
use crate::db::{ListQuery, StoreError};

/// How many of the latest escalation pipelines the desk reads.
pub const DESK_DEBATES: u32 = 100;
/// Precedents shown per case.
pub const PRECEDENTS: usize = 3;

impl Engine {
    /// The desk now: the cases of the latest [`DESK_DEBATES`] escalation pipelines, in the
    /// desk's order, each with up to [`PRECEDENTS`] precedents; the judges' loads.
    pub async fn desk_view(&self) -> Result<DeskView, StoreError> {
        let listed = self
            .store
            .list(&ListQuery {
                limit: DESK_DEBATES,
                protocol: Some("escalation".into()),
                ..ListQuery::default()
            })
            .await?;
        let wall_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
        let mut cases = Vec::new();
        let mut precedents = Vec::new();
        for d in listed {
            let events = self.store.events_after(&d.id, 0).await?;
            let found = docket(&d.id, &entries(&events), wall_ms);
            cases.extend(found.cases);
            precedents.extend(found.precedents);
        }
        attach_precedents(&mut cases, &precedents, PRECEDENTS);
        order(&mut cases);
        // ES-12: collapse debates the rules handed to a human, newest first.
        let escalated = self
            .store
            .list(&ListQuery {
                limit: DESK_DEBATES,
                protocol: Some("collapse".into()),
                decision: Some("ESCALATED_TO_HUMAN".into()),
                ..ListQuery::default()
            })
            .await?;
        let mut waiting = Vec::new();
        for d in escalated {
            let last = self.store.last_event(&d.id).await?;
            if let Some(EventBody::Debate(DebateEvent::Decision(o))) = last.map(|e| e.body) {
                waiting.push(EscalatedToHuman {
                    debate: d.id,
                    query: d.query,
                    reason: o.reasoning().to_owned(),
                });
            }
        }
        // ES-11: debates of this process paused on their budget.
        let mut paused = Vec::new();
        for (debate, used, budget) in self.desk.paused() {
            if let Some(d) = self.store.get(&debate).await? {
                paused.push(Paused {
                    debate,
                    query: d.query,
                    used,
                    budget,
                });
            }
        }
        let queue = self.desk.queue_now().await;
        Ok(DeskView {
            capacity: queue.capacity,
            judges: queue.judges,
            cases,
            escalated: waiting,
            paused,
        })
    }
}
