//! ES-5/ES-7: a judge's ruling on a challenge of a running debate, handed to its drive loop.

use std::collections::HashMap;
use std::sync::MutexGuard;
use std::time::Duration;

use app::protocol::escalation::{JudgeAction, RulingError};
use tokio::sync::{mpsc, oneshot};

use super::Engine;
use crate::db::StoreError;
use crate::drive::Ruling;

/// Why a ruling was not applied.
#[derive(Debug)]
pub enum RuleError {
    NoDebate,
    /// The debate has ended, runs in another process, or did not take the ruling in time.
    NotRunning(String),
    Refused(RulingError),
    Store(StoreError),
}

impl From<StoreError> for RuleError {
    fn from(e: StoreError) -> Self {
        RuleError::Store(e)
    }
}

impl Engine {
    pub(super) fn lock_rulings(&self) -> MutexGuard<'_, HashMap<String, mpsc::Sender<Ruling>>> {
        self.rulings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Hands judge `judge`'s action on `challenge` to debate `id`'s drive loop and waits for
    /// the machine's answer; the `judge_ruling` event and what it caused are stored by then.
    pub async fn rule(
        &self,
        id: &str,
        judge: &str,
        challenge: &str,
        action: JudgeAction,
    ) -> Result<(), RuleError> {
        let sender = self.lock_rulings().get(id).cloned();
        let Some(sender) = sender else {
            return Err(match self.store.status(id).await? {
                None => RuleError::NoDebate,
                Some(s) if s.is_over() => RuleError::NotRunning(format!(
                    "debate {id} has ended ({s}); judges rule on running debates"
                )),
                Some(_) => RuleError::NotRunning(format!(
                    "debate {id} runs in another server process; rule through that one"
                )),
            });
        };
        let (done, answer) = oneshot::channel();
        let ruling = Ruling {
            challenge: challenge.to_owned(),
            judge: judge.to_owned(),
            action,
            done,
        };
        let gone =
            || RuleError::NotRunning(format!("debate {id} ended before the ruling was taken"));
        sender.send(ruling).await.map_err(|_| gone())?;
        // An agent call in flight is bounded (retries included); the ruling waits behind it.
        let limit = self
            .settings
            .remote
            .policy
            .worst_case()
            .max(self.settings.agent_timeout)
            + Duration::from_secs(30);
        match tokio::time::timeout(limit, answer).await {
            Ok(Ok(result)) => result.map_err(RuleError::Refused),
            Ok(Err(_)) => Err(gone()),
            Err(_) => Err(RuleError::NotRunning(format!(
                "debate {id} did not take the ruling within {} s",
                limit.as_secs()
            ))),
        }
    }
}
