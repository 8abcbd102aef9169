//! The escalation pipeline over the real HTTP/SSE surface of the real binary: a
//! challenge climbs the ladder on a scaled clock to a provisional decision, a judge's place is
//! taken and times out, an agreeing panel raises nothing, and every log verifies.

use std::time::Instant;

use crate::common::*;
use serde_json::{json, Value};

fn levels(events: &[Value]) -> Vec<u64> {
    of_type(events, "escalated")
        .iter()
        .map(|e| e["level"].as_u64().expect("level"))
        .collect()
}

/// ES-2…ES-6 with no judge configured: the margin dispute (seed 000's 25 % against 28 %) is
/// fought at level 1, the facilitator has no record to weigh (level 2), the queue has no judge
/// (level 3 overflows) and the cautious margin applies provisionally (level 4).
#[tokio::test]
async fn a_challenge_climbs_to_a_provisional_decision_es_2_to_es_6() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (id, events) = run_to_end(
        &server,
        json!({"query": "Should we buy Acme at $80 after its cost programme lifts margins?",
               "protocol": "escalation", "time_scale": 3600, "seed": 5}),
    )
    .await;
    assert_eq!(events[0]["protocol"], "escalation");
    assert_eq!(events[0]["config"]["escalation"]["time_scale"], 3600);
    // ES-1: the findings are typed messages with their assumption and value.
    let findings = of_type(&events, "message");
    assert!(findings.iter().any(|m| m["kind"] == "finding"
        && m["from"] == "financial"
        && m["content"]["assumption"] == "operating_margin"
        && m["content"]["value"] == 0.28));
    let raised = of_type(&events, "challenge_raised");
    assert_eq!(raised.len(), 1, "{raised:?}");
    let c = raised[0];
    assert_eq!(
        (&c["id"], &c["challenger"], &c["challenged"], &c["priority"]),
        (
            &json!("CH-001"),
            &json!("valuation"),
            &json!("financial"),
            &json!("critical-path")
        )
    );
    // Then, at the decision, the provisional value goes to the gate (level 5, ES-7).
    assert_eq!(levels(&events), [2, 3, 4, 5]);
    let provisional = of_type(&events, "provisional_decision");
    assert_eq!(provisional.len(), 1);
    assert_eq!(
        provisional[0]["position"], 0.25,
        "the lower margin is the cautious one"
    );
    assert_eq!(provisional[0]["provisional"], true);
    assert!(provisional[0]["rationale"]
        .as_str()
        .expect("why")
        .contains("lowest"));
    let decision = events.last().expect("events");
    assert_eq!(decision["type"], "decision");
    assert_eq!(decision["provisional"], json!(["CH-001"]));
    assert!(decision["results"]["target_price"].as_f64().expect("price") > 0.0);
    assert!(decision["reasoning"]
        .as_str()
        .expect("reasoning")
        .contains("1 provisional decision requires review"));
    // QL-1: the baseline is the pipeline on the first findings (the 28 % margin).
    assert!(
        decision["vote_baseline"]["decision"].is_string(),
        "{decision}"
    );

    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["protocol"], "escalation");
    assert_eq!(detail["status"], "finished");
    let html = client()
        .get(server.url(&format!("/debates/{id}")))
        .send()
        .await
        .expect("live page")
        .text()
        .await
        .expect("html");
    assert!(
        html.contains("Escalation ladder") && html.contains("CH-001"),
        "ladder shown"
    );
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok && out.contains("provisional"), "{out}");
}

/// ES-5 + ES-10: with a judge configured the challenge takes a place at the desk and waits six
/// pipeline hours — a quarter of a second at a day per second — then falls back (ES-6).
#[tokio::test]
async fn a_judge_holds_the_challenge_until_the_timer_es_5_es_10() {
    let (_dir, db) = temp_db();
    add_judge(&db, "ada", "judge");
    let server = Server::start(&db, 0);
    let began = Instant::now();
    let (_, events) = run_to_end(
        &server,
        json!({"query": "Buy Acme at $80? Its cost programme should lift margins.",
               "protocol": "escalation", "time_scale": 86400, "seed": 5}),
    )
    .await;
    let assigned = of_type(&events, "judge_assigned");
    assert_eq!(assigned.len(), 1, "{events:?}");
    assert_eq!(assigned[0]["judge"], "ada");
    let at = assigned[0]["at"].as_u64().expect("at");
    assert_eq!(assigned[0]["deadline"].as_u64(), Some(at + 6 * 3600));
    let fallback = of_type(&events, "escalated")
        .into_iter()
        .find(|e| e["level"] == 4)
        .expect("level 4");
    assert!(fallback["reason"]
        .as_str()
        .expect("reason")
        .contains("6 hours"));
    assert!(fallback["at"].as_u64().expect("at") >= at + 6 * 3600);
    assert!(
        began.elapsed().as_millis() >= 250,
        "six pipeline hours took real (scaled) time"
    );
}

/// SV-14: a debate waiting on a judge's timer holds no running place. With room for two running
/// debates, two escalations wait six pipeline hours (six seconds at an hour per second) with the
/// judge; a third debate starts and finishes meanwhile, and both waiting ones then come back
/// and reach their decisions.
#[tokio::test(flavor = "multi_thread")]
async fn debates_waiting_on_a_timer_hold_no_running_place_sv_14() {
    let (_dir, db) = temp_db();
    add_judge(&db, "ada", "judge");
    let server = Server::start_with(&db, 0, &[("CONSILIUM_MAX_DEBATES", "2")]);
    let ask = json!({"query": "Buy Acme at $80? Its cost programme should lift margins.",
                     "protocol": "escalation", "time_scale": 3600, "seed": 5});
    let waiting = [
        create(&server, ask.clone()).await,
        create(&server, ask).await,
    ];
    for id in &waiting {
        let mut assigned = false;
        for _ in 0..200 {
            let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
            let events = detail["events"].as_array().expect("events");
            if events.iter().any(|e| e["type"] == "judge_assigned") {
                assigned = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        assert!(assigned, "{id} waits with the judge");
    }
    let began = Instant::now();
    let (_, third) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "seed": 4}),
    )
    .await;
    assert_eq!(third.last().expect("events")["type"], "decision");
    assert!(
        began.elapsed().as_secs() < 5,
        "the third ran while the two waited"
    );
    for id in &waiting {
        let frames = read_sse(&server, id, None, "", usize::MAX).await;
        let last = &frames.last().expect("events").data;
        assert_eq!(last["type"], "decision", "{id} came back: {last}");
    }
}

/// A question with no cue for any specialist raises no challenge; the decision says so.
#[tokio::test]
async fn agreeing_specialists_raise_no_challenge() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (_, events) = run_to_end(
        &server,
        json!({"query": "Is Acme fairly valued at $80?", "protocol": "escalation", "seed": 1}),
    )
    .await;
    assert!(of_type(&events, "challenge_raised").is_empty());
    let decision = events.last().expect("decision");
    assert!(decision["reasoning"]
        .as_str()
        .expect("text")
        .contains("agreed on every assumption"));
    assert_eq!(decision["provisional"], json!([]));
}

/// Bad parameters are refused by name, never a 500.
#[tokio::test]
async fn bad_escalation_parameters_are_refused_by_name() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let cases = [
        (
            json!({"query": "q", "protocol": "escalation", "time_scale": 0}),
            "time_scale",
        ),
        (
            json!({"query": "q", "protocol": "escalation", "time_scale": 100000}),
            "time_scale",
        ),
        (
            json!({"query": "q", "protocol": "s4", "time_scale": 60}),
            "only the escalation",
        ),
        (
            json!({"query": "q", "protocol": "escalation", "config": {"speed": 2}}),
            "speed",
        ),
        (
            json!({"query": "q", "protocol": "escalation", "config": {"company": {"revenue_per_share": -1, "price": 80}}}),
            "company.revenue_per_share",
        ),
    ];
    for (body, needle) in cases {
        assert_refused(&server, &body, needle).await;
    }
}

/// ES-5 / SV-7: `GET /api/judge/queue` shows the desk to judges only — 401 with a JSON error
/// without a token, 403 for a viewer — with each judge's load and the held challenge.
#[tokio::test]
async fn the_judges_queue_is_for_judges_only_es_5() {
    let (_dir, db) = temp_db();
    let judge = add_judge(&db, "ada", "judge");
    let viewer = add_judge(&db, "vic", "viewer");
    let server = Server::start(&db, 0);
    let get = |token: Option<String>| {
        let server = &server;
        async move { call_as(server, "/api/judge/queue", token.as_deref(), None).await }
    };
    let (status, body) = get(None).await;
    assert_eq!(status, 401);
    assert!(body["error"]
        .as_str()
        .expect("error")
        .contains("only judges"));
    assert_eq!(get(Some(viewer)).await.0, 403);

    // An hour a second: the judge holds the challenge for six seconds.
    let id = create(
        &server,
        json!({"query": "Buy Acme at $80 after its cost programme lifts margins?",
               "protocol": "escalation", "time_scale": 3600, "seed": 5}),
    )
    .await;
    let mut held = Value::Null;
    for _ in 0..100 {
        let (status, q) = get(Some(judge.clone())).await;
        assert_eq!(status, 200, "{q}");
        if q["held"].as_array().is_some_and(|h| !h.is_empty()) {
            held = q;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(held["capacity"], 3, "{held}");
    assert_eq!(held["judges"], json!([{"name": "ada", "load": 1}]));
    assert_eq!(
        held["held"][0],
        json!({"debate": id, "challenge": "CH-001", "judge": "ada", "priority": "critical-path"})
    );
    // After the timer the place is given back.
    let frames = read_sse(&server, &id, None, "", usize::MAX).await;
    assert_eq!(frames.last().expect("frames").data["type"], "decision");
    let (_, q) = get(Some(judge)).await;
    assert_eq!(q["held"], json!([]), "{q}");
    assert_eq!(q["judges"], json!([{"name": "ada", "load": 0}]));
}

/// ES-5/ES-7 + SV-7: a judge rules on the challenge it holds; the ruling is logged naming the
/// judge, resolves the challenge at level 3 with the judge's value, the analyses use it, and
/// verify checks the resolution against the ruling. Everyone else is refused by name.
#[tokio::test]
async fn a_judge_rules_on_a_held_challenge_es_7() {
    let (_dir, db) = temp_db();
    let judge = add_judge(&db, "ada", "judge");
    let viewer = add_judge(&db, "vic", "viewer");
    let server = Server::start(&db, 0);
    // A minute a second: the judge's six hours would take six minutes.
    let id = create(
        &server,
        json!({"query": "Buy Acme at $80 after its cost programme lifts margins?",
               "protocol": "escalation", "time_scale": 60, "seed": 5}),
    )
    .await;
    let post = |path: String, token: Option<String>, body: Value| {
        let server = &server;
        async move { call_as(server, &path, token.as_deref(), Some(&body)).await }
    };
    let ruling = format!("/api/debates/{id}/challenges/CH-001/ruling");
    // Wait until the desk gives the challenge to ada.
    for _ in 0..100 {
        let (_, q) = call_as(&server, "/api/judge/queue", Some(&judge), None).await;
        if q["held"].as_array().is_some_and(|h| !h.is_empty()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let good = json!({"action": "override", "value": 0.265, "rationale": "guidance says 26-27 %"});
    let refused = [
        (None, good.clone(), 401, "only judges"),
        (Some(viewer.clone()), good.clone(), 403, "viewer"),
        (
            Some(judge.clone()),
            json!({"action": "override", "value": 3.0, "rationale": "x"}),
            400,
            "outside",
        ),
        (
            Some(judge.clone()),
            json!({"action": "override", "value": 0.26, "rationale": " "}),
            400,
            "rationale",
        ),
        (
            Some(judge.clone()),
            json!({"action": "shrug"}),
            400,
            "action",
        ),
        (
            Some(judge.clone()),
            json!({"action": "confirm"}),
            409,
            "no provisional decision",
        ),
    ];
    for (token, body, status, needle) in refused {
        let (got, v) = post(ruling.clone(), token, body.clone()).await;
        assert_eq!(got, status, "{body}: {v}");
        assert!(
            v["error"].as_str().expect("error").contains(needle),
            "{body}: {v}"
        );
    }
    let (status, v) = post(
        format!("/api/debates/{id}/challenges/CH-009/ruling"),
        Some(judge.clone()),
        good.clone(),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    let (status, v) = post(ruling.clone(), Some(judge.clone()), good.clone()).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v, json!({"id": id, "challenge": "CH-001", "judge": "ada"}));

    let frames = read_sse(&server, &id, None, "", usize::MAX).await;
    let events: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    let rulings = of_type(&events, "judge_ruling");
    assert_eq!(rulings.len(), 1);
    let r = rulings[0];
    assert_eq!(
        (&r["judge"], &r["level"], &r["action"], &r["value"]),
        (&json!("ada"), &json!(3), &json!("override"), &json!(0.265))
    );
    let resolved = of_type(&events, "challenge_resolved");
    assert_eq!(resolved[0]["position"], 0.265);
    assert_eq!(resolved[0]["method"], "ruled by judge ada");
    let decision = events.last().expect("events");
    assert_eq!(decision["type"], "decision");
    assert_eq!(decision["provisional"], json!([]));
    assert!(decision["assumptions"]
        .as_array()
        .expect("assumptions")
        .contains(&json!(["operating_margin", 0.265])));
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "{out}");
    // The debate has ended: a late ruling is a conflict, and the place is given back.
    let (status, v) = post(ruling, Some(judge), good).await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"].as_str().expect("error").contains("has ended"),
        "{v}"
    );
}
