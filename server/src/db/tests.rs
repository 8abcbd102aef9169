//! The store's own checks: placeholders, URLs, schemes.

use super::*;

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

#[tokio::test]
async fn sqlite_roundtrip_with_numbered_placeholders() {
    let store = Store::connect("sqlite::memory:").await.expect("memory db");
    let mut seq = crate::drive::Sequencer::new();
    let first = vec![seq.stamp(app::protocol::run::interruption("x".into()))];
    let row = NewDebate::sample("d1");
    store.create_debate(&row, &[]).await.expect("create");
    store.append("d1", &first).await.expect("append");
    assert_eq!(
        store.status("d1").await.expect("status"),
        Some(DebateStatus::Interrupted)
    );
    assert_eq!(store.events_after("d1", 0).await.expect("events"), first);
    let again = store
        .append("d1", &first)
        .await
        .expect_err("same seq twice");
    assert!(again.is_conflict(), "{again}");
    assert!(store.orphans().await.expect("orphans").is_empty());
}
