//! The engine: starts debates (machine, agents, first events in one transaction, then the drive
//! loop in the background), and ends the logs of debates whose server stopped (SV-5).

mod error;
pub mod registry;
pub mod settings;

use std::sync::Arc;
use std::time::Duration;

use app::api::ValidDebate;
use app::protocol::{run, DebateRun, Start};

pub use error::StartError;
pub use settings::{Remote, Settings, DEFAULT_TOKEN_BUDGET};

use crate::db::{NewDebate, Store, StoreError};
use crate::drive::{drive, now_rfc3339, Sequencer, StoredJournal};
use crate::live::hub::Hub;

/// Owns everything a running server needs to start and stream debates.
#[derive(Clone)]
pub struct Engine {
    pub store: Store,
    pub hub: Arc<Hub>,
    pub settings: Settings,
}

impl Engine {
    pub fn new(store: Store, settings: Settings) -> Self {
        Engine {
            store,
            hub: Arc::new(Hub::default()),
            settings,
        }
    }

    /// Creates the debate (row and first events in one transaction) and runs it in the background.
    pub async fn start(&self, req: ValidDebate) -> Result<String, StartError> {
        let seed = req.seed.unwrap_or_else(random_seed);
        let machine = registry::machine_for(&req, seed)?;
        let agents = registry::agents_for(&self.settings, &req, seed)?;
        let budget = req
            .token_budget
            .unwrap_or(self.settings.remote.token_budget);
        // AG-2: who answers and the budget are on record, so a judge can check a budget stop.
        let start = Start {
            backend: registry::backend_info(&self.settings, &req, budget),
            budget: Some(budget),
        };
        let mut run = DebateRun::start(machine, start);
        let id = new_id();
        let mut seq = Sequencer::new();
        let mut first = Vec::new();
        while let Some(body) = run.poll_event() {
            first.push(seq.stamp(body));
        }
        let created_at = first
            .first()
            .map(|e| e.ts.clone())
            .unwrap_or_else(now_rfc3339);
        let row = NewDebate {
            id: &id,
            query: &req.query,
            protocol: req.protocol.as_str(),
            seed,
            created_at: &created_at,
        };
        self.store.create_debate(&row, &first).await?;
        self.hub.open(&id);
        let engine = self.clone();
        let debate = id.clone();
        let timing = self.settings.timing(agents.backend());
        tokio::spawn(async move {
            let mut journal = StoredJournal {
                id: debate.clone(),
                store: engine.store.clone(),
                hub: engine.hub.clone(),
            };
            let result = drive(&mut run, &*agents, &mut journal, &mut seq, timing).await;
            if let Err(e) = result {
                tracing::error!(debate = %debate, "debate stopped, log kept up to the failure: {e}");
                let reason = format!("the server could not store the debate: {e}");
                if let Err(e) = engine.interrupt(&debate, reason).await {
                    tracing::error!(debate = %debate, "could not mark the debate interrupted: {e}");
                }
            }
            // Viewers of the hub fall back to the database, which has the final event.
            engine.hub.close(&debate);
        });
        Ok(id)
    }

    /// SV-5: debates that were running when their server stopped are marked `interrupted`, with
    /// an event saying so, so their logs end cleanly and live viewers stop waiting. Run at start;
    /// with PostgreSQL also periodically ([`Engine::sweep_orphans`]), and only for debates whose
    /// server process is gone, never those another live process is running. Returns how many
    /// this call interrupted.
    pub async fn recover(&self) -> Result<usize, StoreError> {
        let mut interrupted = 0;
        for id in self.store.orphans().await? {
            let reason = "the server running this debate stopped before it finished";
            if self.interrupt(&id, reason.into()).await? {
                interrupted += 1;
            }
        }
        Ok(interrupted)
    }

    /// Ends a debate's log with an `interrupted` event chained to the last event actually stored
    /// (not to whatever a failed batch had stamped). Returns `false` when the log already ended,
    /// or when another writer appended first (another process recovering it at the same moment):
    /// the primary key on `(debate, seq)` keeps one chain either way.
    async fn interrupt(&self, id: &str, reason: String) -> Result<bool, StoreError> {
        let last = self.store.last_event(id).await?;
        if last.as_ref().is_some_and(|e| e.body.is_terminal()) {
            return Ok(false);
        }
        let mut seq = last.as_ref().map_or_else(Sequencer::new, Sequencer::after);
        let event = seq.stamp(run::interruption(reason));
        match self.store.append(id, &[event]).await {
            Ok(()) => Ok(true),
            Err(e) if e.is_conflict() => {
                tracing::info!(debate = %id, "not interrupted: another writer appended first");
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// PostgreSQL: every `every`, interrupts the debates of server processes that have died since,
    /// so viewers following them from this process see their logs end.
    pub fn sweep_orphans(&self, every: Duration) {
        let engine = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                match engine.recover().await {
                    Ok(0) => {}
                    Ok(n) => tracing::warn!(
                        "{n} debate(s) were left running by a server process that stopped; marked interrupted"
                    ),
                    Err(e) => tracing::warn!("looking for debates of stopped servers failed: {e}"),
                }
            }
        });
    }
}

fn new_id() -> String {
    let mut s = uuid::Uuid::new_v4().simple().to_string();
    s.truncate(16);
    s
}

fn random_seed() -> u64 {
    let (hi, lo) = uuid::Uuid::new_v4().as_u64_pair();
    (hi ^ lo) % 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::protocol::EventBody;

    /// A failed batch advanced the sequencer past events that were never stored: the
    /// `interrupted` event must chain to the last *stored* event, and be written once.
    #[tokio::test]
    async fn interrupt_chains_to_the_last_stored_event_once() {
        let store = Store::connect("sqlite::memory:").await.expect("store");
        let settings = Settings {
            agent_timeout: Duration::from_secs(1),
            ..Settings::default()
        };
        let engine = Engine::new(store.clone(), settings);
        let mut seq = Sequencer::new();
        let first = vec![seq.stamp(EventBody::Thinking {
            agent: "utility".into(),
            round: 1,
        })];
        let row = NewDebate {
            id: "d",
            query: "q",
            protocol: "s4",
            seed: 1,
            created_at: "2026-01-01T00:00:00.000Z",
        };
        store.create_debate(&row, &first).await.expect("create");
        let _never_stored = seq.stamp(EventBody::Thinking {
            agent: "safety".into(),
            round: 1,
        });
        assert!(engine
            .interrupt("d", "boom".into())
            .await
            .expect("interrupt"));
        assert!(!engine.interrupt("d", "again".into()).await.expect("second"));
        let log = store.events_after("d", 0).await.expect("log");
        assert_eq!(log.len(), 2);
        assert_eq!(log[1].body.kind(), "interrupted");
        assert_eq!(app::protocol::chain::verify_chain(&log), Ok(2));
        let status = store.status("d").await.expect("status");
        assert_eq!(status, Some(app::protocol::DebateStatus::Interrupted));
    }
}
