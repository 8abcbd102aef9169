//! The live half of SV-3: each running debate's appended events, fanned out to its SSE viewers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use app::protocol::Event;
use tokio::sync::broadcast;

/// One appended event as every viewer's stream sends it: serialised once, shared by all (issue
/// 17: with thousands of viewers, serialising per viewer was most of a publish's cost).
#[derive(Debug)]
pub struct Frame {
    pub seq: u64,
    /// The log ends here (a decision or an interruption).
    pub terminal: bool,
    /// The event as JSON, the stream's `data:`.
    pub json: String,
}

impl Frame {
    pub fn of(e: &Event) -> Frame {
        Frame {
            seq: e.seq,
            terminal: e.body.is_terminal(),
            json: serde_json::to_string(e).unwrap_or_default(),
        }
    }
}

/// Live fan-out of appended events to SSE subscribers, per running debate.
#[derive(Default)]
pub struct Hub {
    live: Mutex<HashMap<String, broadcast::Sender<Arc<Frame>>>>,
    /// Debates whose run stopped and whose log could not be ended (the database refused writes,
    /// e.g. a full disk): why, so their streams end instead of waiting for an event that will
    /// not come. The next recovery ends their logs.
    failed: Mutex<HashMap<String, String>>,
}

impl Hub {
    pub fn open(&self, id: &str) {
        let (tx, _) = broadcast::channel(256);
        self.lock().insert(id.to_owned(), tx);
    }

    /// `None` when the debate is not running in this process.
    pub fn subscribe(&self, id: &str) -> Option<broadcast::Receiver<Arc<Frame>>> {
        self.lock().get(id).map(broadcast::Sender::subscribe)
    }

    pub fn publish(&self, id: &str, event: &Event) {
        // No subscriber is fine: the event is already in the database.
        let Some(tx) = self
            .lock()
            .get(id)
            .filter(|tx| tx.receiver_count() > 0)
            .cloned()
        else {
            return;
        };
        let _ = tx.send(Arc::new(Frame::of(event)));
    }

    pub fn close(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Marks a debate whose log could not be ended (see [`Hub::failure`]).
    pub fn fail(&self, id: &str, reason: String) {
        self.lock_failed().insert(id.to_owned(), reason);
    }

    /// Why a debate's run ended without a stored end, if it did.
    pub fn failure(&self, id: &str) -> Option<String> {
        self.lock_failed().get(id).cloned()
    }

    fn lock_failed(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Arc<Frame>>>> {
        // A panic while holding this lock cannot leave the map inconsistent; keep serving.
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
