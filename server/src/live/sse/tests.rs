//! The stream's own checks (SV-15).

use super::*;
use crate::db::{NewDebate, Store};
use app::protocol::shared::CommonEvent;
use app::protocol::EventBody;

/// SV-15: a stream of a long stored log holds one page of it at a time, never the whole
/// log, and sends every event once, in order.
#[tokio::test]
async fn a_stream_holds_one_page_of_a_long_log_at_a_time() {
    let store = Store::connect("sqlite::memory:").await.expect("store");
    store
        .create_debate(&NewDebate::sample("d1"), &[])
        .await
        .expect("create");
    let mut stamps = crate::drive::Sequencer::new();
    let mut log: Vec<Event> = (1..=PAGE as u16 * 10 + 7)
        .map(|round| {
            stamps.stamp(EventBody::Common(CommonEvent::Thinking {
                agent: "a".into(),
                round,
            }))
        })
        .collect();
    log.push(stamps.stamp(app::protocol::run::interruption("x".into())));
    store.append("d1", &log).await.expect("append");
    let mut follow = Follow {
        id: "d1".into(),
        store,
        hub: Arc::new(crate::live::hub::Hub::default()),
        so_far: Vec::new(),
        live: None,
        changes: None,
        last: 0,
        started: false,
        backlog_left: false,
        from_memory: false,
        done: false,
        pending: std::collections::VecDeque::new(),
    };
    let (mut most, mut sent) = (0, Vec::new());
    while follow.fill().await {
        most = most.max(follow.pending.len());
        for out in follow.pending.drain(..) {
            if let Out::Event(frame) = out {
                sent.push(frame.seq);
            }
        }
    }
    let all: Vec<u64> = log.iter().map(|e| e.seq).collect();
    assert_eq!(sent, all, "every event once, in order");
    assert_eq!(most, PAGE as usize, "at most a page held at a time");
}
