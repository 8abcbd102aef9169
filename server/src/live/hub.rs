//! The live half of SV-3: each running debate's appended events, fanned out to its SSE viewers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use app::protocol::Event;
use tokio::sync::broadcast;

/// One appended event as every viewer's stream sends it: rendered once, shared by all (with
/// thousands of viewers, serialising and formatting per viewer would be most of a publish's cost).
#[derive(Debug)]
pub struct Frame {
    /// The event's sequence number; 0 for an ephemeral delta (LM-3), which has none.
    pub seq: u64,
    /// The log ends here (a decision or an interruption).
    pub terminal: bool,
    /// The whole SSE message: `id: <seq>`, `data: <the event as JSON>`, a blank line. Compact
    /// JSON has no line break, so the data is one line.
    pub sse: bytes::Bytes,
}

impl Frame {
    pub fn of(e: &Event) -> Frame {
        let json = serde_json::to_string(e).unwrap_or_default();
        let mut sse = Vec::with_capacity(json.len() + 32);
        sse.extend_from_slice(b"id: ");
        sse.extend_from_slice(e.seq.to_string().as_bytes());
        sse.extend_from_slice(b"\ndata: ");
        sse.extend_from_slice(json.as_bytes());
        sse.extend_from_slice(b"\n\n");
        Frame {
            seq: e.seq,
            terminal: e.body.is_terminal(),
            sse: sse.into(),
        }
    }

    /// LM-3: a piece of a reply being written, as an ephemeral SSE message: `event: delta`, no
    /// `id:` line (a viewer's `Last-Event-ID` stays the last logged event), never stored.
    /// `done` says the request's reply was logged (its streamed text is replaced).
    pub fn delta(request: u32, agent: &str, text: &str, done: bool) -> Frame {
        let data = if done {
            serde_json::json!({"request": request, "agent": agent, "text": text, "done": true})
        } else {
            serde_json::json!({"request": request, "agent": agent, "text": text})
        };
        Frame {
            seq: 0,
            terminal: false,
            sse: format!("event: delta\ndata: {data}\n\n").into(),
        }
    }

    /// An ephemeral frame (LM-3), outside the log's order.
    pub fn is_delta(&self) -> bool {
        self.seq == 0
    }
}

/// LM-3/LM-5: where one running debate's deltas go — the same fan-out as its events, so every
/// viewer gets them in order with the events, and a viewer who falls behind loses deltas (and
/// reads the events it missed from the store), never events.
#[derive(Clone)]
pub struct Deltas {
    hub: Arc<Hub>,
    id: String,
}

impl Deltas {
    pub fn new(hub: Arc<Hub>, id: String) -> Self {
        Deltas { hub, id }
    }

    /// A piece of request `request`'s reply, as agent `agent` writes it.
    pub fn piece(&self, request: u32, agent: &str, text: &str) {
        self.hub
            .publish_delta(&self.id, Frame::delta(request, agent, text, false));
    }

    /// Request `request`'s reply is logged: viewers replace its streamed text with it.
    pub fn settled(&self, request: u32, agent: &str) {
        self.hub
            .publish_delta(&self.id, Frame::delta(request, agent, "", true));
    }
}

/// Live fan-out of appended events to SSE subscribers, per running debate.
#[derive(Default)]
pub struct Hub {
    live: Mutex<HashMap<String, Arc<Mutex<Live>>>>,
    /// Debates whose run stopped and whose log could not be ended (the database refused writes,
    /// e.g. a full disk): why, so their streams end instead of waiting for an event that will
    /// not come. The next recovery ends their logs.
    failed: Mutex<HashMap<String, String>>,
}

/// One running debate's channel, and every frame it has carried (a crowd of new
/// viewers gets the log so far from here — no database read, nothing serialised per viewer).
struct Live {
    tx: broadcast::Sender<Arc<Frame>>,
    /// The log from the first event the hub was given, gap-free, in order.
    frames: Vec<Arc<Frame>>,
}

/// A viewer's start on a running debate: the log so far (as far as the hub has it), and the
/// channel of everything after it — taken together, so nothing falls between them.
pub struct Following {
    pub so_far: Vec<Arc<Frame>>,
    pub rx: broadcast::Receiver<Arc<Frame>>,
}

impl Hub {
    /// A debate starts running here; `log` is what it has stored so far when that is known from
    /// its first event (a new debate), empty otherwise (viewers read the rest from the store).
    pub fn open(&self, id: &str, log: &[Event]) {
        // Room for a burst of deltas (LM-5) as well as events.
        let (tx, _) = broadcast::channel(1024);
        let frames = log.iter().map(|e| Arc::new(Frame::of(e))).collect();
        self.lock()
            .insert(id.to_owned(), Arc::new(Mutex::new(Live { tx, frames })));
    }

    /// `None` when the debate is not running in this process.
    pub fn follow(&self, id: &str) -> Option<Following> {
        let live = self.lock().get(id).cloned()?;
        let live = lock(&live);
        Some(Following {
            so_far: live.frames.clone(),
            rx: live.tx.subscribe(),
        })
    }

    pub fn publish(&self, id: &str, event: &Event) {
        // Not running here (a debate ended or resumed elsewhere): the event is in the database.
        let Some(live) = self.lock().get(id).cloned() else {
            return;
        };
        let frame = Arc::new(Frame::of(event));
        let mut live = lock(&live);
        live.frames.push(frame.clone());
        // No subscriber is fine.
        let _ = live.tx.send(frame);
    }

    /// LM-3: an ephemeral frame to the debate's viewers now: not kept for later viewers, not
    /// stored. Nobody watching: nothing is rendered or sent.
    pub fn publish_delta(&self, id: &str, frame: Frame) {
        let Some(live) = self.lock().get(id).cloned() else {
            return;
        };
        let live = lock(&live);
        if live.tx.receiver_count() > 0 {
            let _ = live.tx.send(Arc::new(frame));
        }
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
        lock(&self.failed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Mutex<Live>>>> {
        lock(&self.live)
    }
}

/// A panic while holding one of the hub's locks cannot leave what it guards inconsistent (each
/// change is one insert, remove or push): keep serving.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive::Sequencer;
    use app::protocol::shared::CommonEvent;
    use app::protocol::EventBody;

    fn events(seq: &mut Sequencer, n: usize) -> Vec<Event> {
        (0..n)
            .map(|i| {
                seq.stamp(EventBody::Common(CommonEvent::Thinking {
                    agent: format!("a{i}"),
                    round: 1,
                }))
            })
            .collect()
    }

    /// SV-3 for a crowd: a viewer's start is the log so far plus the channel of what
    /// follows, with nothing between them and nothing twice, however appends and viewers
    /// interleave.
    #[test]
    fn the_log_so_far_and_the_channel_meet_without_gap_or_duplicate_sv_3() {
        let hub = Hub::default();
        let mut seq = Sequencer::new();
        let first = events(&mut seq, 2);
        hub.open("d", &first);
        let mut viewers = Vec::new();
        for _ in 0..4 {
            viewers.push(hub.follow("d").expect("running"));
            for e in events(&mut seq, 3) {
                hub.publish("d", &e);
            }
        }
        let total = seq.stamped();
        for (i, mut v) in viewers.into_iter().enumerate() {
            let mut seen: Vec<u64> = v.so_far.iter().map(|f| f.seq).collect();
            assert_eq!(seen.len(), 2 + 3 * i, "viewer {i}'s log so far");
            while let Ok(f) = v.rx.try_recv() {
                seen.push(f.seq);
            }
            assert_eq!(seen, (1..=total).collect::<Vec<_>>(), "viewer {i}");
        }
        // Each frame is the SSE message, rendered once.
        let f = &hub.follow("d").expect("running").so_far[0];
        let text = std::str::from_utf8(&f.sse).expect("UTF-8");
        assert!(
            text.starts_with("id: 1\ndata: {\"seq\":1,") && text.ends_with("}\n\n"),
            "{text}"
        );
        assert_eq!(text.matches('\n').count(), 3, "one data line");
        hub.close("d");
        assert!(hub.follow("d").is_none());
        // Not running here: nothing to publish to, nothing kept.
        hub.publish("d", &events(&mut seq, 1)[0]);
        assert!(hub.follow("d").is_none());
    }

    /// LM-3/LM-5: deltas go through the events' channel, in order with them, without an id and
    /// never kept for later viewers; a viewer who falls behind is told it lagged (and reads the
    /// events it missed from the store), while the others and the publisher go on.
    #[test]
    fn deltas_share_the_fan_out_and_are_never_kept_lm_3_lm_5() {
        let hub = Arc::new(Hub::default());
        let mut seq = Sequencer::new();
        hub.open("d", &events(&mut seq, 1));
        let mut slow = hub.follow("d").expect("running");
        let mut keen = hub.follow("d").expect("running");
        let deltas = Deltas::new(hub.clone(), "d".into());
        deltas.piece(4, "utility", "{\"deci");
        let e = &events(&mut seq, 1)[0];
        hub.publish("d", e);
        deltas.settled(4, "utility");
        let got: Vec<Arc<Frame>> = std::iter::from_fn(|| keen.rx.try_recv().ok()).collect();
        let text: Vec<&str> = got
            .iter()
            .map(|f| std::str::from_utf8(&f.sse).expect("UTF-8"))
            .collect();
        assert_eq!(text.len(), 3);
        let data = text[0]
            .strip_prefix("event: delta\ndata: ")
            .and_then(|d| d.strip_suffix("\n\n"))
            .expect("a named message without an id");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(data).expect("JSON"),
            serde_json::json!({"request": 4, "agent": "utility", "text": "{\"deci"})
        );
        assert!(
            text[1].starts_with("id: 2\n"),
            "the event, in order: {}",
            text[1]
        );
        assert!(text[2].contains("\"done\":true") && !text[2].contains("id:"));
        // A new viewer gets the log so far: events only.
        let late = hub.follow("d").expect("running");
        assert_eq!(
            late.so_far.iter().map(|f| f.seq).collect::<Vec<_>>(),
            [1, 2]
        );
        // A flood of deltas: the viewer who read nothing has lagged; publishing never waited.
        for i in 0..5_000 {
            deltas.piece(5, "safety", &i.to_string());
        }
        assert!(matches!(
            slow.rx.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(_))
        ));
        hub.close("d");
        // Nobody follows a closed debate: a delta for it is dropped.
        deltas.piece(6, "utility", "x");
    }
}
