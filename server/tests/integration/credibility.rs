//! The track record against the real binary and a real database (SQLite, or PostgreSQL with
//! `CONSILIUM_TEST_DB`): finished debates record predictions, judges append outcomes, the record
//! is imported all-or-nothing, the numbers served equal the pure CR-1 function's, every debate
//! logs its credibility snapshot (CR-4), and verify recomputes the credibility-weighted what-if.

use crate::common::*;
use app::protocol::credibility::{self, ContextTags, CrParams, Point};
use app::protocol::time;
use serde_json::{json, Value};

/// `(status, JSON body)` of a POST with an optional bearer token.
async fn post(server: &Server, path: &str, bearer: Option<&str>, body: Value) -> (u16, Value) {
    call_as(server, path, bearer, Some(&body)).await
}

fn prediction_of<'a>(rows: &'a Value, agent: &str) -> &'a Value {
    rows.as_array()
        .expect("rows")
        .iter()
        .find(|r| r["agent"] == agent)
        .unwrap_or_else(|| panic!("no prediction of {agent} in {rows}"))
}

/// The id of the safety agent's prediction in debate `d`.
async fn safety_prediction(server: &Server, d: &str) -> String {
    let rows: Value = get_json(server, &format!("/api/debates/{d}/predictions")).await;
    prediction_of(&rows, "safety")["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn finished_debates_record_predictions_and_judges_append_outcomes_cr_1_cr_2() {
    let (_guard, db) = temp_db();
    let ada = add_judge(&db, "ada", "judge");
    let vic = add_judge(&db, "vic", "viewer");
    let server = Server::start(&db, 0);

    let mut debates = Vec::new();
    for i in 0..6 {
        let body = json!({
            "query": format!("Should we roll out release {i} of the billing service to every region tonight?"),
            "seed": 40 + i,
            "context": {"regime": "bull", "sector": " payments "},
        });
        let (id, events) = run_to_end(&server, body).await;
        // debate_started names each agent's identity and the context; the snapshot follows it.
        let agents = events[0]["agents"].as_array().expect("agents");
        assert_eq!(agents[0]["identity"], "builtin:utility", "{}", events[0]);
        assert_eq!(
            events[0]["context"],
            json!({"regime": "bull", "sector": "payments"})
        );
        assert_eq!(events[1]["type"], "credibility", "{}", events[1]);
        debates.push(id);
    }

    // Every finished debate holds one prediction per agent, with the request's context.
    let rows: Value = get_json(&server, &format!("/api/debates/{}/predictions", debates[0])).await;
    assert_eq!(rows.as_array().map(Vec::len), Some(3), "{rows}");
    let safety = prediction_of(&rows, "safety");
    assert_eq!(safety["identity"], "builtin:safety");
    assert_eq!(safety["tags"]["regime"], "bull");
    assert!(safety["outcome"].is_null(), "no outcome yet: {safety}");
    assert!(
        ["ACT", "WARN", "REFUSE", "VETO"].contains(&safety["held"].as_str().unwrap_or("")),
        "{safety}"
    );

    // Only judges append outcomes; bad bodies and unknown predictions are named.
    let id = safety["id"].as_str().expect("id").to_owned();
    let path = format!("/api/predictions/{id}/outcome");
    let (s, body) = post(&server, &path, None, json!({"correct": true})).await;
    assert_eq!(s, 401, "{body}");
    let (s, body) = post(&server, &path, Some(&vic), json!({"correct": true})).await;
    assert_eq!(s, 403, "{body}");
    let (s, body) = post(&server, &path, Some(&ada), json!({})).await;
    assert_eq!(s, 400);
    assert!(
        body["error"].as_str().unwrap_or("").contains("exactly one"),
        "{body}"
    );
    let (s, body) = post(&server, &path, Some(&ada), json!({"actual": 3.5})).await;
    assert_eq!(s, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("no numeric claim"),
        "{body}"
    );
    let (s, body) = post(&server, &path, Some(&ada), json!({"ruling": "maybe"})).await;
    assert_eq!(s, 400, "{body}");
    let (s, body) = post(
        &server,
        &path,
        Some(&ada),
        json!({"correct": true, "bogus": 1}),
    )
    .await;
    assert_eq!(s, 400, "{body}");
    let (s, body) = post(
        &server,
        "/api/predictions/pnope/outcome",
        Some(&ada),
        json!({"correct": true}),
    )
    .await;
    assert_eq!(s, 404, "{body}");

    // Before five outcomes: insufficient data, never a number.
    let agents: Value = get_json(&server, "/api/agents").await;
    let row = agents
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["identity"] == "builtin:safety")
        .expect("safety row")
        .clone();
    assert_eq!(
        row["credibility"],
        json!({"score": null, "low": null, "high": null, "points": 0, "status": "insufficient_data"})
    );

    // Outcomes for safety in all six debates: 4 right, 1 wrong, 1 overridden — and a correction.
    let verdicts = [
        json!({"correct": true}),
        json!({"correct": true}),
        json!({"correct": false}),
        json!({"correct": true}),
        json!({"ruling": "overridden", "note": "the judge disagreed"}),
        json!({"correct": false}),
    ];
    for (d, v) in debates.iter().zip(&verdicts) {
        let pid = safety_prediction(&server, d).await;
        let (s, body) = post(
            &server,
            &format!("/api/predictions/{pid}/outcome"),
            Some(&ada),
            v.clone(),
        )
        .await;
        assert_eq!(s, 201, "{body}");
        assert_eq!(body["outcome"]["recorded_by"], "judge:ada", "{body}");
    }
    // The last one was wrong after all: appended, and the latest counts.
    let pid = safety_prediction(&server, &debates[5]).await;
    let (s, body) = post(
        &server,
        &format!("/api/predictions/{pid}/outcome"),
        Some(&ada),
        json!({"correct": true}),
    )
    .await;
    assert_eq!(
        (s, body["outcome"]["correct"].clone()),
        (201, json!(true)),
        "{body}"
    );

    // The served numbers are the pure function's on the same record.
    let detail: Value = get_json(&server, "/api/agents/builtin:safety").await;
    let c = &detail["credibility"];
    assert_eq!(
        (c["status"].as_str(), c["points"].as_u64()),
        (Some("ok"), Some(6)),
        "{detail}"
    );
    let points: Vec<Point> = detail["recent"]
        .as_array()
        .expect("recent")
        .iter()
        .filter(|p| !p["outcome"].is_null())
        .map(|p| Point {
            at: time::days(p["made_at"].as_str().expect("made_at")).expect("time"),
            correct: p["outcome"]["correct"] == true,
            overridden: p["outcome"]["overridden"] == true,
            tags: serde_json::from_value(p["tags"].clone()).expect("tags"),
        })
        .collect();
    assert_eq!(points.iter().filter(|p| p.correct).count(), 4);
    assert_eq!(points.iter().filter(|p| p.overridden).count(), 1);
    let now = time::days(detail["as_of"].as_str().expect("as_of")).expect("now");
    let pure =
        credibility::credibility(&points, now, &ContextTags::default(), &CrParams::default());
    let served = c["score"].as_f64().expect("score");
    assert!(
        (served - pure.credibility.score.expect("score")).abs() < 1e-9,
        "{served} vs {pure:?}"
    );
    assert!(
        c["low"].as_f64() < Some(served) && c["high"].as_f64() > Some(served),
        "{c}"
    );
    assert_eq!(
        detail["breakdown"]["override_rate"]
            .as_f64()
            .map(|r| (r * 6.0).round()),
        Some(1.0)
    );

    // The next debate logs that credibility in its snapshot, and says the panel's independence
    // cannot be told yet (utility and accuracy have no outcomes).
    let (_, events) = run_to_end(
        &server,
        json!({"query": "Ship the new checkout page today?", "seed": 3}),
    )
    .await;
    let snap = &events[1];
    let logged = snap["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["agent"] == "safety")
        .expect("safety")
        .clone();
    let logged_score = logged["credibility"]["score"].as_f64().expect("a score");
    assert!((logged_score - served).abs() < 0.01, "{logged} vs {served}");
    assert!(
        snap["effective"]["note"]
            .as_str()
            .unwrap_or("")
            .contains("cannot yet tell"),
        "{snap}"
    );

    // An unknown agent is a 404 that names it; a malformed identity a 400.
    let resp = client()
        .get(server.url("/api/agents/builtin:nobody"))
        .send()
        .await
        .expect("GET");
    assert_eq!(resp.status().as_u16(), 404);
    let resp = client()
        .get(server.url("/api/agents/a%20b"))
        .send()
        .await
        .expect("GET");
    assert_eq!(resp.status().as_u16(), 400);
}

#[tokio::test(flavor = "multi_thread")]
async fn track_record_import_checks_every_line_and_is_all_or_nothing() {
    let (guard, db) = temp_db();
    let good = |i: usize| {
        json!({
            "identity": "openai:qwen2.5-7b:safety",
            "held": "WARN",
            "confidence": 0.8,
            "made_at": format!("2026-0{}-01T12:00:00Z", 1 + i % 9),
            "debate": format!("q-{i}"),
            "claim": 40.0,
            "context": {"regime": "bear"},
            "outcome": {"actual": if i.is_multiple_of(3) { 50.0 } else { 41.0 }},
        })
        .to_string()
    };
    let mut lines: Vec<String> = (0..8).map(good).collect();
    lines[2] = r#"{"identity": "openai:qwen2.5-7b:safety", "held": "WARN", "confidence": 1.2, "made_at": "2026-01-01T00:00:00Z"}"#.into();
    lines[5] =
        r#"{"identity": "x", "held": "WARN", "confidence": 0.5, "made_at": "yesterday"}"#.into();
    let file = guard.path().join("record.jsonl");
    std::fs::write(&file, lines.join("\n")).expect("write");
    let (ok, out) = cli_on(
        &db,
        &["track-record", "import", file.to_str().expect("path")],
    );
    assert!(!ok, "{out}");
    assert!(out.contains("nothing was imported"), "{out}");
    assert!(
        out.contains("line 3: confidence: must be from 0 to 1, got 1.2"),
        "{out}"
    );
    assert!(out.contains("line 6: made_at"), "{out}");
    let (ok, out) = cli_on(&db, &["track-record", "import", "/no/such/file.jsonl"]);
    assert!(!ok && out.contains("cannot read"), "{out}");

    // Fixed, it goes in whole: 8 predictions, numeric claims judged within 10 %.
    lines[2] = good(2);
    lines[5] = good(5);
    std::fs::write(&file, lines.join("\n") + "\n\n").expect("write");
    let (ok, out) = cli_on(
        &db,
        &["track-record", "import", file.to_str().expect("path")],
    );
    assert!(ok, "{out}");
    assert!(out.contains("8 predictions, 8 with outcomes"), "{out}");
    let (ok, out) = cli_on(&db, &["track-record", "import", "--sample"]);
    assert!(ok && out.contains("sample"), "{out}");

    let server = Server::start(&db, 0);
    let detail: Value = get_json(&server, "/api/agents/openai:qwen2.5-7b:safety").await;
    assert_eq!(detail["credibility"]["points"], 8, "{detail}");
    // 50 against a claim of 40 is wrong (25 % off), 41 is right: 3 of 8 wrong.
    let wrong = detail["recent"]
        .as_array()
        .expect("recent")
        .iter()
        .filter(|p| p["outcome"]["correct"] == false)
        .count();
    assert_eq!(wrong, 3);
    assert_eq!(
        detail["recent"][0]["outcome"]["recorded_by"],
        "import:record.jsonl"
    );
    let agents: Value = get_json(&server, "/api/agents").await;
    let safety = agents
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["identity"] == "builtin:safety")
        .expect("sample safety")
        .clone();
    assert_eq!(safety["sample"], true, "{safety}");
    assert_eq!(safety["credibility"]["status"], "ok", "{safety}");
    assert_eq!(safety["predictions"], 60);
}

#[tokio::test(flavor = "multi_thread")]
async fn verify_recomputes_the_credibility_weighted_what_if_from_the_log_cr_4() {
    let (guard, db) = temp_db();
    let (ok, out) = cli_on(&db, &["track-record", "import", "--sample"]);
    assert!(ok, "{out}");
    let server = Server::start(&db, 0);
    let (id, events) = run_to_end(
        &server,
        json!({"query": "Should we enable the new fraud rules for all merchants?", "seed": 11}),
    )
    .await;
    let snap = &events[1];
    assert_eq!(snap["type"], "credibility");
    // The sample record makes utility and accuracy err together: fewer than 3 independent votes.
    let effective = snap["effective"]["effective"]
        .as_f64()
        .expect("effective votes");
    assert!((1.0..2.9).contains(&effective), "{snap}");
    let export = guard.path().join("export.json");
    let bytes = client()
        .get(server.url(&format!("/api/debates/{id}/export.json")))
        .send()
        .await
        .expect("GET")
        .bytes()
        .await
        .expect("body");
    std::fs::write(&export, &bytes).expect("write");
    let (ok, first) = verify(export.to_str().expect("path"));
    assert!(ok, "{first}");
    assert!(
        first.contains("credibility-weighted what-if (weights Utility Agent 0."),
        "{first}"
    );
    assert!(first.contains("effective votes: 3 votes ≈"), "{first}");
    // The record grows; the log's numbers do not move.
    let (ok, out) = cli_on(&db, &["track-record", "import", "--sample"]);
    assert!(ok, "{out}");
    let agents: Value = get_json(&server, "/api/agents").await;
    let now = agents
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["identity"] == "builtin:safety")
        .expect("safety")["credibility"]
        .clone();
    let then = snap["agents"][2]["credibility"].clone();
    let width = |c: &Value| c["high"].as_f64().expect("high") - c["low"].as_f64().expect("low");
    assert!(
        width(&now) < width(&then),
        "twice the record, a narrower interval: {now} vs {then}"
    );
    let (ok, again) = verify(export.to_str().expect("path"));
    assert!(ok && again == first, "{again}");
}
