//! The drive loop: puts a debate's requests to its agents (each call bounded), feeds the answers
//! back, and appends every event the machine writes — numbered and chained by the [`Sequencer`],
//! stored by the [`Journal`] — in order.

pub mod journal;
pub mod sequencer;

use std::time::Duration;

use app::protocol::{Answered, DebateRun};

pub use journal::{Journal, StoredJournal};
pub use sequencer::{now_rfc3339, rfc3339_millis, Sequencer};

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
pub async fn drive<A: Agent + ?Sized, J: Journal>(
    run: &mut DebateRun,
    agent: &A,
    journal: &mut J,
    seq: &mut Sequencer,
    timing: Timing,
) -> Result<(), StoreError> {
    loop {
        let next = run.poll_request();
        let mut batch = Vec::new();
        while let Some(body) = run.poll_event() {
            batch.push(seq.stamp(body));
        }
        if !batch.is_empty() {
            journal.append(batch).await?;
        }
        let Some(req) = next else {
            return Ok(());
        };
        if !timing.pace.is_zero() {
            tokio::time::sleep(timing.pace).await;
        }
        let (reply, usage) = match tokio::time::timeout(timing.limit, agent.respond(&req)).await {
            Ok(answer) => (answer.reply.map_err(|e| e.to_string()), answer.usage),
            Err(_) => (
                Err(format!("no reply within {} s", timing.limit.as_secs_f32())),
                None,
            ),
        };
        let now = now_rfc3339();
        run.handle(&req, Answered { reply, usage, now });
    }
}
