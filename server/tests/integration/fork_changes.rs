//! FK-1/FK-4 over the real binary and real HTTP: a fork that gives one agent another model asks
//! that model (a fake OpenAI-compatible endpoint) for that agent alone, from the fork on; bad
//! agent changes are refused by name; a batch runs seeds with one change for all of them.

use serde_json::{json, Value};

use crate::common::fakes::{server_for, start_fakes, Fake};
use crate::common::*;

/// A server whose `openai` backend is a fake endpoint that answers every agent well.
async fn with_fake_model(db: &TestDb) -> (Fake, Server) {
    let fake = Fake {
        all_good: true,
        tokens_per_call: 40,
        ..Fake::default()
    };
    let fakes = start_fakes(fake.clone()).await;
    (fake, server_for(db, &fakes, "90000"))
}

async fn post(server: &Server, path: &str, body: &Value) -> (u16, Value) {
    let resp = client()
        .post(server.url(path))
        .json(body)
        .send()
        .await
        .expect("POST");
    let status = resp.status().as_u16();
    (status, resp.json().await.expect("json"))
}

/// FK-1: from round 2 of a builtin S4 debate, the Safety agent is asked of `other-model` over
/// HTTP; the other agents stay builtin; the fork's log says so, checks against its parent, and
/// is held to the server's token budget.
#[tokio::test]
async fn a_fork_asks_another_model_for_one_agent_fk_1() {
    let (dir, db) = temp_db();
    let (fake, server) = with_fake_model(&db).await;
    let (parent, events) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "seed": 5}),
    )
    .await;
    let round_two = round_start(&events, 2);
    let change = json!({"role": "safety", "backend": "openai", "model": "other-model"});
    let path = format!("/api/debates/{parent}/fork");
    let (status, body) = post(
        &server,
        &path,
        &json!({"after_seq": round_two, "changes": {"agents": [change]}}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let child = body["id"].as_str().expect("id").to_owned();
    let frames = read_sse(&server, &child, None, "", usize::MAX).await;
    let got: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(got[0]["changes"]["agents"][0], change, "{}", got[0]);
    assert_eq!(got[0]["changes"]["token_budget"], 90000, "{}", got[0]);
    assert_eq!(got.last().expect("last")["type"], "decision");
    // Only Safety went to the model, and only after the fork: the copied rounds asked nothing.
    let calls = fake.calls.lock().expect("lock").clone();
    assert_eq!(
        calls.keys().collect::<Vec<_>>(),
        vec!["safety"],
        "{calls:?}"
    );
    let models = fake.models.lock().expect("lock").clone();
    assert!(
        !models.is_empty() && models.iter().all(|m| m == "other-model"),
        "{models:?}"
    );
    let own = &got[round_two + 1..];
    let remote: Vec<&Value> = own.iter().filter(|e| e["type"] == "agent_call").collect();
    assert_eq!(remote.len() as u32, calls["safety"], "{remote:?}");
    assert!(
        remote
            .iter()
            .all(|c| c["agent"] == "safety" && c["backend"] == "openai"),
        "{remote:?}"
    );
    assert!(of_type(&got[1..=round_two], "agent_call").is_empty());
    // The fork's log checks against its parent's.
    let save = |id: &str, text: String| {
        let p = dir.path().join(format!("{id}.json"));
        std::fs::write(&p, text).expect("write");
        p.display().to_string()
    };
    let mut files = Vec::new();
    for id in [&parent, &child] {
        let text = client()
            .get(server.url(&format!("/api/debates/{id}/export.json")))
            .send()
            .await
            .expect("export")
            .text()
            .await
            .expect("text");
        files.push(save(id, text));
    }
    let (ok, out) = verify_with(&[&files[1], "--parent", &files[0]]);
    assert!(
        ok && out.contains("copied events are the parent's"),
        "{out}"
    );
}

/// FK-1: agent changes a fork cannot take are a 400 naming the change, and nothing is created.
#[tokio::test]
async fn bad_agent_changes_are_named_fk_1() {
    let (_dir, db) = temp_db();
    let fakes = start_fakes(Fake::default()).await;
    let server = server_for(&db, &fakes, "90000");
    let (parent, events) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "seed": 5}),
    )
    .await;
    let after = events.len() / 2;
    let before: Value = get_json(&server, "/api/debates").await;
    let table = [
        (
            json!([{"role": "nobody", "model": "other-model"}]),
            "changes.agents[0].role: the s4 debate has no agent 'nobody'",
        ),
        (
            json!([{"role": "safety"}]),
            "changes.agents[0]: give 'safety' a backend or a model",
        ),
        (
            json!([{"role": "safety", "backend": "openai"}, {"role": "safety", "backend": "http"}]),
            "changes.agents[1].role: 'safety' is changed twice",
        ),
        (
            json!([{"role": "safety", "backend": "openai", "model": "gpt-9"}]),
            "changes.agents[0]: model 'gpt-9' is not offered by this server",
        ),
        (
            json!([{"role": "safety", "backend": "builtin", "model": "other-model"}]),
            "changes.agents[0].model: only the openai backend takes a model",
        ),
        (
            json!([{"role": "safety", "backend": "carrier-pigeon"}]),
            "changes.agents[0].backend: unknown backend 'carrier-pigeon'",
        ),
        (json!([{"role": "safety", "colour": "red"}]), "colour"),
    ];
    for (agents, want) in table {
        let (status, body) = post(
            &server,
            &format!("/api/debates/{parent}/fork"),
            &json!({"after_seq": after, "changes": {"agents": agents}}),
        )
        .await;
        assert_eq!(status, 400, "{agents}: {body}");
        let error = body["error"].as_str().unwrap_or("");
        assert!(error.contains(want), "{agents}: {error}");
    }
    let after_all: Value = get_json(&server, "/api/debates").await;
    assert_eq!(before, after_all, "a refused fork created nothing");
}

/// FK-4: a batch of seeds with one change for every fork; and a batch of change sets.
#[tokio::test]
async fn a_batch_gives_every_fork_its_change_fk_4() {
    let (_dir, db) = temp_db();
    let (fake, server) = with_fake_model(&db).await;
    let (parent, events) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "seed": 5}),
    )
    .await;
    let round_two = round_start(&events, 2);
    let path = format!("/api/debates/{parent}/forks");
    let change =
        json!({"agents": [{"role": "safety", "model": "other-model", "backend": "openai"}]});
    let (status, v) = post(
        &server,
        &path,
        &json!({"after_seq": round_two, "seeds": [1, 2, 3], "changes": change}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let forks = v["forks"].as_array().expect("forks");
    assert_eq!(forks.len(), 3);
    for (f, seed) in forks.iter().zip([1, 2, 3]) {
        assert_eq!(f["seed"], seed, "{f}");
        assert_eq!(f["changes"]["agents"], change["agents"], "{f}");
    }
    assert_eq!(v["decided"], 3, "{v}");
    // Only Safety was asked of the model, three forks' worth.
    assert_eq!(fake.calls.lock().expect("lock").len(), 1);
    let sets = json!([{"seed": 9}, {"note": "New evidence: the rollback was rehearsed."}]);
    let (status, v) = post(
        &server,
        &path,
        &json!({"after_seq": round_two, "change_sets": sets}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["forks"][1]["changes"]["note"], sets[1]["note"], "{v}");
    assert!(v["forks"][1]["seed"].is_null(), "{v}");
    for (body, want) in [
        (json!({"after_seq": round_two}), "seeds or change_sets"),
        (
            json!({"after_seq": round_two, "seeds": [1], "change_sets": [{}]}),
            "not both",
        ),
        (
            json!({"after_seq": round_two, "change_sets": [{}], "changes": {"seed": 1}}),
            "each set says",
        ),
    ] {
        let (status, v) = post(&server, &path, &body).await;
        assert_eq!(status, 400, "{body}: {v}");
        assert!(v["error"].as_str().unwrap_or("").contains(want), "{v}");
    }
}

/// FK-3: a debate beside its forks: a column each, a row per agent per round, the first row
/// where a fork's position differs marked, decisions and vote baselines; bad choices named.
#[tokio::test]
async fn a_debate_and_its_forks_side_by_side_fk_3() {
    let (_dir, db) = temp_db();
    let server = Server::start_with(&db, 0, &[("CONSILIUM_MAX_DEBATES_PER_CLIENT", "64")]);
    let (parent, events) = run_to_end(
        &server,
        json!({"query": "Is it safe to rewire my own electrical panel?", "seed": 6}),
    )
    .await;
    let round_two = round_start(&events, 2);
    let seeds: Vec<u64> = (1..=6).collect();
    let (status, batch) = post(
        &server,
        &format!("/api/debates/{parent}/forks"),
        &json!({"after_seq": round_two, "seeds": seeds}),
    )
    .await;
    assert_eq!(status, 200, "{batch}");
    let c: Value = get_json(&server, &format!("/api/debates/{parent}/compare")).await;
    let columns = c["columns"].as_array().expect("columns");
    assert_eq!(columns.len(), 7, "{c}");
    assert_eq!(columns[0]["id"], parent.as_str());
    assert_eq!(
        columns[0]["decision"],
        events.last().expect("end")["decision"]
    );
    assert!(columns[0]["baseline"].is_string(), "{}", columns[0]);
    let rows = c["rows"].as_array().expect("rows");
    // Three S4 agents, in the three rounds where they hold positions (round 2 challenges).
    assert_eq!(rows.len(), 9, "{c}");
    for row in rows {
        assert_eq!(row["cells"].as_array().map(Vec::len), Some(7));
        assert_eq!(row["cells"][0]["differs"], false, "{row}");
        // Round 1 is copied: every fork holds the parent's positions there.
        if row["round"] == 1 {
            assert!(
                row["cells"]
                    .as_array()
                    .expect("cells")
                    .iter()
                    .all(|x| x["differs"] == false),
                "{row}"
            );
        }
    }
    let mut differing = 0;
    for (i, col) in columns.iter().enumerate().skip(1) {
        assert!(
            col["title"].as_str().expect("title").contains("seed"),
            "{col}"
        );
        let cells: Vec<&Value> = rows.iter().map(|r| &r["cells"][i]).collect();
        match col["first_row"].as_u64() {
            Some(first) => {
                differing += 1;
                let first = first as usize;
                assert_eq!(cells[first]["differs"], true, "{col}");
                assert!(cells[..first].iter().all(|x| x["differs"] != true), "{col}");
                assert!(
                    col["diverged_at"].is_u64(),
                    "a different position is a different log: {col}"
                );
            }
            None => assert!(cells.iter().all(|x| x["differs"] != true), "{col}"),
        }
        let listed = batch["forks"]
            .as_array()
            .expect("forks")
            .iter()
            .find(|f| f["id"] == col["id"])
            .expect("a fork of the batch");
        assert_eq!(col["decision"], listed["decision"], "{col}");
        assert_eq!(
            col["same"],
            listed["decision"] == c["columns"][0]["decision"]
        );
    }
    println!(
        "{} of 6 forks held another position somewhere; {}",
        differing, c["summary"]
    );
    assert_eq!(
        c["summary"],
        format!(
            "{} of 6 forks reached the same decision ({}).",
            batch["held"],
            batch["decision"].as_str().expect("decision")
        )
    );
    let one = columns[1]["id"].as_str().expect("id");
    let chosen: Value = get_json(
        &server,
        &format!("/api/debates/{parent}/compare?forks={one}"),
    )
    .await;
    assert_eq!(
        chosen["columns"].as_array().map(Vec::len),
        Some(2),
        "{chosen}"
    );
    for (query, want) in [
        (format!("forks={parent}"), "is not a fork of debate"),
        (format!("forks={}", [one; 9].join(",")), "at most 8"),
        ("fork=1".to_owned(), "invalid query string"),
    ] {
        let resp = client()
            .get(server.url(&format!("/api/debates/{parent}/compare?{query}")))
            .send()
            .await
            .expect("GET");
        assert_eq!(resp.status().as_u16(), 400, "{query}");
        let v: Value = resp.json().await.expect("json");
        assert!(
            v["error"].as_str().unwrap_or("").contains(want),
            "{query}: {v}"
        );
    }
}

/// FK-1: an S4 fork without the Safety agent decides from the two votes left; a removal a
/// debate cannot take is a 400 naming it.
#[tokio::test]
async fn a_fork_without_an_agent_fk_1() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (parent, events) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "seed": 5}),
    )
    .await;
    let round_two = round_start(&events, 2);
    let path = format!("/api/debates/{parent}/fork");
    let (status, body) = post(
        &server,
        &path,
        &json!({"after_seq": round_two, "changes": {"remove": ["safety"]}}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let child = body["id"].as_str().expect("id").to_owned();
    let frames = read_sse(&server, &child, None, "", usize::MAX).await;
    let got: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(got[0]["changes"]["remove"], json!(["safety"]));
    let votes = of_type(&got, "vote");
    assert_eq!(votes.len(), 2, "{votes:?}");
    assert!(
        votes.iter().all(|v| v["vote"]["agent"] != "safety"),
        "{votes:?}"
    );
    assert!(of_type(&got[round_two + 1..], "challenge")
        .iter()
        .all(|c| c["from"] != "safety" && c["to"] != "safety"));
    assert_eq!(got.last().expect("end")["type"], "decision");
    let (rr_parent, rr) = run_to_end(
        &server,
        json!({"query": "Should I buy Tesla stock after the recent rally?", "protocol": "round_robin", "seed": 2}),
    )
    .await;
    let rr_agent = rr[0]["agents"][0]["id"].as_str().expect("agent").to_owned();
    for (debate, after, changes, want) in [
        (
            rr_parent.clone(),
            5,
            json!({"remove": [rr_agent]}),
            "cannot be removed",
        ),
        (
            parent.clone(),
            round_two,
            json!({"remove": ["nobody"]}),
            "changes.remove[0]: the debate has no agent 'nobody'",
        ),
        (
            parent.clone(),
            round_two,
            json!({"remove": ["safety"], "agents": [{"role": "safety", "backend": "builtin"}]}),
            "choose one",
        ),
        (
            parent.clone(),
            round_two,
            json!({"remove": ["safety", "utility"]}),
            "at least two",
        ),
    ] {
        let (status, body) = post(
            &server,
            &format!("/api/debates/{debate}/fork"),
            &json!({"after_seq": after, "changes": changes}),
        )
        .await;
        assert_eq!(status, 400, "{changes}: {body}");
        assert!(
            body["error"].as_str().unwrap_or("").contains(want),
            "{changes}: {body}"
        );
    }
}

/// FK-1: forking a running debate forks what is logged so far; an event not logged yet is a
/// 400 naming the log's range.
#[tokio::test]
async fn a_running_debate_forks_what_is_logged_so_far_fk_1() {
    let (_dir, db) = temp_db();
    let server = Server::start_with(&db, 0, &[("CONSILIUM_PACE_MS", "300")]);
    let id = create(
        &server,
        json!({"query": "Should we ship the release tonight?", "seed": 5}),
    )
    .await;
    let logged = loop {
        let d: Value = get_json(&server, &format!("/api/debates/{id}")).await;
        let n = d["events"].as_array().map_or(0, Vec::len);
        if n >= 6 {
            assert_eq!(d["status"], "running", "paced, it is still running: {d}");
            break n;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let path = format!("/api/debates/{id}/fork");
    let (status, body) = post(&server, &path, &json!({"after_seq": logged + 500})).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("has events 1 to"),
        "{body}"
    );
    let (status, body) = post(
        &server,
        &path,
        &json!({"after_seq": logged, "changes": {"pace_ms": 0}}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let child = body["id"].as_str().expect("id").to_owned();
    let frames = read_sse(&server, &child, None, "", usize::MAX).await;
    assert_eq!(frames[0].data["after_seq"], logged as u64);
    assert_eq!(frames.last().expect("end").data["type"], "decision");
}
