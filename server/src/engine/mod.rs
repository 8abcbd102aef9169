//! The engine: starts debates (machine, agents, first events in one transaction, then the drive
//! loop in the background), and ends the logs of debates whose server stopped (SV-5).

mod desk;
mod error;
mod fork;
pub mod gather;
mod recovery;
pub mod registry;
mod rulings;
mod running;
pub mod settings;
mod shutdown;
mod spending;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::api::ValidDebate;
use app::protocol::{DebateRun, Start};
use tokio::sync::{mpsc, oneshot};

pub use error::StartError;
pub use recovery::Recovered;
pub use rulings::RuleError;
pub use settings::{Remote, Settings, DEFAULT_MAX_TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET};

use crate::agents::Agent;
use crate::db::{NewDebate, Store, StoreError};
use crate::drive::{now_rfc3339, JudgeDesk, Place, Ruling, Sequencer, Stop};
use crate::live::hub::Hub;

/// Owns everything a running server needs to start and stream debates.
#[derive(Clone)]
pub struct Engine {
    pub store: Store,
    pub hub: Arc<Hub>,
    /// Shared: every request's handler clones the engine (cloning the settings' paths and
    /// configurations would cost a few microseconds of each of 5,000 viewers' connects).
    pub settings: Arc<Settings>,
    /// The debates this process runs, each with the way to stop it (SV-7: a judge's stop;
    /// LM-4: the shutdown's drain).
    running: Arc<Mutex<HashMap<String, oneshot::Sender<Stop>>>>,
    /// How many debates' tasks are alive, for the shutdown to wait on.
    tasks: Arc<tokio::sync::watch::Sender<usize>>,
    /// LM-4/RS-3: set when the server shuts down: the calls in flight may finish until then.
    draining: Arc<Mutex<Option<tokio::time::Instant>>>,
    /// Set when the server shuts down: live streams end so shutdown is not held up by them.
    pub closing: Arc<crate::live::closing::Closing>,
    /// Signs every log that ends; `None` leaves logs unsigned.
    pub signer: Option<Arc<crate::signing::Signer>>,
    /// ES-5: the judges' places, shared by every debate this process runs.
    pub desk: Arc<JudgeDesk>,
    /// ES-5/ES-7: where judges' rulings go, per running debate.
    rulings: Arc<Mutex<HashMap<String, mpsc::Sender<Ruling>>>>,
}

/// What a judge's stop did.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped {
    Now,
    /// The debate already ended.
    AlreadyOver,
    /// Running, but in another server process (PostgreSQL): stop it there.
    Elsewhere,
}

impl Engine {
    pub fn new(store: Store, settings: Settings) -> Self {
        Engine {
            desk: Arc::new(JudgeDesk::new(store.clone())),
            store,
            hub: Arc::new(Hub::default()),
            settings: Arc::new(settings),
            running: Arc::default(),
            tasks: Arc::new(tokio::sync::watch::Sender::new(0)),
            draining: Arc::default(),
            rulings: Arc::default(),
            closing: Arc::default(),
            signer: None,
        }
    }

    /// This engine signs the logs that end with `signer`'s key.
    pub fn with_signer(mut self, signer: Arc<crate::signing::Signer>) -> Self {
        self.signer = Some(signer);
        self
    }

    /// Creates the debate (row and first events in one transaction) and runs it in the background.
    /// `hold` (a limit's place) is kept until the debate ends, however it ends, and parked while
    /// it waits (SV-14).
    pub async fn start<H: Place + 'static>(
        &self,
        req: ValidDebate,
        hold: H,
    ) -> Result<String, StartError> {
        let mut req = req;
        // RC-1: finished debates' positions and findings join the observations.
        gather::gather(&self.store, &mut req).await?;
        let seed = req.seed.unwrap_or_else(random_seed);
        let machine = registry::machine_for(&req, seed)?;
        let agents = registry::agents_for(&self.settings, &req, seed, machine.agents())?;
        self.start_with(req, seed, machine, agents, hold).await
    }

    /// [`Engine::start`] with the agents given (tests give ones that misbehave).
    async fn start_with<H: Place + 'static>(
        &self,
        req: ValidDebate,
        seed: u64,
        machine: app::protocol::Debate,
        agents: Box<dyn Agent>,
        hold: H,
    ) -> Result<String, StartError> {
        if agents.backend() != "builtin" {
            self.check_daily_budget().await?;
        }
        self.check_token_budget(&req)?;
        let budget = req
            .token_budget
            .unwrap_or(self.settings.remote.token_budget);
        // AG-2: who answers and the budget are on record, so a judge can check a budget stop.
        let (backend, per_agent) =
            registry::backend_info(&self.settings, &req, budget, machine.agents());
        // CR-4: the agents' credibility in the request's context, logged so it can be checked.
        let credibility = crate::record::snapshot(
            &self.store,
            machine.agents(),
            backend.as_ref(),
            &per_agent,
            &req.context.clone().unwrap_or_default(),
            &now_rfc3339(),
            &app::protocol::credibility::CrParams::default(),
        )
        .await?;
        let start = Start {
            backend,
            budget: Some(budget),
            context: req.context.clone(),
            credibility: Some(credibility),
            per_agent,
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
            .map(|e| e.ts.to_string())
            .unwrap_or_else(now_rfc3339);
        let row = NewDebate {
            id: &id,
            query: &req.query,
            protocol: req.protocol.as_str(),
            seed,
            created_at: &created_at,
        };
        self.store.create_debate(&row, &first).await?;
        self.spawn_run(id.clone(), run, agents, seq, Some(first), hold);
        Ok(id)
    }

    /// SV-7: a judge stops a running debate; its log ends with an `interrupted` event that names
    /// the judge.
    pub async fn stop(&self, id: &str, judge: &str) -> Result<Stopped, StoreError> {
        let stop = self.lock_running().remove(id);
        if let Some(tx) = stop {
            if tx.send(Stop::Judge(judge.to_owned())).is_ok() {
                // Wait (bounded) for the log to end, so the caller reads a stopped debate.
                for _ in 0..100 {
                    if self.store.status(id).await?.is_some_and(|s| s.is_over()) {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                return Ok(Stopped::Now);
            }
        }
        Ok(match self.store.status(id).await? {
            Some(s) if !s.is_over() => Stopped::Elsewhere,
            _ => Stopped::AlreadyOver,
        })
    }

    fn lock_running(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Stop>>> {
        lock(&self.running)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
    use app::protocol::run;
    use app::protocol::shared::CommonEvent;
    use app::protocol::EventBody;

    /// An agent that panics (a bug) — the debate must still end, and say so.
    struct Panicking;

    impl Agent for Panicking {
        fn respond<'a>(
            &'a self,
            _req: &'a app::protocol::AgentRequest,
        ) -> futures::future::BoxFuture<'a, crate::agents::Answer> {
            panic!("a bug in an agent")
        }

        fn backend(&self) -> &'static str {
            "builtin"
        }
    }

    /// A panicking debate ends `interrupted`, its hub closes (live viewers stop
    /// waiting) and its limit place is given back.
    #[tokio::test]
    async fn a_panicking_debate_ends_interrupted_and_closes_its_streams() {
        let store = Store::connect("sqlite::memory:").await.expect("store");
        let engine = Engine::new(store.clone(), Settings::default());
        let req = app::api::CreateDebate {
            query: "Should we ship tonight?".into(),
            ..Default::default()
        }
        .validate()
        .expect("valid");
        let place = std::sync::Arc::new(());
        let machine = registry::machine_for(&req, 1).expect("machine");
        let id = engine
            .start_with(req, 1, machine, Box::new(Panicking), place.clone())
            .await
            .expect("start");
        let mut live = engine.hub.follow(&id).expect("live while running").rx;
        for _ in 0..200 {
            if store
                .status(&id)
                .await
                .expect("status")
                .is_some_and(|s| s.is_over())
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let log = store.events_after(&id, 0).await.expect("log");
        let last = log.last().expect("events");
        assert!(
            matches!(&last.body, EventBody::Common(CommonEvent::Interrupted { reason, by: None }) if reason.contains("internal error")),
            "{last:?}"
        );
        assert_eq!(app::protocol::chain::verify_chain(&log), Ok(log.len()));
        // The hub closed: a live viewer's channel ends instead of waiting forever.
        let closed = tokio::time::timeout(Duration::from_secs(2), async {
            loop {
                if let Err(tokio::sync::broadcast::error::RecvError::Closed) = live.recv().await {
                    return;
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "the live channel closed");
        assert!(engine.hub.follow(&id).is_none());
        assert_eq!(
            std::sync::Arc::strong_count(&place),
            1,
            "the place was given back"
        );
    }

    /// The database refuses writes mid-debate (as on a full disk). The run ends,
    /// its live channel closes and its streams are told why; the next recovery does not fail on
    /// it, and once writes work again it ends the log `interrupted`.
    #[tokio::test]
    async fn a_database_that_refuses_writes_ends_streams_and_never_blocks_recovery() {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite:{}", dir.path().join("full.db").display());
        let store = Store::connect(&url).await.expect("store");
        // RS-4: not resumed, so the recovery ends the log.
        let settings = Settings {
            pace: Duration::from_millis(100),
            max_resumes: 0,
            ..Settings::default()
        };
        let engine = Engine::new(store.clone(), settings);
        let req = app::api::CreateDebate {
            query: "Should we ship tonight?".into(),
            ..Default::default()
        }
        .validate()
        .expect("valid");
        let id = engine.start(req, ()).await.expect("start");
        store
            .execute_raw(
                "CREATE TRIGGER full BEFORE INSERT ON events \
                 BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END",
            )
            .await
            .expect("trigger");
        let mut failure = None;
        for _ in 0..100 {
            failure = engine.hub.failure(&id);
            if failure.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let failure = failure.expect("the run ended and says why");
        assert!(failure.contains("disk is full"), "{failure}");
        assert!(engine.hub.follow(&id).is_none(), "live channel closed");
        // Recovery while writes still fail: no error, nothing interrupted.
        let nothing = recovery::Recovered::default();
        assert_eq!(
            engine.recover().await.expect("recovery does not fail"),
            nothing
        );
        store.execute_raw("DROP TRIGGER full").await.expect("drop");
        let recovered = engine.recover().await.expect("recovery");
        assert_eq!(recovered.interrupted, 1);
        let status = store.status(&id).await.expect("status");
        assert_eq!(status, Some(app::protocol::DebateStatus::Interrupted));
    }

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
        let first = vec![seq.stamp(EventBody::Common(CommonEvent::Thinking {
            agent: "utility".into(),
            round: 1,
        }))];
        let row = NewDebate::sample("d");
        store.create_debate(&row, &first).await.expect("create");
        let _never_stored = seq.stamp(EventBody::Common(CommonEvent::Thinking {
            agent: "safety".into(),
            round: 1,
        }));
        assert!(engine
            .end_log("d", run::interruption("boom".into()))
            .await
            .expect("interrupt"));
        assert!(!engine
            .end_log("d", run::interruption("again".into()))
            .await
            .expect("second"));
        let log = store.events_after("d", 0).await.expect("log");
        assert_eq!(log.len(), 2);
        assert_eq!(log[1].body.kind(), "interrupted");
        assert_eq!(app::protocol::chain::verify_chain(&log), Ok(2));
        let status = store.status("d").await.expect("status");
        assert_eq!(status, Some(app::protocol::DebateStatus::Interrupted));
    }
}
