//! LM-4/RS-3: the engine's part of a shutdown — running debates stop asking and the calls in
//! flight get until a deadline, what they return stored before the process exits.

use std::time::Duration;

use super::{lock, Engine};
use crate::drive::Stop;

impl Engine {
    /// LM-4/RS-3: the server is shutting down. Every running debate stops asking; the calls in flight
    /// have `within` to return (what they return is logged, what does not is logged as
    /// cancelled); then this returns, once each debate has stored what it had.
    pub async fn drain(&self, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        *lock(&self.draining) = Some(deadline);
        let stops: Vec<_> = self.lock_running().drain().collect();
        if !stops.is_empty() {
            tracing::info!(
                "shutdown: {} running debate(s) send no new calls; those in flight have {} s",
                stops.len(),
                within.as_secs()
            );
        }
        for (_, tx) in stops {
            let _ = tx.send(Stop::Drain(deadline));
        }
        // The deadline, and a little for the cancellations to be stored.
        let mut tasks = self.tasks.subscribe();
        let all_done = tasks.wait_for(|n| *n == 0);
        if tokio::time::timeout_at(deadline + Duration::from_secs(5), all_done)
            .await
            .is_err()
        {
            tracing::warn!("shutdown: debates still storing their logs; exiting without them");
        }
    }
}
