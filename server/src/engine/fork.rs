//! FK-1: a new debate forked from an event of another, run on in this process.

use app::protocol::event::DebateEvent;
use app::protocol::run::{fork_prefix, rebuild_sealed, ForkChanges};
use app::protocol::shared::CommonEvent;

use super::{new_id, registry, Engine, StartError};
use crate::db::NewDebate;
use crate::drive::{journal::Journal, Place, Sequencer};

impl Engine {
    /// FK-1: forks debate `parent` after its event `after_seq` with `changes` (`unpaced`: FK-4's
    /// batches, which nobody watches): the child's log
    /// (`forked_from`, the parent's events up to that one, then what the rebuilt machine still had
    /// to write) is created in one transaction, then the child runs on like any debate. Nothing
    /// is asked of any agent for the copied events. Returns the child's id.
    pub async fn fork<H: Place + 'static>(
        &self,
        parent: &str,
        after_seq: u64,
        mut changes: ForkChanges,
        hold: H,
        unpaced: bool,
    ) -> Result<String, StartError> {
        let log = self.store.events_after(parent, 0).await?;
        if log.is_empty() {
            return Err(StartError::NoDebate(parent.to_owned()));
        }
        if let Some(budget) = changes.token_budget {
            if budget > self.settings.remote.max_token_budget {
                return Err(StartError::Fork(format!(
                    "changes.token_budget: at most {} on this server, got {budget}",
                    self.settings.remote.max_token_budget
                )));
            }
        }
        // AG-2: an agent the fork asks of a remote model is held to a budget, logged with the
        // fork: the server's default when neither the parent nor the fork sets one.
        let remote = changes.agents.iter().any(|a| {
            a.model.is_some()
                || a.backend
                    .as_deref()
                    .is_some_and(|b| !b.eq_ignore_ascii_case("builtin"))
        });
        if remote && changes.token_budget.is_none() && !has_budget(&log) {
            changes.token_budget = Some(self.settings.remote.token_budget);
        }
        let bodies = fork_prefix(parent, &log, after_seq, &changes).map_err(StartError::Fork)?;
        let mut seq = Sequencer::new();
        let mut first: Vec<_> = bodies.into_iter().map(|b| seq.stamp(b)).collect();
        let rebuilt = rebuild_sealed(&first).map_err(|e| {
            StartError::Fork(if e.starts_with("changes.") {
                // A change the debate cannot take at that event, named.
                format!("{e} (at event {after_seq})")
            } else {
                format!("debate {parent}'s log cannot be forked there: {e}")
            })
        })?;
        let agents = registry::agents_of_log(&self.settings, &first)?;
        if agents.backend() != "builtin" {
            self.check_daily_budget().await?;
        }
        let run = rebuilt.run;
        let Some(app::protocol::EventBody::Debate(DebateEvent::DebateStarted {
            protocol,
            query,
            seed,
            ..
        })) = first
            .iter()
            .map(|e| &e.body)
            .find(|b| b.kind() == "debate_started")
        else {
            return Err(StartError::Fork(
                "the copied log has no debate_started".into(),
            ));
        };
        let id = new_id();
        let created_at = first[0].ts.to_string();
        let row = NewDebate {
            id: &id,
            query,
            protocol,
            seed: changes.seed.unwrap_or(*seed),
            created_at: &created_at,
        };
        self.store.create_debate(&row, &first).await?;
        // What the rebuilt machine still had to write goes through the journal, as any batch
        // does: signed when it ends the log.
        let mut rest: Vec<_> = rebuilt.pending.into_iter().map(|b| seq.stamp(b)).collect();
        if !rest.is_empty() {
            let mut journal = self.journal(&id, Some(first), 0);
            journal.append(&mut rest).await?;
            // The journal keeps the log it appended to: the live channel opens with all of it.
            first = journal.log.take().unwrap_or_default();
        }
        tracing::info!(debate = %id, parent, after_seq, "forked");
        let pace = if unpaced {
            Some(std::time::Duration::ZERO)
        } else {
            changes.pace_ms.map(std::time::Duration::from_millis)
        };
        self.spawn_run_paced(id.clone(), run, agents, seq, Some(first), hold, pace);
        Ok(id)
    }
}

/// Whether the debate `log` forks from already has a token budget: its own remote agents', or a
/// fork's it descends from.
fn has_budget(log: &[app::protocol::Event]) -> bool {
    use app::protocol::EventBody;
    log.iter()
        .take_while(|e| !matches!(e.body, EventBody::Common(CommonEvent::Credibility(_))))
        .any(|e| match &e.body {
            EventBody::Debate(DebateEvent::DebateStarted { backend, .. }) => backend.is_some(),
            EventBody::Common(CommonEvent::ForkedFrom { changes, .. }) => {
                changes.token_budget.is_some()
            }
            _ => false,
        })
}
