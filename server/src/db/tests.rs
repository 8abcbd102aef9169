//! The store's own checks: placeholders, URLs, schemes, and both writers (SQLite's writer thread
//! for a file, the pool's group-commit task for `:memory:` and PostgreSQL).

use super::*;
use app::protocol::shared::CommonEvent;
use app::protocol::EventBody;

#[test]
fn placeholders_are_numbered_per_row() {
    assert_eq!(
        insert_events_sql(2),
        "INSERT INTO events (debate_id, seq, kind, body) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)"
    );
}

#[tokio::test]
async fn unsupported_schemes_are_named() {
    let err = Store::connect("mysql://root:pw@localhost/x")
        .await
        .expect_err("mysql");
    let text = err.to_string();
    assert!(text.contains("'mysql'"), "{text}");
    assert!(!text.contains("pw@"), "password leaked: {text}");
    let err = Store::connect("data/consilium.db")
        .await
        .expect_err("no scheme");
    assert!(
        err.to_string().contains("unsupported DATABASE_URL scheme"),
        "{err}"
    );
}

/// A SQLite file (the writer thread) and `:memory:` (the pool's writer), with what keeps the
/// file alive.
async fn both_writers() -> Vec<(&'static str, Store, tempfile::TempDir)> {
    let dir = tempfile::tempdir().expect("dir");
    let file = Store::connect(&format!("sqlite:{}/w.db", dir.path().display()))
        .await
        .expect("file db");
    assert!(matches!(file.writer, Writer::Thread(_)));
    let memory = Store::connect("sqlite::memory:").await.expect("memory db");
    assert!(matches!(memory.writer, Writer::Pool(_)));
    let spare = tempfile::tempdir().expect("dir");
    vec![("file", file, dir), ("memory", memory, spare)]
}

#[tokio::test]
async fn sqlite_roundtrip_with_numbered_placeholders() {
    for (writer, store, _dir) in both_writers().await {
        roundtrip(writer, &store).await;
    }
}

async fn roundtrip(writer: &str, store: &Store) {
    let mut seq = crate::drive::Sequencer::new();
    let first = vec![seq.stamp(app::protocol::run::interruption("x".into()))];
    let row = NewDebate::sample("d1");
    store.create_debate(&row, &[]).await.expect("create");
    store.append("d1", &first).await.expect("append");
    assert_eq!(
        store.status("d1").await.expect("status"),
        Some(DebateStatus::Interrupted)
    );
    assert_eq!(
        store.events_after("d1", 0).await.expect("events"),
        first,
        "{writer}"
    );
    let again = store
        .append("d1", &first)
        .await
        .expect_err("same seq twice");
    assert!(again.is_conflict(), "{writer}: {again}");
    assert!(store.orphans().await.expect("orphans").is_empty());
}

fn thinking(seq: u64) -> Event {
    Event::new(
        seq,
        "2026-01-01T00:00:00.000Z".into(),
        EventBody::Common(CommonEvent::Thinking {
            agent: "a".into(),
            round: 1,
        }),
    )
}

/// Many debates appending at once all land, in order; a write that conflicts (a seq already
/// stored) fails for its own debate only, even when it shared a statement with others.
#[tokio::test]
async fn concurrent_appends_land_and_a_conflict_fails_alone() {
    for (writer, store, _dir) in both_writers().await {
        appends_race(writer, &store).await;
    }
}

async fn appends_race(writer: &str, store: &Store) {
    const IDS: [&str; 8] = ["g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7"];
    for id in IDS {
        store
            .create_debate(&NewDebate::sample(id), &[])
            .await
            .expect("row");
    }
    for seq in 1..=5 {
        let writes = IDS.map(|id| {
            let store = store.clone();
            async move { store.append(id, &[thinking(seq)]).await }
        });
        for r in futures::future::join_all(writes).await {
            r.expect("appended");
        }
    }
    // g0 repeats seq 5 while the others append seq 6 at the same moment.
    let writes = IDS.map(|id| {
        let store = store.clone();
        let seq = if id == "g0" { 5 } else { 6 };
        async move { (id, store.append(id, &[thinking(seq)]).await) }
    });
    for (id, r) in futures::future::join_all(writes).await {
        match id {
            "g0" => assert!(r.expect_err("a conflict").is_conflict(), "{writer} {id}"),
            _ => r.expect("appended"),
        }
    }
    for id in IDS {
        let seqs: Vec<u64> = store
            .events_after(id, 0)
            .await
            .expect("log")
            .iter()
            .map(|e| e.seq)
            .collect();
        let want: Vec<u64> = if id == "g0" {
            (1..=5).collect()
        } else {
            (1..=6).collect()
        };
        assert_eq!(seqs, want, "{writer} {id}");
    }
}
