//! SV-5/RS-1: debates whose run stopped — at start, by the orphan sweep (PostgreSQL), or when a
//! run could not write its own end — resumed from their logs, or their logs ended.

use std::time::Duration;

use app::protocol::shared::CommonEvent;
use app::protocol::{run, EventBody};

use super::Engine;
use crate::db::{Orphan, StoreError};
use crate::drive::{journal::Journal, Sequencer};

/// What one recovery did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// RS-1: debates that go on in this process.
    pub resumed: usize,
    /// SV-5: debates whose logs this process ended `interrupted`.
    pub interrupted: usize,
}

/// What became of one debate whose server stopped.
enum Outcome {
    Resumed,
    /// Another process stored first (PostgreSQL: it resumed or ended the debate).
    Taken,
    /// Why it cannot be resumed.
    Refused(String),
}

impl Engine {
    /// RS-1/SV-5: debates that were running when their server stopped are resumed from their
    /// logs — the machine rebuilt, the requests without a logged reply asked again, the log
    /// going on after a `resumed` event — or, when they cannot be (resuming is off, the log
    /// cannot be folded, the agents are not available here, `--max-resumes` reached), marked
    /// `interrupted` with the reason, so their logs end cleanly and live viewers stop waiting.
    /// Run at start; with PostgreSQL also periodically ([`Engine::sweep_orphans`]), and only for
    /// debates whose server process is gone, never those another live process is running.
    pub async fn recover(&self) -> Result<Recovered, StoreError> {
        let mut done = Recovered::default();
        for orphan in self.store.orphans().await? {
            self.recover_one(&orphan, &mut done).await;
        }
        Ok(done)
    }

    /// [`Engine::recover`] at the server's start, saying what it did.
    pub async fn recover_at_start(&self) -> Result<(), StoreError> {
        let recovered = self.recover().await?;
        if recovered.resumed > 0 {
            tracing::warn!(
                "{} debate(s) were running when their server stopped; resumed from their logs",
                recovered.resumed
            );
        }
        if recovered.interrupted > 0 {
            tracing::warn!(
                "{} debate(s) were running when their server stopped; marked interrupted",
                recovered.interrupted
            );
        }
        Ok(())
    }

    /// One debate whose server stopped: resumed, or its log ended with the reason. One log that
    /// cannot be read or written (a full disk) must not keep the server from starting: it is
    /// tried again at the next recovery.
    async fn recover_one(&self, orphan: &Orphan, done: &mut Recovered) {
        if !self.take_over(orphan).await {
            return;
        }
        let id = orphan.id.as_str();
        match self.resume(id).await {
            Ok(Outcome::Resumed) => done.resumed += 1,
            Ok(Outcome::Taken) => {}
            Ok(Outcome::Refused(why)) => {
                if self.interrupt(id, &why).await {
                    done.interrupted += 1;
                }
            }
            Err(e) => tracing::warn!(debate = %id, "could not resume the debate: {e}"),
        }
    }

    /// RS-2: exactly one process takes a debate over; the others leave it.
    async fn take_over(&self, orphan: &Orphan) -> bool {
        self.store.claim(orphan).await.unwrap_or_else(|e| {
            tracing::warn!(debate = %orphan.id, "could not take the debate over: {e}");
            false
        })
    }

    /// SV-5: ends the log of a debate that is not resumed, saying why.
    async fn interrupt(&self, id: &str, why: &str) -> bool {
        tracing::warn!(debate = %id, "not resumed: {why}");
        let reason = format!("the server running this debate stopped before it finished; {why}");
        match self.end_log(id, run::interruption(reason)).await {
            Ok(ended) => ended,
            Err(e) => {
                tracing::warn!(debate = %id, "could not mark the debate interrupted: {e}");
                false
            }
        }
    }

    /// RS-1: rebuilds debate `id` from its log and runs it on in this process. The `resumed`
    /// event (and what the step the log stopped in still had to write) is stored first, chained
    /// after the last stored event: when another process stored first, it took the debate.
    async fn resume(&self, id: &str) -> Result<Outcome, StoreError> {
        let max = self.settings.max_resumes;
        if max == 0 {
            return Ok(Outcome::Refused("resuming is off (--no-resume)".into()));
        }
        let log = self.store.events_after(id, 0).await?;
        let Some(last) = log.last() else {
            return Ok(Outcome::Refused("its log is empty".into()));
        };
        let rebuilt = match run::rebuild(&log) {
            Ok(r) => r,
            Err(why) => return Ok(Outcome::Refused(format!("its log cannot be folded: {why}"))),
        };
        if rebuilt.resumes >= max {
            let times = match rebuilt.resumes {
                1 => "once".to_owned(),
                n => format!("{n} times"),
            };
            return Ok(Outcome::Refused(format!(
                "it was resumed {times} already (--max-resumes {max})"
            )));
        }
        let agents = match super::registry::agents_of_log(&self.settings, &log) {
            Ok(a) => a,
            Err(e) => {
                return Ok(Outcome::Refused(format!(
                    "its agents are not available: {e}"
                )))
            }
        };
        let mut run = rebuilt.run;
        // ES-10: the time the debate was down counts as elapsed on its clock.
        let now = crate::drive::now_rfc3339();
        let down = match (
            app::protocol::time::days(&now),
            app::protocol::time::days(&last.ts),
        ) {
            (Some(a), Some(b)) => ((a - b).max(0.0) * 86_400_000.0) as u64,
            _ => 0,
        };
        run.add_downtime(down);
        let mut seq = Sequencer::after(last);
        let mut first = vec![seq.stamp(EventBody::Common(CommonEvent::Resumed {
            after_seq: last.seq,
            process: process_name(),
            reason: "the server running it stopped".into(),
        }))];
        first.extend(rebuilt.pending.into_iter().map(|body| seq.stamp(body)));
        let mut journal = self.journal(id, None, 0);
        match journal.append(&mut first).await {
            Ok(()) => {}
            Err(e) if e.is_conflict() => {
                tracing::info!(debate = %id, "not resumed: another process stored first");
                return Ok(Outcome::Taken);
            }
            Err(e) => return Err(e),
        }
        tracing::info!(
            debate = %id,
            after = last.seq,
            reasked = rebuilt.reasked,
            down_ms = down,
            "debate resumed from its log"
        );
        self.spawn_run(id.to_owned(), run, agents, seq, None, ());
        Ok(Outcome::Resumed)
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
                    Ok(r) if r == Recovered::default() => {}
                    Ok(r) => tracing::warn!(
                        "debates left running by a server process that stopped: {} resumed here, {} marked interrupted",
                        r.resumed, r.interrupted
                    ),
                    Err(e) => tracing::warn!("looking for debates of stopped servers failed: {e}"),
                }
            }
        });
    }
}

/// RS-1: who resumed a debate, as its `resumed` event names it: this host and process.
fn process_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into());
    format!("{host}:{}", std::process::id())
}
