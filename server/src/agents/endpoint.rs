//! LM-2 and LM-3 per endpoint: how many calls may be in flight to one URL at once (shared by
//! every debate of this process), and whether it streams (an endpoint that refused streaming
//! is asked plainly from then on).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{Semaphore, SemaphorePermit};

/// The default of `--max-parallel-calls`.
pub const DEFAULT_MAX_PARALLEL: usize = 4;
/// The most `--max-parallel-calls` may be.
pub const MAX_PARALLEL: usize = 64;

/// One endpoint's places for calls in flight, and whether to ask it to stream.
#[derive(Debug)]
pub struct Endpoint {
    url: String,
    places: Semaphore,
    /// Cleared once the endpoint refused a streamed request and answered a plain one.
    streams: AtomicBool,
    limit: usize,
}

impl Endpoint {
    /// Waits for a place among the calls in flight to this endpoint.
    pub async fn place(&self) -> Option<SemaphorePermit<'_>> {
        self.places.acquire().await.ok()
    }

    /// The most calls in flight to this endpoint at once.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether requests to it ask for a stream.
    pub fn streams(&self) -> bool {
        self.streams.load(Ordering::Relaxed)
    }

    /// The endpoint refused a streamed request and answered a plain one: ask it plainly from
    /// now on (said once in the server's log).
    pub fn refused_streaming(&self, why: &str) {
        if self.streams.swap(false, Ordering::Relaxed) {
            tracing::warn!(
                url = %crate::db::redact(&self.url),
                "the endpoint refused a streamed request ({why}); asking it without streaming from now on"
            );
        }
    }
}

/// Every endpoint this process calls, by URL.
#[derive(Debug)]
pub struct Endpoints {
    limit: usize,
    by_url: Mutex<HashMap<String, Arc<Endpoint>>>,
}

impl Default for Endpoints {
    fn default() -> Self {
        Endpoints::new(DEFAULT_MAX_PARALLEL)
    }
}

impl Endpoints {
    /// `limit` calls in flight per endpoint (1 asks one agent at a time).
    pub fn new(limit: usize) -> Self {
        Endpoints {
            limit: limit.clamp(1, MAX_PARALLEL),
            by_url: Mutex::default(),
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The endpoint at `url`, shared by every debate that calls it.
    pub fn get(&self, url: &str) -> Arc<Endpoint> {
        let mut map = self
            .by_url
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.entry(url.to_owned())
            .or_insert_with(|| {
                Arc::new(Endpoint {
                    url: url.to_owned(),
                    places: Semaphore::new(self.limit),
                    streams: AtomicBool::new(true),
                    limit: self.limit,
                })
            })
            .clone()
    }
}
