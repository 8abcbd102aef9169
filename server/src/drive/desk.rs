//! ES-5: the judges' desk of this server — one for every debate, so no judge holds more than
//! three challenges at once, whichever debates they come from. Judges are read from the store
//! each time a challenge asks for one, so `consilium judge add` takes effect at once.

use std::sync::{Mutex, MutexGuard};

use app::protocol::escalation::{Admission, Desk, Priority};

use crate::db::Store;

pub struct JudgeDesk {
    store: Store,
    desk: Mutex<Desk>,
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
        let judges: Vec<String> = match self.store.judges().await {
            Ok(rows) => rows
                .into_iter()
                .filter(|r| r.role == "judge")
                .map(|r| r.name)
                .collect(),
            Err(e) => {
                tracing::warn!("could not read the judges, so no judge takes {challenge}: {e}");
                Vec::new()
            }
        };
        let mut desk = self.lock();
        desk.judges = judges;
        desk.admit(&key(debate, challenge), priority, now)
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

    /// Each judge's load: (judge, challenges held).
    pub fn loads(&self) -> Vec<(String, usize)> {
        let desk = self.lock();
        desk.judges
            .iter()
            .map(|j| (j.clone(), desk.load(j)))
            .collect()
    }
}
