//! SV-6 / S4-8: bad requests get a 4xx with a JSON error naming the problem, and write nothing.

mod common;

use common::*;
use serde_json::Value;

async fn expect_error(resp: reqwest::Response, status: u16, mentions: &str, case: &str) {
    assert_eq!(resp.status().as_u16(), status, "{case}");
    let ct = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or("").to_owned());
    assert_eq!(ct.as_deref(), Some("application/json"), "{case}");
    let body: Value = resp.json().await.expect("JSON error body");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(
        error.to_lowercase().contains(mentions),
        "{case}: error {error:?} should mention {mentions:?}"
    );
}

#[tokio::test]
async fn malformed_debate_requests_are_400_and_write_nothing() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let long = "a".repeat(4001);
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("empty query", r#"{"query": ""}"#.into(), 400, "query"),
        ("blank query", r#"{"query": "   \n "}"#.into(), 400, "query"),
        (
            "query over 4000 chars",
            format!(r#"{{"query": "{long}"}}"#),
            400,
            "4000",
        ),
        (
            "unknown protocol",
            r#"{"query": "hi", "protocol": "chess"}"#.into(),
            400,
            "protocol",
        ),
        ("malformed JSON", r#"{"query": "hi""#.into(), 400, "json"),
        ("not an object", r#"["query"]"#.into(), 400, "json"),
        ("empty body", String::new(), 400, "json"),
        (
            "query of wrong type",
            r#"{"query": 42}"#.into(),
            400,
            "query",
        ),
        (
            "missing query",
            r#"{"protocol": "s4"}"#.into(),
            400,
            "query",
        ),
        (
            "negative seed",
            r#"{"query": "hi", "seed": -1}"#.into(),
            400,
            "seed",
        ),
        (
            "seed as string",
            r#"{"query": "hi", "seed": "seven"}"#.into(),
            400,
            "seed",
        ),
        (
            "unknown field",
            r#"{"query": "hi", "qeury": "x"}"#.into(),
            400,
            "qeury",
        ),
    ];
    for (case, body, status, mentions) in cases {
        let resp = client()
            .post(server.url("/api/debates"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("POST");
        expect_error(resp, status, mentions, case).await;
    }
    let resp = client()
        .post(server.url("/api/debates"))
        .header("content-type", "text/plain")
        .body(r#"{"query": "hi"}"#)
        .send()
        .await
        .expect("POST");
    expect_error(resp, 415, "content-type", "wrong content type").await;
    let huge = format!(r#"{{"query": "{}"}}"#, "b".repeat(200_000));
    let resp = client()
        .post(server.url("/api/debates"))
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .expect("POST");
    expect_error(resp, 413, "too large", "huge body").await;

    let list: Vec<Value> = get_json(&server, "/api/debates").await;
    assert!(list.is_empty(), "no debate was written: {list:?}");
}

#[tokio::test]
async fn unknown_ids_and_bad_cursors() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    for path in [
        "/api/debates/nope",
        "/api/debates/nope/events",
        "/api/debates/'%20OR%201=1--",
        "/api/nothing",
    ] {
        let resp = client().get(server.url(path)).send().await.expect("GET");
        expect_error(resp, 404, "no ", path).await;
    }
    let id = create(
        &server,
        serde_json::json!({"query": "What is 2 + 2?", "seed": 1}),
    )
    .await;
    for bad in ["-1", "abc", "1.5", "99999999999999999999999"] {
        let resp = client()
            .get(server.url(&format!("/api/debates/{id}/events")))
            .header("Last-Event-ID", bad)
            .send()
            .await
            .expect("GET");
        expect_error(resp, 400, "sequence number", bad).await;
        let resp = client()
            .get(server.url(&format!("/api/debates/{id}/events?after={bad}")))
            .send()
            .await
            .expect("GET");
        expect_error(resp, 400, "sequence number", bad).await;
    }
}
