//! The abuse limits against the real binary: one client address floods the server with
//! starts, requests and streams; it gets 429s with `Retry-After` and a JSON error, and another
//! address still starts a debate and watches it to its decision. Figures are printed, never
//! asserted as timings.

use std::time::Instant;

use crate::common::*;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread")]
async fn one_address_floods_another_still_starts_and_watches() {
    let (_guard, db) = temp_db();
    let server = Server::start_with(
        &db,
        100,
        &[
            ("CONSILIUM_MAX_DEBATES_PER_CLIENT", "2"),
            ("CONSILIUM_MAX_STREAMS_PER_CLIENT", "3"),
            ("CONSILIUM_RATE_LIMIT", "5"),
            ("CONSILIUM_RATE_BURST", "40"),
            // The flood below opens 300 connections at once; here the limits under test are the
            // answers' (429), not the connection cap's (slow_clients.rs).
            ("CONSILIUM_MAX_CONNECTIONS_PER_ADDRESS", "1000"),
        ],
    );
    let body = json!({"query": "Should we rotate the database credentials tonight?"});

    // Streams: a fourth live stream from one address is refused; the first three stay open.
    let viewer = client_from([127, 0, 0, 4]);
    let id = create(&server, body.clone()).await;
    let mut open = Vec::new();
    let mut refused_stream = None;
    for _ in 0..4 {
        let resp = viewer
            .get(server.url(&format!("/api/debates/{id}/events")))
            .send()
            .await
            .expect("GET events");
        if resp.status().as_u16() == 200 {
            open.push(resp);
        } else {
            refused_stream = Some((
                resp.status().as_u16(),
                resp.headers().clone(),
                resp.text().await.unwrap_or_default(),
            ));
        }
    }
    assert_eq!(open.len(), 3);
    let (status, headers, text) = refused_stream.expect("the fourth stream is refused");
    assert_eq!(status, 429, "{text}");
    assert!(headers.contains_key("retry-after"), "{headers:?}");
    assert!(text.contains("live streams open"), "{text}");
    drop(open);

    // The flood: 300 starts at once from 127.0.0.2.
    let flooder = client_from([127, 0, 0, 2]);
    let began = Instant::now();
    let tasks: Vec<_> = (0..300)
        .map(|_| {
            let (c, url, body) = (flooder.clone(), server.url("/api/debates"), body.clone());
            tokio::spawn(async move {
                let resp = c.post(url).json(&body).send().await.expect("POST");
                let status = resp.status().as_u16();
                let retry = resp.headers().contains_key("retry-after");
                let json: Value = resp.json().await.unwrap_or(Value::Null);
                (status, retry, json)
            })
        })
        .collect();
    let mut started = 0;
    let mut refused = 0;
    for t in tasks {
        let (status, retry, json) = t.await.expect("task");
        match status {
            201 => started += 1,
            429 => {
                refused += 1;
                assert!(retry, "429 without Retry-After: {json}");
                assert!(
                    json["error"].is_string(),
                    "429 without a JSON error: {json}"
                );
            }
            other => panic!("unexpected {other}: {json}"),
        }
    }
    let flood_ms = began.elapsed().as_millis();
    assert!(
        started <= 2,
        "at most 2 running debates per address, started {started}"
    );
    assert_eq!(started + refused, 300);

    // Meanwhile another address starts a debate and watches it to the end.
    let other = client_from([127, 0, 0, 3]);
    let t0 = Instant::now();
    let resp = other
        .post(server.url("/api/debates"))
        .json(&body)
        .send()
        .await
        .expect("POST");
    assert_eq!(resp.status().as_u16(), 201);
    let start_ms = t0.elapsed().as_millis();
    let created: Value = resp.json().await.expect("json");
    let theirs = created["id"].as_str().expect("id");
    let mut stream = other
        .get(server.url(&format!("/api/debates/{theirs}/events")))
        .send()
        .await
        .expect("events");
    assert_eq!(stream.status().as_u16(), 200);
    let mut text = String::new();
    while let Some(chunk) = stream.chunk().await.expect("chunk") {
        text.push_str(&String::from_utf8_lossy(&chunk));
        if text.contains("\"type\":\"decision\"") {
            break;
        }
    }
    assert!(
        text.contains("\"type\":\"decision\""),
        "watched to its decision"
    );
    let watch_ms = t0.elapsed().as_millis();
    println!(
        "flood: 300 starts from one address in {flood_ms} ms: {started} started, {refused} refused \
         with 429; another address started in {start_ms} ms and watched to the decision in \
         {watch_ms} ms"
    );
}

/// SV-12: `X-Forwarded-For` is believed from the trusted proxy's address only; a malformed hop
/// (`1.2.3.4:5678`, `unknown`) is never taken as the client, whose requests then count as the
/// proxy's own.
#[tokio::test(flavor = "multi_thread")]
async fn a_forwarded_address_counts_only_from_a_trusted_proxy_sv_12() {
    let (_guard, db) = temp_db();
    let server = Server::start_with(
        &db,
        300,
        &[
            ("CONSILIUM_TRUST_PROXY", "127.0.0.50"),
            ("CONSILIUM_MAX_STREAMS_PER_CLIENT", "1"),
        ],
    );
    let id = create(
        &server,
        json!({"query": "Should we rotate the database credentials tonight?"}),
    )
    .await;
    let proxy = client_from([127, 0, 0, 50]);
    let stranger = client_from([127, 0, 0, 51]);
    let url = server.url(&format!("/api/debates/{id}/events"));
    let mut held = Vec::new();
    let mut stream = async |from: &reqwest::Client, xff: &str| {
        let resp = from
            .get(&url)
            .header("x-forwarded-for", xff)
            .send()
            .await
            .expect("GET events");
        let status = resp.status().as_u16();
        held.push(resp);
        status
    };
    let cases = [
        ("a client behind the proxy", &proxy, "203.0.113.1", 200),
        (
            "the same client again: its one stream is open",
            &proxy,
            "198.51.100.7, 203.0.113.1",
            429,
        ),
        (
            "another client behind the proxy",
            &proxy,
            "203.0.113.2",
            200,
        ),
        (
            "a stranger claiming an address",
            &stranger,
            "203.0.113.3",
            200,
        ),
        (
            "the stranger claiming another: still the stranger",
            &stranger,
            "203.0.113.4",
            429,
        ),
        (
            "a hop with a port: the proxy's own",
            &proxy,
            "203.0.113.5, 1.2.3.4:5678",
            200,
        ),
        ("unknown: the proxy's own again", &proxy, "unknown", 429),
    ];
    for (what, from, xff, want) in cases {
        assert_eq!(stream(from, xff).await, want, "{what} ({xff})");
    }
}

/// SV-8: an address may start so many debates per UTC day without the start token or a judge's
/// sign-in (each is stored for good); then 429 until midnight, naming the flag. Another address,
/// and a judge from the same one, still start.
#[tokio::test(flavor = "multi_thread")]
async fn anonymous_starts_have_a_daily_quota_per_address() {
    let (_guard, db) = temp_db();
    let judge = add_judge(&db, "ada", "judge");
    let server = Server::start_with(&db, 0, &[("CONSILIUM_MAX_DAILY_DEBATES_PER_CLIENT", "2")]);
    let body = json!({"query": "Should we rotate the database credentials tonight?"});
    let start = async |from: &reqwest::Client, token: Option<&str>| {
        let mut req = from.post(server.url("/api/debates")).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await.expect("POST");
        let status = resp.status().as_u16();
        let retry = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let json: Value = resp.json().await.unwrap_or(Value::Null);
        (status, retry, json)
    };
    let busy = client_from([127, 0, 0, 70]);
    assert_eq!(start(&busy, None).await.0, 201);
    assert_eq!(start(&busy, None).await.0, 201);
    let (status, retry, json) = start(&busy, None).await;
    assert_eq!(status, 429, "{json}");
    let error = json["error"].as_str().expect("error");
    assert!(
        error.contains("started 2 debates today")
            && error.contains("--max-daily-debates-per-client"),
        "{error}"
    );
    assert!(
        retry.is_some_and(|s| (1..=86_400).contains(&s)),
        "{retry:?}"
    );
    assert_eq!(start(&client_from([127, 0, 0, 71]), None).await.0, 201);
    assert_eq!(
        start(&busy, Some(&judge)).await.0,
        201,
        "a judge is not counted"
    );
}
