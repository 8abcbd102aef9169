//! ES-11 through the real binary with a fake model that reports its tokens: with a judge
//! configured, a spent budget pauses the debate instead of stopping it; the desk lists it; a
//! judge's grant resumes it where it stopped, or a close ends it with the cautious decision; every
//! log verifies.

use std::time::Duration;

use crate::common::*;
use serde_json::{json, Value};

async fn desk(server: &Server, token: &str) -> Value {
    let (status, desk) = call_as(server, "/api/judge/desk", Some(token), None).await;
    assert_eq!(status, 200, "{desk}");
    desk
}

/// Waits until debate `id` is listed on the desk as awaiting budget approval.
async fn paused_on_desk(server: &Server, token: &str, id: &str) -> Value {
    for _ in 0..400 {
        let d = desk(server, token).await;
        if let Some(p) = d["paused"]
            .as_array()
            .and_then(|p| p.iter().find(|p| p["debate"] == id))
        {
            return p.clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("debate {id} never paused");
}

async fn budget(server: &Server, id: &str, token: Option<&str>, body: Value) -> (u16, Value) {
    call_as(
        server,
        &format!("/api/debates/{id}/budget"),
        token,
        Some(&body),
    )
    .await
}

/// A server whose model costs 400 + 100 tokens a call, with judge "ada" (returned: her token);
/// and a request whose budget of 1,200 tokens is spent after three calls.
async fn pausing(db: &TestDb) -> (Server, String, Value) {
    let fakes = start_fakes(Fake {
        tokens_per_call: 400,
        ..Fake::default()
    })
    .await;
    let judge = add_judge(db, "ada", "judge");
    let server = server_for(db, &fakes, "1000000");
    let ask = json!({"query": "Should we ship the release tonight?", "backend": "openai",
                     "seed": 3, "token_budget": 1200});
    (server, judge, ask)
}

#[tokio::test]
async fn a_spent_budget_waits_for_a_judge_es_11() {
    let (_dir, db) = temp_db();
    let (server, judge, ask) = pausing(&db).await;
    let viewer = add_judge(&db, "vic", "viewer");

    // Each call costs 400 + 100 tokens: after three the budget is spent, and it waits.
    let id = create(&server, ask.clone()).await;
    let paused = paused_on_desk(&server, &judge, &id).await;
    assert_eq!(paused["budget"], 1200);
    assert_eq!(paused["used"], 1500);
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["status"], "running", "paused, not stopped");
    assert_eq!(
        detail["events"]
            .as_array()
            .expect("events")
            .last()
            .expect("last")["type"],
        "budget_paused"
    );
    let refused = [
        (
            None,
            json!({"action": "grant", "tokens": 1000}),
            401,
            "only judges",
        ),
        (
            Some(viewer.as_str()),
            json!({"action": "grant", "tokens": 1000}),
            403,
            "viewer",
        ),
        (
            Some(judge.as_str()),
            json!({"action": "grant", "tokens": 0}),
            400,
            "tokens must be",
        ),
        (
            Some(judge.as_str()),
            json!({"action": "more"}),
            400,
            "action",
        ),
    ];
    for (token, body, status, needle) in refused {
        let (got, v) = budget(&server, &id, token, body.clone()).await;
        assert_eq!(got, status, "{body}: {v}");
        assert!(
            v["error"].as_str().expect("error").contains(needle),
            "{body}: {v}"
        );
    }
    let (status, v) = budget(
        &server,
        &id,
        Some(&judge),
        json!({"action": "grant", "tokens": 100000}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v,
        json!({"id": id, "judge": "ada", "action": "grant", "tokens": 100000})
    );
    let frames = read_sse(&server, &id, None, "", usize::MAX).await;
    let events: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    let grant = of_type(&events, "budget_granted");
    assert_eq!(grant.len(), 1);
    assert_eq!(
        (&grant[0]["judge"], &grant[0]["tokens"], &grant[0]["budget"]),
        (&json!("ada"), &json!(100000), &json!(101200))
    );
    let at = events
        .iter()
        .position(|e| e["type"] == "budget_granted")
        .expect("at");
    assert!(
        events[at..].iter().any(|e| e["type"] == "agent_call"),
        "it resumed asking the agents"
    );
    assert!(of_type(&events, "budget_exhausted").is_empty());
    assert_eq!(events.last().expect("last")["type"], "decision");
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["status"], "finished");
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "{out}");
    // Over: no more grants.
    let (status, v) = budget(&server, &id, Some(&judge), json!({"action": "close"})).await;
    assert_eq!(status, 409, "{v}");

    // A close ends the paused debate with the cautious decision, as a plain budget stop does.
    let id = create(&server, ask).await;
    paused_on_desk(&server, &judge, &id).await;
    let (status, v) = budget(&server, &id, Some(&judge), json!({"action": "close"})).await;
    assert_eq!(status, 200, "{v}");
    let frames = read_sse(&server, &id, None, "", usize::MAX).await;
    let events: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["type"].as_str().expect("type"))
        .collect();
    let closed = kinds
        .iter()
        .position(|k| *k == "budget_closed")
        .expect("closed");
    assert_eq!(kinds[closed + 1], "budget_exhausted");
    assert_eq!(events[closed]["judge"], "ada");
    let decision = events.last().expect("decision");
    assert_eq!(decision["budget_exhausted"], true);
    assert_ne!(decision["decision"], "ACT");
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["status"], "budget_exhausted");
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "{out}");
    let d = desk(&server, &judge).await;
    assert_eq!(d["paused"], json!([]), "nothing waits any more");
}

/// SV-14: debates paused on their budget hold no running place. Eight addresses each start
/// eight debates (each address's most, 64 in all: the server's most) that all pause for a
/// judge; a 65th from another address, and a 9th from the first, still start and finish. A
/// judge's grant brings a paused debate back: it takes a place again and finishes.
#[tokio::test(flavor = "multi_thread")]
async fn sixty_four_paused_debates_do_not_lock_out_the_sixty_fifth_sv_14() {
    let (_dir, db) = temp_db();
    let (server, judge, ask) = pausing(&db).await;
    let started = futures::future::join_all((0..64u8).map(|i| {
        let client = client_from([127, 0, 1, 1 + i / 8]);
        let url = server.url("/api/debates");
        let ask = ask.clone();
        async move {
            let resp = client.post(url).json(&ask).send().await.expect("POST");
            let status = resp.status().as_u16();
            let v: Value = resp.json().await.expect("json");
            assert_eq!(status, 201, "start {i}: {v}");
            v["id"].as_str().expect("id").to_owned()
        }
    }))
    .await;
    for id in &started {
        paused_on_desk(&server, &judge, id).await;
    }
    let first = client_from([127, 0, 1, 1]);
    let builtin = json!({"query": "Should we ship the release tonight?", "seed": 4});
    for (client, who) in [
        (
            client_from([127, 0, 1, 9]),
            "a 65th debate from another address",
        ),
        (first.clone(), "a 9th debate from an address with 8 paused"),
    ] {
        let resp = client
            .post(server.url("/api/debates"))
            .json(&builtin)
            .send()
            .await
            .expect("POST");
        let status = resp.status().as_u16();
        let v: Value = resp.json().await.expect("json");
        assert_eq!(status, 201, "{who}: {v}");
        let id = v["id"].as_str().expect("id");
        let events = read_sse(&server, id, None, "", usize::MAX).await;
        let last = &events.last().expect("events").data;
        assert_eq!(last["type"], "decision", "{who} finished: {last}");
    }
    // A grant brings one back: it takes a place again and goes on to its decision.
    let id = &started[0];
    let (status, v) = budget(
        &server,
        id,
        Some(&judge),
        json!({"action": "grant", "tokens": 100000}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let events = read_sse(&server, id, None, "", usize::MAX).await;
    assert_eq!(
        events.last().expect("events").data["type"],
        "decision",
        "the granted debate finished"
    );
    let still = desk(&server, &judge).await["paused"]
        .as_array()
        .expect("paused")
        .len();
    assert_eq!(still, 63, "the others still wait");
}

/// RS-1 with ES-11: a debate paused on its budget when its server is killed (`kill -9`) is still
/// paused after the restart — the tokens it used, and that it waits for a judge, come back from
/// its log, and nothing is asked meanwhile — and a judge's grant then takes it to its decision.
#[tokio::test]
async fn a_budget_pause_survives_a_restart_rs_1() {
    let (_dir, db) = temp_db();
    let fakes = start_fakes(Fake {
        tokens_per_call: 400,
        ..Fake::default()
    })
    .await;
    let judge = add_judge(&db, "ada", "judge");
    let server = server_for(&db, &fakes, "1000000");
    let ask = json!({"query": "Should we ship the release tonight?", "backend": "openai",
                     "seed": 3, "token_budget": 1200});
    let id = create(&server, ask).await;
    paused_on_desk(&server, &judge, &id).await;
    server.kill();

    let server = server_for(&db, &fakes, "1000000");
    let paused = paused_on_desk(&server, &judge, &id).await;
    assert_eq!(
        (&paused["used"], &paused["budget"]),
        (&json!(1500), &json!(1200))
    );
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    let events = detail["events"].as_array().expect("events");
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["type"].as_str().expect("type"))
        .collect();
    assert_eq!(kinds[kinds.len() - 2..], ["budget_paused", "resumed"]);
    let (status, v) = budget(
        &server,
        &id,
        Some(&judge),
        json!({"action": "grant", "tokens": 100000}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let frames = read_sse(&server, &id, None, "", usize::MAX).await;
    let events: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(events.last().expect("last")["type"], "decision");
    assert!(of_type(&events, "agent_call")
        .iter()
        .all(|c| c["reasked"] != true));
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "{out}");
}
