//! ES-5: the judges' desk of this server — one for every debate, so no judge holds more than
//! three challenges at once, whichever debates they come from. Judges are read from the store
//! each time a challenge asks for one, so `consilium judge add` takes effect at once.

use std::sync::{Mutex, MutexGuard};

use app::protocol::escalation::JudgeLoad;
use app::protocol::escalation::CAPACITY;
use app::protocol::escalation::{Admission, Desk, JudgeAction, Priority, RulingError};
use app::protocol::run::BudgetAction;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use crate::db::Store;

/// ES-5/ES-7/ES-11: a judge's action on a running debate, on its way to the drive loop; `done`
/// gets the machine's answer once the events it wrote are stored.
pub struct Ruling {
    pub judge: String,
    pub act: Act,
    pub done: oneshot::Sender<Result<(), RulingError>>,
}

/// What the judge does.
pub enum Act {
    /// ES-5/ES-7: rule on a challenge.
    Challenge {
        challenge: String,
        action: JudgeAction,
    },
    /// ES-11: grant tokens to, or close, a debate paused on its budget.
    Budget(BudgetAction),
}

/// What the drive loop of a debate with judges gets: the shared desk, its debate's id, and the
/// rulings sent to it.
pub struct Judging<'a> {
    pub desk: &'a JudgeDesk,
    pub debate: &'a str,
    pub rulings: &'a mut mpsc::Receiver<Ruling>,
    /// SV-7: a judge's stop; LM-4: the server's shutdown.
    pub stop: &'a mut oneshot::Receiver<Stop>,
    /// SV-14: the debate's running place, parked while it waits.
    pub place: &'a mut dyn Place,
}

/// SV-14: what a running debate holds among the server's limits. While it waits — paused on its
/// budget for a judge, or on a timer at least [`PARK_AFTER`] away — it parks (gives its place
/// back), and before it asks its agents again it takes a place again, waiting its turn.
pub trait Place: Send {
    /// Gives the place back while the debate waits; `false` when it is kept.
    fn park(&mut self) -> bool {
        false
    }

    /// Takes a place again (at once when it was never given back).
    fn unpark(&mut self) -> futures::future::BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// A debate started with no limit's place (the start token's, tests').
impl Place for () {}

/// Tests watch when a place is dropped.
impl<T: Send + Sync> Place for std::sync::Arc<T> {}

/// SV-14: a debate waiting on a timer at least this far away parks.
pub const PARK_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// Why a running debate is told to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SV-7: a judge stopped it (the judge's name): the calls in flight are cancelled at once.
    Judge(String),
    /// LM-4/RS-3: the server is shutting down. No new call goes out; the calls in flight may finish
    /// until the deadline and are logged as they return, those still out then as cancelled. The
    /// log stays open: the debate did not end, its server did.
    Drain(tokio::time::Instant),
}

/// `GET /api/judge/queue`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Queue {
    /// The most challenges one judge holds at once.
    pub capacity: usize,
    pub judges: Vec<JudgeLoad>,
    pub held: Vec<HeldChallenge>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct HeldChallenge {
    pub debate: String,
    pub challenge: String,
    pub judge: String,
    pub priority: Priority,
}

pub struct JudgeDesk {
    store: Store,
    desk: Mutex<Desk>,
    /// ES-11: debates of this process waiting for a budget approval: (debate, used, budget).
    paused: Mutex<Vec<(String, u64, u64)>>,
}

/// The desk's key for a challenge: debate and challenge.
fn key(debate: &str, challenge: &str) -> String {
    format!("{debate}/{challenge}")
}

impl JudgeDesk {
    pub fn new(store: Store) -> JudgeDesk {
        JudgeDesk {
            store,
            desk: Mutex::new(Desk::default()),
            paused: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Desk> {
        // A panic while holding it leaves a consistent desk (every change is one push/retain).
        self.desk
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// ES-5: a place with the least-loaded judge under three, or the overflow (L4) or
    /// deferral (supporting disputes) when every judge is full — or when there are no judges.
    pub async fn admit(
        &self,
        debate: &str,
        challenge: &str,
        priority: Priority,
        now: u64,
    ) -> Admission {
        let judges = self.judges(challenge).await;
        let mut desk = self.lock();
        desk.judges = judges;
        desk.admit(&key(debate, challenge), priority, now)
    }

    /// The judges in the store now (`for_what` names what asks, in a warning when it fails).
    async fn judges(&self, for_what: &str) -> Vec<String> {
        match self.store.judges().await {
            Ok(rows) => rows
                .into_iter()
                .filter(|r| r.role == "judge")
                .map(|r| r.name)
                .collect(),
            Err(e) => {
                tracing::warn!("could not read the judges, so no judge takes {for_what}: {e}");
                Vec::new()
            }
        }
    }

    /// [`JudgeDesk::queue`] with the judges read from the store first, so one added a moment
    /// ago is listed with no load.
    pub async fn queue_now(&self) -> Queue {
        let judges = self.judges("the desk's listing").await;
        self.lock().judges = judges;
        self.queue()
    }

    /// Whether any judge could act now (ES-11: a spent budget then waits for one).
    pub async fn has_judges(&self) -> bool {
        !self.judges("a budget approval").await.is_empty()
    }

    /// ES-11: debate `debate` waits for a budget approval (`Some((used, budget))`) or not.
    pub fn set_paused(&self, debate: &str, paused: Option<(u64, u64)>) {
        let mut list = self
            .paused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        list.retain(|(d, _, _)| d != debate);
        if let Some((used, budget)) = paused {
            list.push((debate.to_owned(), used, budget));
        }
    }

    /// ES-11: the debates waiting for a budget approval, oldest first.
    pub fn paused(&self) -> Vec<(String, u64, u64)> {
        self.paused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Frees the places of `debate`'s challenges that are no longer held (`held` still are).
    pub fn sync(&self, debate: &str, held: &[String]) {
        let prefix = format!("{debate}/");
        self.lock().held.retain(|h| {
            h.key
                .strip_prefix(&prefix)
                .is_none_or(|c| held.iter().any(|x| x == c))
        });
    }

    /// ES-5: every judge with its load (as of the last admission or [`JudgeDesk::queue_now`]),
    /// and the held challenges in priority order, oldest first within a priority.
    pub fn queue(&self) -> Queue {
        let desk = self.lock();
        let mut held: Vec<HeldChallenge> = desk
            .held
            .iter()
            .map(|h| {
                let (debate, challenge) = h.key.split_once('/').unwrap_or((&h.key, ""));
                HeldChallenge {
                    debate: debate.to_owned(),
                    challenge: challenge.to_owned(),
                    judge: h.judge.clone(),
                    priority: h.priority,
                }
            })
            .collect();
        held.sort_by_key(|h| h.priority);
        Queue {
            capacity: CAPACITY,
            judges: desk
                .judges
                .iter()
                .map(|j| JudgeLoad {
                    name: j.clone(),
                    load: desk.load(j),
                })
                .collect(),
            held,
        }
    }
}
