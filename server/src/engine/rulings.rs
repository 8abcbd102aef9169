//! ES-5/ES-7: a judge's ruling on a challenge of a running debate, handed to its drive loop;
//! L5, the gate: a judge's review of a finished pipeline's provisional decision, appended to its
//! log by the machine rebuilt from it; ES-12: a judge's decision for a collapse debate escalated
//! to a human, appended the same way.

use std::collections::HashMap;
use std::sync::MutexGuard;
use std::time::Duration;

use app::protocol::escalation::{JudgeAction, RulingError};
use app::protocol::event::DebateEvent;
use app::protocol::run::{BudgetAction, GateReview};
use app::protocol::{DebateStatus, Event, EventBody};
use tokio::sync::{mpsc, oneshot};

use super::Engine;
use crate::db::StoreError;
use crate::drive::{Act, Journal, Ruling, Sequencer};

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
        let act = Act::Challenge {
            challenge: challenge.to_owned(),
            action: action.clone(),
        };
        match self.send_to_run(id, judge, act).await {
            Err(RuleError::NotRunning(_)) if self.lock_rulings().get(id).is_none() => {
                match self.store.status(id).await? {
                    None => Err(RuleError::NoDebate),
                    Some(DebateStatus::Interrupted) => Err(RuleError::NotRunning(format!(
                        "debate {id} has ended (interrupted) before its decision; there is \
                         nothing to review"
                    ))),
                    Some(s) if s.is_over() => self.review(id, judge, challenge, action).await,
                    Some(_) => Err(RuleError::NotRunning(format!(
                        "debate {id} runs in another server process; rule through that one"
                    ))),
                }
            }
            other => other,
        }
    }

    /// ES-11: judge `judge` grants tokens to, or closes, debate `id` paused on its budget; the
    /// `budget_granted` (or `budget_closed` and the cautious end) is stored by the time this
    /// returns.
    pub async fn budget(
        &self,
        id: &str,
        judge: &str,
        action: BudgetAction,
    ) -> Result<(), RuleError> {
        match self.send_to_run(id, judge, Act::Budget(action)).await {
            Err(RuleError::NotRunning(_)) if self.lock_rulings().get(id).is_none() => {
                Err(match self.store.status(id).await? {
                    None => RuleError::NoDebate,
                    Some(s) if s.is_over() => RuleError::NotRunning(format!(
                        "debate {id} has ended ({s}); only a running debate paused on its budget \
                         takes a grant"
                    )),
                    Some(_) => RuleError::NotRunning(format!(
                        "debate {id} runs in another server process; act through that one"
                    )),
                })
            }
            other => other,
        }
    }

    /// Hands a judge's action to debate `id`'s drive loop and waits for the answer.
    async fn send_to_run(&self, id: &str, judge: &str, act: Act) -> Result<(), RuleError> {
        let sender = self.lock_rulings().get(id).cloned();
        let Some(sender) = sender else {
            return Err(RuleError::NotRunning(format!(
                "debate {id} is not running here"
            )));
        };
        let (done, answer) = oneshot::channel();
        let ruling = Ruling {
            judge: judge.to_owned(),
            act,
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

    /// L5: the gate review of a finished pipeline. The machine is rebuilt from the stored log
    /// and takes the judge's action; what it writes — the ruling, the resolution, the impact,
    /// the re-runs, the new decision — is numbered after the last stored event, stored signed
    /// in one batch and published. Another review stored first is a conflict, never a fork.
    async fn review(
        &self,
        id: &str,
        judge: &str,
        challenge: &str,
        action: JudgeAction,
    ) -> Result<(), RuleError> {
        let log = self
            .ended_log(id, "escalation")
            .await
            .map_err(|e| match e {
                RuleError::NotRunning(_) => RuleError::NotRunning(format!(
                    "debate {id} has ended; only an escalation pipeline's provisional decisions \
                 are reviewed after it"
                )),
                other => other,
            })?;
        let wall_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
        let agents = match &action {
            // ES-7: the agents are asked again; the server must still provide their kinds.
            JudgeAction::Redebate { .. } => Some(
                super::registry::agents_of_log(&self.settings, &log)
                    .map_err(|e| RuleError::Refused(RulingError::Conflict(e.to_string())))?,
            ),
            _ => None,
        };
        match app::protocol::run::gate_review(&log, wall_ms, challenge, judge, action)
            .map_err(RuleError::Refused)?
        {
            GateReview::Appended(written) => {
                self.append_after_end(id, &log, written).await.map(|_| ())
            }
            GateReview::Reopened(run) => {
                let Some(agents) = agents else {
                    return Err(RuleError::Refused(RulingError::Conflict(
                        "the review reopened the pipeline without asking for it".into(),
                    )));
                };
                self.run_again(id, &log, *run, agents).await
            }
        }
    }

    /// ES-7: a pipeline sent back to its agents at the gate runs on in this process. The
    /// ruling (and what it caused) is stored first — the debate is `running` again from that
    /// commit, and a review another judge stored first is a conflict, never a fork — then the
    /// drive loop takes the run to its next decision like any other.
    async fn run_again(
        &self,
        id: &str,
        log: &[Event],
        mut run: app::protocol::DebateRun,
        agents: Box<dyn crate::agents::Agent>,
    ) -> Result<(), RuleError> {
        let mut first = Vec::new();
        while let Some(body) = run.poll_event() {
            first.push(body);
        }
        let seq = self.append_after_end(id, log, first).await?;
        self.spawn_run(id.to_owned(), run, agents, seq, None, ());
        Ok(())
    }

    /// ES-12: judge `judge` decides a collapse debate that ended ESCALATED_TO_HUMAN by choosing
    /// position `chosen`: its `human_decision` and the judge's `decision` are appended to the
    /// ended log, stored signed and published.
    pub async fn decide(
        &self,
        id: &str,
        judge: &str,
        chosen: &str,
        rationale: &str,
    ) -> Result<(), RuleError> {
        match self.store.status(id).await? {
            None => return Err(RuleError::NoDebate),
            Some(s) if !s.is_over() => {
                return Err(RuleError::NotRunning(format!(
                    "debate {id} is still running; a judge decides once it is escalated to a \
                     human"
                )))
            }
            Some(_) => {}
        }
        let log = self.ended_log(id, "collapse").await?;
        let written = app::protocol::run::human_decision(&log, judge, chosen, rationale)
            .map_err(RuleError::Refused)?;
        self.append_after_end(id, &log, written).await.map(|_| ())
    }

    /// The stored log of debate `id`, which must be of `protocol`.
    async fn ended_log(&self, id: &str, protocol: &str) -> Result<Vec<Event>, RuleError> {
        let log = self.store.events_after(id, 0).await?;
        match log.first().map(|e| &e.body) {
            Some(EventBody::Debate(DebateEvent::DebateStarted { protocol: p, .. }))
                if p == protocol =>
            {
                Ok(log)
            }
            Some(EventBody::Debate(DebateEvent::DebateStarted { protocol: p, .. })) => {
                Err(RuleError::NotRunning(format!(
                    "debate {id} is a {p} debate; this is for {protocol} debates"
                )))
            }
            _ => Err(RuleError::NoDebate),
        }
    }

    /// Appends what a judge's action wrote after the last stored event of an ended log: numbered
    /// and chained on, stored in one batch (signed at its new end) and published. Another
    /// judge's action stored first is a conflict, never a fork. Returns the sequencer, to go on
    /// numbering after the batch.
    async fn append_after_end(
        &self,
        id: &str,
        log: &[Event],
        written: Vec<app::protocol::EventBody>,
    ) -> Result<Sequencer, RuleError> {
        let Some(last) = log.last() else {
            return Err(RuleError::NoDebate);
        };
        let mut seq = Sequencer::after(last);
        let mut batch: Vec<_> = written.into_iter().map(|body| seq.stamp(body)).collect();
        let mut journal = self.journal(id, None, 0);
        match journal.append(&mut batch).await {
            Ok(()) => Ok(seq),
            Err(e) if e.is_conflict() => Err(RuleError::Refused(RulingError::Conflict(format!(
                "another judge's action on debate {id} was stored first; reload and try again"
            )))),
            Err(e) => Err(RuleError::Store(e)),
        }
    }
}
