//! The drive loop: puts a debate's requests to its agents (each call bounded), feeds the answers
//! back, and appends every event the machine writes — numbered and chained by the [`Sequencer`],
//! stored by the [`Journal`] — in order.

pub mod desk;
pub mod journal;
pub mod sequencer;

use std::time::{Duration, Instant};

use app::protocol::{Answered, DebateRun};

pub use desk::{Act, JudgeDesk, Judging, Ruling};
pub use journal::{Journal, StoredJournal};
pub use sequencer::{now_rfc3339, now_stamp, rfc3339_millis, Sequencer};

use crate::agents::Agent;
use crate::db::StoreError;

/// How the loop waits.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Delay before each agent message, so humans can watch (0 in tests).
    pub pace: Duration,
    /// The longest one call may take, retries included; a call that takes longer fails (AG-2).
    pub limit: Duration,
}

/// Runs a debate to its end. Everything the machine wrote since the last answer — the answer's
/// cost and scans, its own event, a new round, the `thinking` of the next request — is stored in
/// one batch before the next call.
///
/// A protocol with timers (ES-10) is told the time before every step, and when no agent is
/// being asked the loop sleeps until its next timer; challenges that reach the judges' queue
/// get their place from `desk` (none: no judges, so they overflow to the fallback).
#[allow(clippy::cognitive_complexity)] // the loop: ask, wait, stamp, store
pub async fn drive<A: Agent + ?Sized, J: Journal>(
    run: &mut DebateRun,
    agent: &A,
    journal: &mut J,
    seq: &mut Sequencer,
    timing: Timing,
    mut judging: Option<Judging<'_>>,
) -> Result<(), StoreError> {
    // Pipeline time leaves out the pacing pauses: they are for the people watching, not time
    // the agents took.
    let began = Instant::now();
    let mut paced = Duration::ZERO;
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    // Judges' rulings are answered once the events they caused are stored.
    let mut answered = Vec::new();
    // One batch's buffer for every step: the journal empties it and leaves its capacity.
    let mut batch = Vec::new();
    // The clock as read when the last answer came (wall ms, RFC 3339): the next step starts at
    // that same moment, so it is not read again (read at every step, a turn reads it five times).
    let mut answered_at: Option<(u64, app::protocol::event::Stamp)> = None;
    loop {
        let (elapsed, stamp) = match answered_at.take() {
            Some((elapsed, now)) => (elapsed, Some(now)),
            None => (ms(began.elapsed().saturating_sub(paced)), None),
        };
        run.advance(elapsed);
        if let Some(j) = judging.as_mut() {
            while let Ok(r) = j.rulings.try_recv() {
                answered.push(act(run, r));
            }
            // ES-11: a spent budget waits for a judge when there is one to ask.
            if run.budget_spent() && run.paused().is_none() && !run.is_finished() {
                run.set_pausable(j.desk.has_judges().await);
            }
        }
        for (challenge, priority) in run.queued() {
            let admission = match &judging {
                Some(j) => j.desk.admit(j.debate, &challenge, priority, elapsed).await,
                None => app::protocol::escalation::Desk::default().admit(&challenge, priority, 0),
            };
            run.admit(&challenge, admission);
        }
        if let Some(j) = &judging {
            j.desk.sync(j.debate, &run.held());
        }
        let next = run.poll_request();
        stamp_batch(run, seq, &mut batch, stamp);
        if !batch.is_empty() {
            journal.append(&mut batch).await?;
        }
        for (done, result) in answered.drain(..) {
            let _ = done.send(result);
        }
        if let Some(j) = &judging {
            j.desk.set_paused(j.debate, run.paused());
        }
        let Some(req) = next else {
            if run.is_finished() {
                return Ok(());
            }
            let paused = run.paused().is_some();
            match (run.wake_at(), judging.as_mut()) {
                // A judge may act before the timer fires: wake for the ruling.
                (Some(at), Some(j)) => {
                    let wait = Duration::from_millis(at.saturating_sub(elapsed).max(1));
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        Some(r) = j.rulings.recv() => {
                            run.advance(ms(began.elapsed().saturating_sub(paced)));
                            answered.push(act(run, r));
                        }
                    }
                }
                (Some(at), None) => {
                    tokio::time::sleep(Duration::from_millis(at.saturating_sub(elapsed).max(1)))
                        .await;
                }
                // ES-11: paused on its budget, the debate waits for a judge, however long.
                (None, Some(j)) if paused => match j.rulings.recv().await {
                    Some(r) => answered.push(act(run, r)),
                    None => return Ok(()),
                },
                // Nothing to ask and nothing to wait for: end the log rather than hang.
                (None, _) => {
                    let end = app::protocol::run::interruption(
                        "the protocol had nothing left to ask or wait for".into(),
                    );
                    journal.append(&mut vec![seq.stamp(end)]).await?;
                    return Ok(());
                }
            }
            continue;
        };
        if !timing.pace.is_zero() {
            tokio::time::sleep(timing.pace).await;
            paced += timing.pace;
        }
        let (reply, usage) = match tokio::time::timeout(timing.limit, agent.respond(&req)).await {
            Ok(answer) => (answer.reply.map_err(|e| e.to_string()), answer.usage),
            Err(_) => (
                Err(format!("no reply within {} s", timing.limit.as_secs_f32())),
                None,
            ),
        };
        let now = now_stamp();
        let elapsed = ms(began.elapsed().saturating_sub(paced));
        run.advance(elapsed);
        let answer = Answered {
            reply,
            usage,
            now: now.clone(),
        };
        run.handle(&req, answer);
        answered_at = Some((elapsed, now));
    }
}

/// Numbers and seals everything the machine has written since the last batch into `batch`
/// (which the journal left empty). A batch is appended at once, so its events share one
/// reading of the clock: `now` when the answer that caused them came, else read here.
fn stamp_batch(
    run: &mut DebateRun,
    seq: &mut Sequencer,
    batch: &mut Vec<app::protocol::Event>,
    mut now: Option<app::protocol::event::Stamp>,
) {
    while let Some(body) = run.poll_event() {
        let ts = now
            .take()
            .or_else(|| batch.last().map(|e| e.ts.clone()))
            .unwrap_or_else(now_stamp);
        batch.push(seq.stamp_at(body, ts));
    }
}

/// A judge's action applied to the run; its answer goes back once what it wrote is stored.
fn act(
    run: &mut DebateRun,
    r: Ruling,
) -> (
    tokio::sync::oneshot::Sender<Result<(), app::protocol::escalation::RulingError>>,
    Result<(), app::protocol::escalation::RulingError>,
) {
    let result = match r.act {
        Act::Challenge { challenge, action } => run.judge(&challenge, &r.judge, action),
        Act::Budget(action) => run.budget_action(&r.judge, action),
    };
    (r.done, result)
}
