//! L5, the gate (ES-7, ES-8), over the real HTTP/SSE surface of the real binary: a pipeline
//! ends with a provisional decision, a judge signs up afterwards and overrides it; the ruling,
//! its impact, the re-runs and a new decision are appended to the ended log, which still
//! verifies and is signed again. Everyone else is refused by name.

use crate::common::*;
use serde_json::{json, Value};

async fn post(server: &Server, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    call_as(server, path, token, Some(body)).await
}

/// Seed 000's pipeline: with no judge yet, the margin dispute falls back to the cautious 25 %
/// (ES-6) and the pipeline decides with CH-001 provisional.
fn margin_pipeline() -> Value {
    json!({"query": "Should we buy Acme at $80 after its cost programme lifts margins?",
           "protocol": "escalation", "time_scale": 3600, "seed": 5})
}

/// Runs [`margin_pipeline`] to its decision: its id and events.
async fn decided_with_a_provisional_margin(server: &Server) -> (String, Vec<Value>) {
    let (id, before) = run_to_end(server, margin_pipeline()).await;
    assert_eq!(
        before.last().expect("decision")["provisional"],
        json!(["CH-001"])
    );
    (id, before)
}

#[tokio::test]
async fn a_judge_overrides_a_provisional_decision_at_the_gate_es_7_es_8() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (id, before) = decided_with_a_provisional_margin(&server).await;
    let first = before.last().expect("decision").clone();
    let judge = add_judge(&db, "ada", "judge");
    let viewer = add_judge(&db, "vic", "viewer");
    let path = format!("/api/debates/{id}/challenges/CH-001/ruling");
    let good = json!({"action": "override", "value": 0.28,
                      "rationale": "the cost programme is contracted"});
    let refused = [
        (None, good.clone(), 401, "only judges"),
        (Some(viewer.as_str()), good.clone(), 403, "viewer"),
        (
            Some(judge.as_str()),
            json!({"action": "redebate", "context": " "}),
            400,
            "context",
        ),
        (
            Some(judge.as_str()),
            json!({"action": "override", "value": 0.28, "rationale": ""}),
            400,
            "rationale",
        ),
    ];
    for (token, body, status, needle) in refused {
        let (got, v) = post(&server, &path, token, &body).await;
        assert_eq!(got, status, "{body}: {v}");
        assert!(
            v["error"].as_str().expect("error").contains(needle),
            "{body}: {v}"
        );
    }
    let unchanged: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(
        unchanged["events"].as_array().expect("events").len(),
        before.len(),
        "refusals write nothing"
    );

    let (status, v) = post(&server, &path, Some(&judge), &good).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v, json!({"id": id, "challenge": "CH-001", "judge": "ada"}));

    // The ended log goes on after its decision, gap-free, and ends with the new decision; the
    // stream of an ended debate sends all of it (past the first decision), then ends.
    let mut stream = SseStream::open(&server, &id, None, "").await;
    let mut frames = Vec::new();
    while let Some(f) = stream.next().await {
        frames.push(f);
    }
    let events: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(seqs(&frames), (1..=events.len() as u64).collect::<Vec<_>>());
    assert_eq!(
        &events[..before.len()],
        &before[..],
        "nothing before changed"
    );
    let gate = &events[before.len()..];
    let kinds: Vec<&str> = gate
        .iter()
        .map(|e| e["type"].as_str().expect("type"))
        .collect();
    assert_eq!(
        &kinds[..3],
        ["judge_ruling", "challenge_resolved", "impact"],
        "{kinds:?}"
    );
    assert_eq!(kinds.last(), Some(&"decision"));
    let ruling = gate[0].clone();
    assert_eq!(
        (
            &ruling["judge"],
            &ruling["level"],
            &ruling["action"],
            &ruling["value"]
        ),
        (&json!("ada"), &json!(5), &json!("override"), &json!(0.28))
    );
    assert_eq!(
        (&gate[1]["level"], &gate[1]["method"], &gate[1]["position"]),
        (&json!(5), &json!("overridden by judge ada"), &json!(0.28))
    );
    // ES-8, seed 000's example: 25 % → 28 % moves the DCF target by more than 10 %.
    let impact = &gate[2];
    let dcf = impact["impacts"]
        .as_array()
        .expect("impacts")
        .iter()
        .find(|i| i["analysis"] == "dcf")
        .expect("dcf");
    assert_eq!(dcf["requires_rerun"], true, "{impact}");
    assert!(dcf["delta"].as_f64().expect("delta") > 0.10);
    let reruns: Vec<&Value> = gate
        .iter()
        .filter(|e| e["type"] == "analysis")
        .map(|e| &e["rerun"])
        .collect();
    let batches: Vec<&Value> = impact["plan"]["batches"]
        .as_array()
        .expect("batches")
        .iter()
        .collect();
    assert_eq!(reruns, batches, "each batch of the plan re-ran");
    let decision = gate.last().expect("decision");
    assert_eq!(decision["provisional"], json!([]));
    assert!(decision["assumptions"]
        .as_array()
        .expect("assumptions")
        .contains(&json!(["operating_margin", 0.28])));
    assert!(
        decision["results"]["target_price"].as_f64() > first["results"]["target_price"].as_f64(),
        "a higher margin raises the target"
    );
    // QL-1 against the new decision: the plain vote of the first findings (BUY, at 28 %) was
    // overturned by the provisional 25 %; the override restores it.
    assert_eq!(first["vote_baseline"]["changed_outcome"], true, "{first}");
    assert_eq!(
        decision["vote_baseline"]["decision"],
        first["vote_baseline"]["decision"]
    );
    assert_eq!(
        decision["vote_baseline"]["changed_outcome"], false,
        "{decision}"
    );

    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["status"], "finished");
    assert_eq!(detail["events"].as_array().expect("events"), &events);
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "the longer log verifies: {out}");

    // Reviewed once: a second review is a conflict, and writes nothing.
    let (status, v) = post(&server, &path, Some(&judge), &json!({"action": "confirm"})).await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]
            .as_str()
            .expect("error")
            .contains("already resolved"),
        "{v}"
    );
    let after: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(
        after["events"].as_array().expect("events").len(),
        events.len()
    );
}

/// ES-7 at the gate: a judge sends a decided pipeline back to its agents with added context.
/// The debate is `running` again from the ruling's commit; the builtin agents are asked again
/// (the challenged one sees the context), the challenge settles at level 1, and a new decision
/// ends the log, which verifies. A second re-debate of the settled challenge is a conflict.
#[tokio::test]
async fn a_judge_sends_a_decided_pipeline_back_to_its_agents_es_7() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (id, before) = decided_with_a_provisional_margin(&server).await;
    let judge = add_judge(&db, "ada", "judge");
    let path = format!("/api/debates/{id}/challenges/CH-001/ruling");
    let context = "the supply contract fixes the margin at 26%";
    let (status, v) = post(
        &server,
        &path,
        Some(&judge),
        &json!({"action": "redebate", "context": context}),
    )
    .await;
    assert_eq!(status, 200, "{v}");

    // The stream follows the run to its new end.
    let cursor = before.len().to_string();
    let mut stream = SseStream::open(&server, &id, Some(&cursor), "").await;
    let mut gate = Vec::new();
    while let Some(f) = stream.next().await {
        gate.push(f.data.clone());
        if f.data["type"] == "decision" {
            break;
        }
    }
    let kinds: Vec<&str> = gate
        .iter()
        .map(|e| e["type"].as_str().expect("type"))
        .collect();
    assert_eq!(kinds.first(), Some(&"judge_ruling"), "{kinds:?}");
    assert_eq!(
        (&gate[0]["level"], &gate[0]["action"], &gate[0]["context"]),
        (&json!(5), &json!("redebate"), &json!(context))
    );
    assert!(
        kinds.contains(&"thinking"),
        "the agents are asked again: {kinds:?}"
    );
    let resolved = gate
        .iter()
        .find(|e| e["type"] == "challenge_resolved")
        .expect("resolved");
    assert_eq!(
        (&resolved["level"], &resolved["position"]),
        (&json!(1), &json!(0.26)),
        "{resolved}"
    );
    let decision = gate.last().expect("decision");
    assert_eq!(decision["type"], "decision");
    assert_eq!(decision["provisional"], json!([]));
    assert!(decision["assumptions"]
        .as_array()
        .expect("assumptions")
        .contains(&json!(["operating_margin", 0.26])));

    let mut detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    for _ in 0..100 {
        if detail["status"] == "finished" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        detail = get_json(&server, &format!("/api/debates/{id}")).await;
    }
    assert_eq!(detail["status"], "finished");
    let events = detail["events"].as_array().expect("events");
    assert_eq!(
        &events[..before.len()],
        &before[..],
        "nothing before changed"
    );
    assert_eq!(&events[before.len()..], &gate[..]);
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "the reopened log verifies: {out}");

    let (status, v) = post(
        &server,
        &path,
        Some(&judge),
        &json!({"action": "redebate", "context": "again"}),
    )
    .await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]
            .as_str()
            .expect("error")
            .contains("already resolved"),
        "{v}"
    );
}

/// UI-4 + SV-7: `GET /api/judge/desk` lists the provisional decision awaiting review at the
/// gate, with both positions and the impact of the other; 401 without a token, 403 for a
/// viewer. Once reviewed, the case leaves the desk and becomes a precedent.
#[tokio::test]
async fn the_desk_lists_what_waits_at_the_gate_ui_4() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (first, _) = run_to_end(&server, margin_pipeline()).await;
    let (second, _) = run_to_end(&server, margin_pipeline()).await;
    let judge = add_judge(&db, "ada", "judge");
    let viewer = add_judge(&db, "vic", "viewer");
    let desk = |token: Option<String>| {
        let server = &server;
        async move { call_as(server, "/api/judge/desk", token.as_deref(), None).await }
    };
    let (status, v) = desk(None).await;
    assert_eq!(status, 401, "{v}");
    let (status, v) = desk(Some(viewer)).await;
    assert_eq!(status, 403, "{v}");

    let (status, d) = desk(Some(judge.clone())).await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["judges"], json!([{"name": "ada", "load": 0}]));
    let cases = d["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 2, "{d}");
    let c = cases
        .iter()
        .find(|c| c["debate"] == first.as_str())
        .expect("first");
    assert_eq!(c["kind"], "gate");
    assert_eq!(c["challenge"]["challenge"]["id"], "CH-001");
    let sides: Vec<(&Value, &Value, &Value)> = c["sides"]
        .as_array()
        .expect("sides")
        .iter()
        .map(|s| (&s["agent"], &s["value"], &s["applied"]))
        .collect();
    assert_eq!(
        sides,
        [
            (&json!("valuation"), &json!(0.25), &json!(true)),
            (&json!("financial"), &json!(0.28), &json!(false))
        ]
    );
    assert_eq!(c["impact"]["new_value"], 0.28);
    assert!(c["time_left"].as_str().expect("left").ends_with("left"));

    let path = format!("/api/debates/{first}/challenges/CH-001/ruling");
    let (status, v) = post(&server, &path, Some(&judge), &json!({"action": "confirm"})).await;
    assert_eq!(status, 200, "{v}");
    let (_, d) = desk(Some(judge)).await;
    let cases = d["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 1, "the reviewed case left the desk: {d}");
    assert_eq!(cases[0]["debate"], second.as_str());
    assert_eq!(
        cases[0]["precedents"],
        json!([{"debate": first, "challenge": "CH-001", "assumption": "operating_margin",
                "value": 0.25, "shown": "25.0 %", "method": "confirmed by judge ada"}])
    );
}

/// ES-12 + SV-7: a collapse debate the rules escalate to a human waits on the desk; a judge's
/// `POST /api/debates/{id}/decision` appends `human_decision` and the judge's `decision`, which
/// verify recomputes; viewers, unknown positions, a second decision and other debates are
/// refused by name.
#[tokio::test]
async fn a_judge_decides_a_collapse_debate_escalated_to_a_human_es_12() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (id, before) = run_to_end(
        &server,
        json!({"query": "Disable authentication on the internal admin API to speed up debugging",
               "protocol": "collapse", "seed": 4}),
    )
    .await;
    let first = before.last().expect("decision");
    assert_eq!(first["outcome"], "ESCALATED_TO_HUMAN", "{first}");
    let judge = add_judge(&db, "ada", "judge");
    let viewer = add_judge(&db, "vic", "viewer");
    let (_, d) = call_as(&server, "/api/judge/desk", Some(&judge), None).await;
    assert_eq!(d["escalated"][0]["debate"], id.as_str(), "{d}");
    let chosen = of_type(&before, "card_submitted")[0]["position"]
        .as_str()
        .expect("position")
        .to_owned();
    let path = format!("/api/debates/{id}/decision");
    let good = json!({"chosen": chosen, "rationale": "keep auth; debug with a scoped token"});
    let refused = [
        (None, good.clone(), 401, "only judges"),
        (Some(viewer.as_str()), good.clone(), 403, "viewer"),
        (
            Some(judge.as_str()),
            json!({"chosen": "ghost", "rationale": "x"}),
            400,
            "no position 'ghost'",
        ),
        (
            Some(judge.as_str()),
            json!({"chosen": chosen, "rationale": " "}),
            400,
            "rationale",
        ),
        (
            Some(judge.as_str()),
            json!({"chosen": chosen}),
            400,
            "rationale",
        ),
    ];
    for (token, body, status, needle) in refused {
        let (got, v) = post(&server, &path, token, &body).await;
        assert_eq!(got, status, "{body}: {v}");
        assert!(
            v["error"].as_str().expect("error").contains(needle),
            "{body}: {v}"
        );
    }
    let (status, v) = post(&server, &path, Some(&judge), &good).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v, json!({"id": id, "chosen": chosen, "judge": "ada"}));
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    let events = detail["events"].as_array().expect("events");
    let kinds: Vec<&str> = events[before.len()..]
        .iter()
        .map(|e| e["type"].as_str().expect("type"))
        .collect();
    assert_eq!(kinds, ["human_decision", "decision"]);
    let last = events.last().expect("decision");
    assert_eq!(
        (&last["outcome"], &last["chosen"]),
        (&json!("DECIDED_BY_JUDGE"), &json!(chosen))
    );
    assert_eq!(detail["status"], "finished");
    assert_eq!(detail["decision"], "DECIDED_BY_JUDGE");
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "{out}");
    let (status, v) = post(&server, &path, Some(&judge), &good).await;
    assert_eq!(status, 409, "decided once: {v}");
    // Not for other protocols.
    let (other, _) = run_to_end(&server, json!({"query": "Is the sky blue?", "seed": 1})).await;
    let (status, v) = post(
        &server,
        &format!("/api/debates/{other}/decision"),
        Some(&judge),
        &good,
    )
    .await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"].as_str().expect("error").contains("s4 debate"),
        "{v}"
    );
}
