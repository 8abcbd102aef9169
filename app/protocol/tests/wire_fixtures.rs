//! The wire format does not change when the code behind it does: every event of every export kept
//! in server/tests/fixtures (written by earlier releases, every event type of all five protocols
//! among them) reads into the log's types, writes back to the same canonical JSON, and its chain
//! still verifies. `consilium verify` checks the same files end to end (server/tests/integration).
#![allow(clippy::expect_used, clippy::unwrap_used)] // a test: a panic is a failure with its place
#![allow(clippy::disallowed_methods)] // the test reads the kept files, which the core may not

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

use protocol::canonical::to_canonical;
use protocol::chain::verify_chain;
use protocol::Event;

#[derive(serde::Deserialize)]
struct Export {
    events: Vec<Event>,
}

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../server/tests/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the fixtures folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_kept_event_reads_and_writes_back_unchanged() {
    let mut types = BTreeSet::new();
    let files = fixtures();
    assert!(files.len() >= 20, "fixtures: {files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read");
        let export: Value = serde_json::from_str(&text).expect("json");
        let raw = export["events"].as_array().expect("events");
        let mut events = Vec::with_capacity(raw.len());
        for value in raw {
            let event: Event = serde_json::from_value(value.clone())
                .unwrap_or_else(|e| panic!("{}: {value}: {e}", path.display()));
            let again = serde_json::to_value(&event).expect("write");
            assert_eq!(
                to_canonical(&again, &[]).expect("canonical"),
                to_canonical(value, &[]).expect("canonical"),
                "{}: event {} writes back differently",
                path.display(),
                event.seq
            );
            assert_eq!(value["type"], event.body.kind(), "{}", path.display());
            types.insert(event.body.kind());
            events.push(event);
        }
        verify_chain(&events).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Read from the text, in the order it was written (`type` before the body): the
        // one-pass reader gives the same events as the reading of a sorted object above.
        let streamed: Export = serde_json::from_str(&text).expect("events from the text");
        assert_eq!(streamed.events, events, "{}", path.display());
    }
    assert_eq!(types.len(), 46, "every event type is kept: {types:?}");
}
