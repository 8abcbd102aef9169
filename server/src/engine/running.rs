//! A created debate run in the background to its end, however it ends: the drive loop, then the
//! log's end (a judge's stop, a store failure, a panic) and the live channels closed.

use std::time::Duration;

use app::protocol::{run, DebateRun};
use tokio::sync::{mpsc, oneshot};

use super::{lock, Engine};
use crate::agents::Agent;
use crate::drive::{drive, Ended, Judging, Place, Ruling, Sequencer, Stop, StoredJournal};

impl Engine {
    /// Runs a created debate in the background until it ends: finished, out of budget, stopped
    /// by a judge, unable to store its log, or panicked — every way ends the log (`interrupted`
    /// when the machine could not write its own end) and closes the live streams.
    /// The journal that stores, signs and publishes debate `id`'s events; `log`, when given, is
    /// what is stored so far (kept as the log grows).
    pub(super) fn journal(
        &self,
        id: &str,
        log: Option<Vec<app::protocol::Event>>,
        daily_limit: u64,
    ) -> StoredJournal {
        StoredJournal {
            id: id.to_owned(),
            store: self.store.clone(),
            hub: self.hub.clone(),
            signer: self.signer.clone(),
            log,
            daily_limit,
        }
    }

    pub(super) fn spawn_run<H: Place + 'static>(
        &self,
        id: String,
        run: DebateRun,
        agents: Box<dyn Agent>,
        seq: Sequencer,
        log: Option<Vec<app::protocol::Event>>,
        hold: H,
    ) {
        self.spawn_run_paced(id, run, agents, seq, log, hold, None);
    }

    /// [`Engine::spawn_run`] with its own pace instead of the server's (FK-1: a fork's; FK-4's
    /// batches of forks, which nobody watches being written, run unpaced).
    #[allow(clippy::too_many_arguments)] // spawn_run's, and whether to pace
    pub(super) fn spawn_run_paced<H: Place + 'static>(
        &self,
        id: String,
        mut run: DebateRun,
        agents: Box<dyn Agent>,
        mut seq: Sequencer,
        log: Option<Vec<app::protocol::Event>>,
        hold: H,
        pace: Option<Duration>,
    ) {
        self.hub.open(&id, log.as_deref().unwrap_or_default());
        let (stop_tx, stop_rx) = oneshot::channel::<Stop>();
        self.tasks.send_modify(|n| *n += 1);
        // A debate that starts while the server shuts down is drained at once.
        match *lock(&self.draining) {
            Some(deadline) => drop(stop_tx.send(Stop::Drain(deadline))),
            None => drop(self.lock_running().insert(id.clone(), stop_tx)),
        }
        let (rule_tx, mut rule_rx) = mpsc::channel::<Ruling>(8);
        self.lock_rulings().insert(id.clone(), rule_tx);
        let engine = self.clone();
        let mut timing = self.settings.timing(agents.backend());
        if let Some(pace) = pace {
            timing.pace = pace;
        }
        // SV-13: the daily limit counts what remote models cost.
        let daily_limit = if agents.backend() == "builtin" {
            0
        } else {
            self.settings.daily_tokens
        };
        let debate = id.clone();
        let task = tokio::spawn(async move {
            let mut journal = engine.journal(&debate, log, daily_limit);
            let desk = engine.desk.clone();
            let mut stop_rx = stop_rx;
            // Given back when the run ends, however it ends (a panic drops it too).
            let mut hold = hold;
            let driven = drive(
                &mut run,
                &*agents,
                &mut journal,
                &mut seq,
                timing,
                Some(Judging {
                    desk: &desk,
                    debate: &debate,
                    rulings: &mut rule_rx,
                    stop: &mut stop_rx,
                    place: &mut hold,
                }),
            )
            .await;
            match driven {
                Ok(Ended::Finished) => None,
                Ok(Ended::Drained) => {
                    tracing::info!(debate = %debate, "debate left running at shutdown; its log stays open");
                    None
                }
                Ok(Ended::Stopped(judge)) => {
                    tracing::info!(debate = %debate, judge = %judge, "debate stopped by a judge");
                    Some(run::stopped_by(&judge))
                }
                Err(e) => {
                    tracing::error!(debate = %debate, "debate stopped, log kept up to the failure: {e}");
                    Some(run::interruption(format!(
                        "the server could not store the debate: {e}"
                    )))
                }
            }
        });
        let engine = self.clone();
        tokio::spawn(async move {
            let end = match task.await {
                Ok(end) => end,
                Err(e) => {
                    tracing::error!(debate = %id, "the debate's task failed: {e}");
                    Some(run::interruption(
                        "the server hit an internal error while running this debate".into(),
                    ))
                }
            };
            if let Some(end) = end {
                if let Err(e) = engine.end_log(&id, end).await {
                    tracing::error!(debate = %id, "could not mark the debate interrupted: {e}");
                    engine.hub.fail(
                        &id,
                        format!(
                            "the server could not store this debate's log ({e}); it will be \
                             marked interrupted when storage works again"
                        ),
                    );
                }
            }
            engine.lock_running().remove(&id);
            engine.lock_rulings().remove(&id);
            engine.desk.sync(&id, &[]);
            engine.desk.set_paused(&id, None);
            // Viewers of the hub fall back to the database, which has the final event.
            engine.hub.close(&id);
            engine.tasks.send_modify(|n| *n -= 1);
        });
    }
}
