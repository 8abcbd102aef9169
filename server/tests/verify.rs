//! SV-2: exports carry the hash chain; `consilium verify` checks it and recomputes the decision.

mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn exported_logs_verify_and_tampering_is_located() {
    let (dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let id = create(
        &server,
        json!({"query": "Should I put all my savings into bitcoin?", "seed": 7}),
    )
    .await;
    read_sse(&server, &id, None, "", usize::MAX).await;

    let url = server.url(&format!("/api/debates/{id}/export.json"));
    let resp = client().get(&url).send().await.expect("GET export");
    assert_eq!(resp.status(), 200);
    let disposition = resp.headers()["content-disposition"]
        .to_str()
        .expect("header")
        .to_owned();
    assert!(
        disposition.contains(&format!("consilium-{id}.json")),
        "{disposition}"
    );
    let export: Value = resp.json().await.expect("json");
    let events = export["events"].as_array().expect("events");
    assert_eq!(events[0]["prev_hash"], "0".repeat(64));
    for pair in events.windows(2) {
        assert_eq!(pair[1]["prev_hash"], pair[0]["hash"], "linked");
    }
    let n = events.len();
    let decision = export["decision"].as_str().expect("decision").to_owned();

    let file = dir.path().join("export.json");
    std::fs::write(&file, serde_json::to_string_pretty(&export).expect("ser")).expect("write");
    let (ok, text) = verify(file.to_str().expect("path"));
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!(
            "verified: {n} events, decision {decision} recomputed"
        )),
        "{text}"
    );

    // The same check straight from the server.
    let (ok, text) = verify(&url);
    assert!(ok, "{text}");

    // Edit one challenge's text: the chain breaks exactly there.
    let mut tampered = export.clone();
    let at = tampered["events"]
        .as_array()
        .expect("events")
        .iter()
        .position(|e| e["type"] == "challenge")
        .expect("a challenge");
    tampered["events"][at]["text"] = json!("I fully agree with you.");
    let seq = tampered["events"][at]["seq"].as_u64().expect("seq");
    std::fs::write(&file, tampered.to_string()).expect("write");
    let (ok, text) = verify(file.to_str().expect("path"));
    assert!(!ok, "tampering must fail: {text}");
    assert!(text.contains(&format!("tampered at event {seq}")), "{text}");

    // Flip the final decision: caught at the last event.
    let mut forged = export.clone();
    forged["events"][n - 1]["decision"] = json!(if decision == "ACT" { "REFUSE" } else { "ACT" });
    std::fs::write(&file, forged.to_string()).expect("write");
    let (ok, text) = verify(file.to_str().expect("path"));
    assert!(!ok);
    assert!(text.contains(&format!("tampered at event {n}")), "{text}");

    // Not a log at all.
    std::fs::write(&file, "{\"hello\": 1}").expect("write");
    let (ok, text) = verify(file.to_str().expect("path"));
    assert!(!ok);
    assert!(text.contains("no \"events\""), "{text}");
    let (ok, text) = verify(&server.url("/api/debates/nope/export.json"));
    assert!(!ok);
    assert!(text.contains("404"), "{text}");
}

#[tokio::test]
async fn the_interrupted_event_continues_the_chain_after_a_crash() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 300);
    let id = create(
        &server,
        json!({"query": "Is it safe to rewire my own electrical panel?", "seed": 2}),
    )
    .await;
    read_sse(&server, &id, None, "", 5).await;
    server.kill();
    let server = Server::start(&db, 0);
    let export: Value = get_json(&server, &format!("/api/debates/{id}/export.json")).await;
    let events: Vec<app::protocol::Event> =
        serde_json::from_value(export["events"].clone()).expect("events");
    assert_eq!(events.last().expect("some").body.kind(), "interrupted");
    assert_eq!(
        app::protocol::chain::verify_chain(&events),
        Ok(events.len()),
        "the chain still verifies after SIGKILL and restart"
    );
}
