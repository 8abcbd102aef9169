//! SV-5: the end of logs whose run stopped — at start, by the orphan sweep (PostgreSQL), or when
//! a run could not write its own end.

use std::time::Duration;

use app::protocol::run;

use super::Engine;
use crate::db::StoreError;
use crate::drive::Sequencer;

impl Engine {
    /// SV-5: debates that were running when their server stopped are marked `interrupted`, with
    /// an event saying so, so their logs end cleanly and live viewers stop waiting. Run at start;
    /// with PostgreSQL also periodically ([`Engine::sweep_orphans`]), and only for debates whose
    /// server process is gone, never those another live process is running. Returns how many
    /// this call interrupted.
    pub async fn recover(&self) -> Result<usize, StoreError> {
        let mut interrupted = 0;
        for id in self.store.orphans().await? {
            let reason = "the server running this debate stopped before it finished";
            // One log that cannot be written (a full disk) must not keep the server from
            // starting: it is tried again at the next recovery.
            match self.end_log(&id, run::interruption(reason.into())).await {
                Ok(true) => interrupted += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(debate = %id, "could not mark the debate interrupted: {e}")
                }
            }
        }
        Ok(interrupted)
    }

    /// Ends a debate's log with an `interrupted` event chained to the last event actually stored
    /// (not to whatever a failed batch had stamped). Returns `false` when the log already ended,
    /// or when another writer appended first (another process recovering it at the same moment):
    /// the primary key on `(debate, seq)` keeps one chain either way.
    pub(super) async fn end_log(
        &self,
        id: &str,
        end: app::protocol::EventBody,
    ) -> Result<bool, StoreError> {
        let last = self.store.last_event(id).await?;
        if last.as_ref().is_some_and(|e| e.body.is_terminal()) {
            return Ok(false);
        }
        let mut seq = last.as_ref().map_or_else(Sequencer::new, Sequencer::after);
        let event = seq.stamp(end);
        let events = [event];
        let signature = crate::drive::journal::end_signature(self.signer.as_deref(), id, &events);
        match self
            .store
            .append_signed(id, &events, signature.as_ref())
            .await
        {
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
