//! The drive loop: puts a debate's requests to its agents — every request the machine hands out
//! at once, up to the agents' limit (LM-1), each call bounded — feeds the answers back as they
//! arrive, and appends every event the machine writes — numbered and chained by the
//! [`Sequencer`], stored by the [`Journal`] — in order.

pub mod desk;
pub mod journal;
pub mod sequencer;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use app::protocol::{AgentRequest, Answered, DebateRun};
use futures::stream::{FuturesUnordered, StreamExt};
use tokio::sync::{mpsc, oneshot};

pub use desk::{Act, JudgeDesk, Judging, Place, Ruling, Stop, PARK_AFTER};
pub use journal::{Journal, StoredJournal};
pub use sequencer::{now_rfc3339, now_stamp, rfc3339_millis, Sequencer};

use crate::agents::{Agent, Answer};
use crate::db::StoreError;
use crate::live::hub::Deltas;

/// How the loop waits.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Delay before each agent message — before each set of messages asked at once — so humans
    /// can watch (0 in tests).
    pub pace: Duration,
    /// The longest one call may take, retries included; a call that takes longer fails (AG-2).
    pub limit: Duration,
}

/// One call in flight: its request and the answer (`None`: no answer within
/// the limit).
type Flying<'a> = Pin<Box<dyn Future<Output = (AgentRequest, Option<Answer>)> + Send + 'a>>;

/// How a driven debate ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// Its machine ended the log (a decision), or had nothing left to ask.
    Finished,
    /// SV-7: a judge stopped it (LM-4: the calls in flight were cancelled and logged as such);
    /// the caller ends the log with the judge's name.
    Stopped(String),
    /// LM-4/RS-3: the server shut down; what returned in time is logged, what did not is logged as
    /// cancelled, and the log is left open.
    Drained,
}

/// Runs a debate to its end. Everything the machine wrote since the last answer — the answer's
/// cost and scans, its own event, a new round, the `thinking` of the next requests — is stored
/// in one batch before the next requests go out.
///
/// LM-1: every request the machine hands out goes out at once, up to [`Agent::parallel`] in
/// flight; each answer is fed back and logged the moment it arrives. LM-3: pieces of replies
/// go to the debate's viewers as they are written (ephemeral, never stored). LM-4: a judge's
/// stop cancels the calls in flight and logs which they were; a shutdown ([`Stop::Drain`])
/// sends nothing new and gives the calls in flight until its deadline.
///
/// A protocol with timers (ES-10) is told the time before every step, and when no agent is
/// being asked the loop sleeps until its next timer; challenges that reach the judges' queue
/// get their place from `desk` (none: no judges, so they overflow to the fallback).
#[allow(clippy::cognitive_complexity, clippy::too_many_lines)] // the loop: ask, wait, stamp, store
pub async fn drive<A: Agent + ?Sized, J: Journal>(
    run: &mut DebateRun,
    agent: &A,
    journal: &mut J,
    seq: &mut Sequencer,
    timing: Timing,
    judging: Option<Judging<'_>>,
) -> Result<Ended, StoreError> {
    // Pipeline time leaves out the pacing pauses: they are for the people watching, not time
    // the agents took.
    // RS-1: a resumed debate's clock goes on from where its log left it, downtime included.
    let now = Instant::now();
    let began = now
        .checked_sub(Duration::from_millis(run.clock_ms()))
        .unwrap_or(now);
    let mut paced = Duration::ZERO;
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let (desk, mut rulings, mut stop, mut place) = match judging {
        Some(j) => (
            Some((j.desk, j.debate)),
            Some(j.rulings),
            Some(j.stop),
            Some(j.place),
        ),
        None => (None, None, None, None),
    };
    // SV-14: the running place was given back while the debate waits.
    let mut parked = false;
    let parallel = agent.parallel().max(1);
    let deltas = journal.deltas();
    let deltas = deltas.as_ref();
    // Judges' rulings are answered once the events they caused are stored.
    let mut answered = Vec::new();
    // Requests answered since the last batch: their viewers' streamed text ends once the
    // reply's events are out (LM-3).
    let mut settled: Vec<(u32, String)> = Vec::new();
    // One batch's buffer for every step: the journal empties it and leaves its capacity.
    let mut batch = Vec::new();
    let mut flight: FuturesUnordered<Flying<'_>> = FuturesUnordered::new();
    // What is in flight, for a stop to log (LM-4): request id, agent, round, sent at.
    let mut flying: Vec<(u32, String, u16, Instant)> = Vec::new();
    // The clock as read when the last answer came (wall ms, RFC 3339): the next step starts at
    // that same moment, so it is not read again (read at every step, a turn reads it five times).
    let mut answered_at: Option<(u64, app::protocol::event::Stamp)> = None;
    // LM-4/RS-3: set when the server shuts down: nothing new goes out, and the calls in flight have
    // until then.
    let mut draining: Option<tokio::time::Instant> = None;
    // SV-13: the server's daily limit was reached (tokens spent today, the limit): nothing more
    // goes out, and once the calls in flight are answered the debate ends the cautious way.
    let mut daily_stop: Option<(u64, u64)> = None;
    // The tokens this run had used when its events were last stored: what it used since is not
    // in today's stored spending yet.
    let mut used_stored = run.used();
    loop {
        let (elapsed, stamp) = match answered_at.take() {
            Some((elapsed, now)) => (elapsed, Some(now)),
            None => (ms(began.elapsed().saturating_sub(paced)), None),
        };
        run.advance(elapsed);
        if let Some(rx) = rulings.as_deref_mut() {
            while let Ok(r) = rx.try_recv() {
                answered.push(act(run, r));
            }
        }
        if let Some((desk, _)) = desk {
            // ES-11: a spent budget waits for a judge when there is one to ask.
            if run.budget_spent() && run.paused().is_none() && !run.is_finished() {
                run.set_pausable(desk.has_judges().await);
            }
        }
        for (challenge, priority) in run.queued() {
            let admission = match desk {
                Some((desk, debate)) => desk.admit(debate, &challenge, priority, elapsed).await,
                None => app::protocol::escalation::Desk::default().admit(&challenge, priority, 0),
            };
            run.admit(&challenge, admission);
        }
        if let Some((desk, debate)) = desk {
            desk.sync(debate, &run.held());
        }
        let mut asked = Vec::new();
        while draining.is_none() && daily_stop.is_none() && flight.len() + asked.len() < parallel {
            match run.poll_request() {
                Some(req) => {
                    // SV-13: the next call is not made when it would cross the daily limit: the
                    // tokens spent today, plus what this call and those running are expected to
                    // cost, reach it.
                    if let Some((stored, limit)) = journal.daily().await {
                        let spent = stored.saturating_add(run.used().saturating_sub(used_stored));
                        let running = u64::try_from(flight.len() + asked.len()).unwrap_or(u64::MAX);
                        let expected = run.call_estimate().saturating_mul(running + 1);
                        if spent.saturating_add(expected) >= limit {
                            daily_stop = Some((spent, limit));
                            break;
                        }
                    }
                    asked.push(req);
                }
                None => break,
            }
        }
        if let Some((spent, limit)) = daily_stop {
            if flight.is_empty() && asked.is_empty() {
                run.stop_for_daily_limit(spent, limit);
            }
        }
        stamp_batch(run, seq, &mut batch, stamp);
        if !batch.is_empty() {
            journal.append(&mut batch).await?;
            used_stored = run.used();
        }
        for (request, agent) in settled.drain(..) {
            if let Some(d) = deltas {
                d.settled(request, &agent);
            }
        }
        for (done, result) in answered.drain(..) {
            let _ = done.send(result);
        }
        if let Some((desk, debate)) = desk {
            desk.set_paused(debate, run.paused());
        }
        if !asked.is_empty() && (parked || !timing.pace.is_zero()) {
            // Before asking: the pace, for the people watching; then (SV-14) a running place
            // again, waiting its turn when the server is full. A stop ends either wait.
            let unpark = place.as_deref_mut().filter(|_| parked);
            let mut before = std::pin::pin!(async {
                tokio::time::sleep(timing.pace).await;
                if let Some(place) = unpark {
                    place.unpark().await;
                }
            });
            loop {
                tokio::select! {
                    () = &mut before => {
                        paced += timing.pace;
                        parked = false;
                        break;
                    }
                    why = stopped(&mut stop) => match why {
                        Some(Stop::Judge(judge)) => {
                            cancel(run, journal, seq, &mut batch, &flying).await?;
                            return Ok(Ended::Stopped(judge));
                        }
                        // What was about to go out stays unasked.
                        Some(Stop::Drain(deadline)) => {
                            draining = Some(deadline);
                            asked.clear();
                            break;
                        }
                        // No stop can come any more: the wait goes on.
                        None => {}
                    },
                }
            }
        }
        for req in asked {
            flying.push((req.id, req.agent.clone(), req.round, Instant::now()));
            flight.push(Box::pin(call(agent, req, timing.limit, deltas)));
        }
        if flight.is_empty() {
            if run.is_finished() {
                return Ok(Ended::Finished);
            }
            if draining.is_some() {
                return Ok(Ended::Drained);
            }
            let paused = run.paused().is_some();
            let wake = run.wake_at();
            if wake.is_none() && !(paused && rulings.is_some()) {
                // Nothing to ask and nothing to wait for: end the log rather than hang.
                let end = app::protocol::run::interruption(
                    "the protocol had nothing left to ask or wait for".into(),
                );
                journal.append(&mut vec![seq.stamp(end)]).await?;
                return Ok(Ended::Finished);
            }
            // A timer (ES-10), or — paused on its budget (ES-11) — a judge, however long.
            let wait = wake.map(|at| Duration::from_millis(at.saturating_sub(elapsed).max(1)));
            if !parked && (paused || wait.is_some_and(|w| w >= PARK_AFTER)) {
                parked = place.as_deref_mut().is_some_and(|p| p.park());
            }
            tokio::select! {
                () = sleep_or_never(wait) => {}
                r = next_ruling(&mut rulings) => match r {
                    Some(r) => {
                        run.advance(ms(began.elapsed().saturating_sub(paced)));
                        answered.push(act(run, r));
                    }
                    None if paused => return Ok(Ended::Finished),
                    None => rulings = None,
                },
                why = stopped(&mut stop) => match why {
                    Some(Stop::Judge(judge)) => {
                        cancel(run, journal, seq, &mut batch, &flying).await?;
                        return Ok(Ended::Stopped(judge));
                    }
                    Some(Stop::Drain(_)) => return Ok(Ended::Drained),
                    None => {}
                },
            }
            continue;
        }
        let wait = run
            .wake_at()
            .map(|at| Duration::from_millis(at.saturating_sub(elapsed).max(1)));
        tokio::select! {
            biased;
            why = stopped(&mut stop) => match why {
                Some(Stop::Judge(judge)) => {
                    drop(flight);
                    cancel(run, journal, seq, &mut batch, &flying).await?;
                    return Ok(Ended::Stopped(judge));
                }
                Some(Stop::Drain(deadline)) => draining = Some(deadline),
                None => {}
            },
            () = sleep_until_or_never(draining) => {
                drop(flight);
                cancel(run, journal, seq, &mut batch, &flying).await?;
                return Ok(Ended::Drained);
            }
            Some((req, answer)) = flight.next() => {
                flying.retain(|(id, ..)| *id != req.id);
                let streamed = answer.as_ref().is_some_and(|a| a.usage.as_ref().is_some_and(|u| u.streamed));
                let (reply, usage) = match answer {
                    Some(answer) => (answer.reply.map_err(|e| e.to_string()), answer.usage),
                    None => (
                        Err(format!("no reply within {} s", timing.limit.as_secs_f32())),
                        None,
                    ),
                };
                let now = now_stamp();
                let elapsed = ms(began.elapsed().saturating_sub(paced));
                run.advance(elapsed);
                run.handle(&req, Answered { reply, usage, now: now.clone() });
                if streamed {
                    settled.push((req.id, req.agent));
                }
                answered_at = Some((elapsed, now));
            }
            r = next_ruling(&mut rulings) => match r {
                Some(r) => answered.push(act(run, r)),
                None => rulings = None,
            },
            () = sleep_or_never(wait) => {}
        }
    }
}

/// One call: the agent's answer to `req` within `limit`, its pieces sent to the viewers as
/// they are written (LM-3).
async fn call<'a, A: Agent + ?Sized>(
    agent: &'a A,
    req: AgentRequest,
    limit: Duration,
    deltas: Option<&'a Deltas>,
) -> (AgentRequest, Option<Answer>) {
    let answer = match deltas {
        Some(d) => {
            let (id, name) = (req.id, req.agent.clone());
            let sink = move |piece: &str| d.piece(id, &name, piece);
            tokio::time::timeout(limit, agent.respond_streaming(&req, &sink))
                .await
                .ok()
        }
        None => tokio::time::timeout(limit, agent.respond(&req)).await.ok(),
    };
    (req, answer)
}

/// LM-4: a judge stopped the debate, or a shutdown's deadline came: each call in flight is
/// cancelled (its future was dropped, which closes its connection) and logged as cancelled.
async fn cancel<J: Journal>(
    run: &mut DebateRun,
    journal: &mut J,
    seq: &mut Sequencer,
    batch: &mut Vec<app::protocol::Event>,
    flying: &[(u32, String, u16, Instant)],
) -> Result<(), StoreError> {
    for (_, agent, round, sent) in flying {
        let latency = u64::try_from(sent.elapsed().as_millis()).unwrap_or(u64::MAX);
        run.cancelled(agent, *round, latency);
    }
    stamp_batch(run, seq, batch, None);
    if !batch.is_empty() {
        journal.append(batch).await?;
    }
    Ok(())
}

/// A stop, when one can come; `None` when it can no longer come. Either way it comes once:
/// after it this waits forever.
async fn stopped(stop: &mut Option<&mut oneshot::Receiver<Stop>>) -> Option<Stop> {
    match stop.as_deref_mut() {
        Some(rx) => {
            let got = rx.await.ok();
            *stop = None;
            got
        }
        None => std::future::pending().await,
    }
}

async fn sleep_until_or_never(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The next ruling, when rulings can come (`None` once the channel closed).
async fn next_ruling(rulings: &mut Option<&mut mpsc::Receiver<Ruling>>) -> Option<Ruling> {
    match rulings.as_deref_mut() {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_or_never(wait: Option<Duration>) {
    match wait {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
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
