//! Where a driven debate's events go: memory (bench, tests) or the store, then the live hub.

use std::sync::Arc;

use app::protocol::event::DebateEvent;
use app::protocol::shared::CommonEvent;
use app::protocol::{Event, EventBody};

use crate::db::{Store, StoreError};
use crate::live::hub::Hub;

/// Where a driven debate's events go. A batch is durable (or failed) as a whole; once it is
/// appended, `events` is left empty with its capacity, for the next batch, rather than a batch
/// of 584-byte events allocated anew for every step of a debate.
pub trait Journal {
    fn append(
        &mut self,
        events: &mut Vec<Event>,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send;

    /// LM-3: where pieces of replies go to the debate's viewers, if anyone can watch.
    fn deltas(&self) -> Option<crate::live::hub::Deltas> {
        None
    }

    /// SV-13: for a debate on a remote backend under the server's daily token limit, the tokens
    /// spent today (every debate's stored calls) and the limit; `None` when no limit applies.
    fn daily(&self) -> impl std::future::Future<Output = Option<(u64, u64)>> + Send {
        std::future::ready(None)
    }
}

/// In-memory journal (benchmarks, tests).
impl Journal for Vec<Event> {
    async fn append(&mut self, events: &mut Vec<Event>) -> Result<(), StoreError> {
        self.append(events);
        Ok(())
    }
}

/// The durable journal: persist, then publish. A viewer never sees what a crash can lose.
pub struct StoredJournal {
    pub id: String,
    pub store: Store,
    pub hub: Arc<Hub>,
    /// Signs the log when it ends; `None` leaves it unsigned.
    pub signer: Option<Arc<crate::signing::Signer>>,
    /// Every event stored so far, when this journal has seen them all (a debate it runs from its
    /// start): the decision's predictions are then taken from it. `None`: read back from the
    /// store when the decision comes.
    pub log: Option<Vec<Event>>,
    /// SV-13: the server's daily token limit, for a debate on a remote backend; 0: none.
    pub daily_limit: u64,
}

/// The signature a batch that ends the log is stored with (its last hash, signed).
pub fn end_signature(
    signer: Option<&crate::signing::Signer>,
    debate: &str,
    events: &[Event],
) -> Option<app::audit::signature::LogSignature> {
    let last = events.last().filter(|e| e.body.is_terminal())?;
    Some(signer?.sign(debate, last.seq, &last.hash))
}

impl Journal for StoredJournal {
    fn deltas(&self) -> Option<crate::live::hub::Deltas> {
        Some(crate::live::hub::Deltas::new(
            self.hub.clone(),
            self.id.clone(),
        ))
    }

    async fn daily(&self) -> Option<(u64, u64)> {
        if self.daily_limit == 0 {
            return None;
        }
        let today = super::sequencer::now_rfc3339();
        match self.store.spent(&today[..10]).await {
            Ok(spent) => Some((spent, self.daily_limit)),
            Err(e) => {
                // The start checked the limit; a store that cannot say today's spending
                // does not stop a running debate.
                tracing::warn!(debate = %self.id, "could not read today's spending: {e}");
                None
            }
        }
    }

    async fn append(&mut self, events: &mut Vec<Event>) -> Result<(), StoreError> {
        let signature = end_signature(self.signer.as_deref(), &self.id, events);
        // A log that ends with its decision records each agent's prediction with it,
        // once: a gate review's new decision (ES-7) changes no agent's prediction, and a fork's
        // decision none.
        let predictions = match events.last() {
            Some(e) if matches!(e.body, EventBody::Debate(DebateEvent::Decision(_))) => {
                let mut log = match &self.log {
                    Some(log) => log.clone(),
                    None => self.store.events_after(&self.id, 0).await?,
                };
                let decided = log
                    .iter()
                    .any(|e| matches!(e.body, EventBody::Debate(DebateEvent::Decision(_))));
                // FK-1: a fork is a what-if; its agents' predictions are not their record.
                let fork = matches!(
                    log.first().map(|e| &e.body),
                    Some(EventBody::Common(CommonEvent::ForkedFrom { .. }))
                );
                log.extend(events.iter().cloned());
                if decided || fork {
                    Vec::new()
                } else {
                    crate::record::predictions_of(&self.id, &log)
                }
            }
            _ => Vec::new(),
        };
        self.store
            .append_final(&self.id, events, signature.as_ref(), &predictions)
            .await?;
        // What remote calls cost, toward the server's daily limit (once stored, counted once).
        for e in events.iter() {
            if let EventBody::Common(CommonEvent::AgentCall(call)) = &e.body {
                let tokens = call.prompt_tokens.saturating_add(call.completion_tokens);
                if tokens > 0 {
                    let day = e.ts.get(..10).unwrap_or("unknown");
                    if let Err(err) = self.store.add_spend(day, tokens).await {
                        tracing::warn!(debate = %self.id, "could not count today's spending: {err}");
                    }
                }
            }
        }
        for event in events.iter() {
            self.hub.publish(&self.id, event);
        }
        match &mut self.log {
            Some(log) => log.append(events),
            None => events.clear(),
        }
        Ok(())
    }
}
