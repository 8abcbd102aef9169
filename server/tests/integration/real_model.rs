//! The real-model tier: a full S4 debate through the `openai` kind against a real
//! llama.cpp server on 127.0.0.1 (SmolLM2-135M-Instruct, set up by `scripts/llm.sh start`).
//!
//! Ignored by a plain `cargo test`; `make test` runs it with `--ignored` once the model server is
//! up. It fails, never skips, when `CONSILIUM_TEST_LLM_URL` is unset or the server is down. A
//! 135M model's answers are messy: the test asserts the debate completes with a valid decision,
//! every call is costed, and every unusable reply is logged — not that the model is smart.

use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{json, Value};

/// The real model server from `CONSILIUM_TEST_LLM_URL` and a Consilium server using it (answers
/// capped at `max_tokens`): the database's guard, the server, and the model's name.
async fn model_server(max_tokens: &str) -> (DbGuard, Server, String) {
    let base = std::env::var("CONSILIUM_TEST_LLM_URL").expect(
        "CONSILIUM_TEST_LLM_URL must name the model server's /v1 URL (scripts/llm.sh start prints it)",
    );
    let models: Value = client()
        .get(format!("{}/models", base.trim_end_matches('/')))
        .send()
        .await
        .expect("the model server answers")
        .json()
        .await
        .expect("/v1/models is JSON");
    let model = models["data"][0]["id"]
        .as_str()
        .expect("a model is loaded")
        .to_owned();
    let (dir, db) = temp_db();
    let server = Server::start_with(
        &db,
        0,
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_MODEL", &model),
            ("CONSILIUM_OPENAI_MAX_TOKENS", max_tokens),
            ("CONSILIUM_REMOTE_TIMEOUT_S", "120"),
        ],
    );
    (dir, server, model)
}

/// Debate `id` once it is no longer running (at most 15 minutes after `started`).
async fn finished(server: &Server, id: &str, started: Instant) -> Value {
    loop {
        let d: Value = get_json(server, &format!("/api/debates/{id}")).await;
        if d["status"] != "running" {
            return d;
        }
        assert!(
            started.elapsed() < Duration::from_secs(900),
            "the debate did not finish in 15 minutes"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test]
#[ignore = "needs a real model server: scripts/llm.sh start, then CONSILIUM_TEST_LLM_URL"]
async fn a_full_s4_debate_on_a_real_small_model() {
    let (_dir, server, model) = model_server("200").await;
    let query =
        "Should we deploy the new payment service on Friday evening without a rollback plan?";
    let started = Instant::now();
    let id = create(
        &server,
        json!({"query": query, "backend": "openai", "seed": 7}),
    )
    .await;
    let detail = finished(&server, &id, started).await;
    let wall = started.elapsed();
    let events = detail["events"].as_array().expect("events").clone();

    // It completes with a valid S4 decision, recomputable from the log.
    assert_eq!(detail["status"], "finished", "{detail}");
    let decision = events.last().expect("events");
    assert_eq!(decision["type"], "decision");
    let label = decision["decision"].as_str().expect("decision");
    assert!(["ACT", "WARN", "REFUSE"].contains(&label), "{label}");
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "verify: {out}");

    // Every one of the 12 requests was a real call with its cost on record.
    let calls = of_type(&events, "agent_call");
    assert_eq!(calls.len(), 12);
    let prompt: u64 = calls
        .iter()
        .map(|c| c["prompt_tokens"].as_u64().unwrap_or(0))
        .sum();
    let completion: u64 = calls
        .iter()
        .map(|c| c["completion_tokens"].as_u64().unwrap_or(0))
        .sum();
    assert!(prompt > 0 && completion > 0, "llama.cpp reports usage");
    assert!(
        calls.iter().all(|c| c["estimated"].is_null()),
        "usage was reported, not estimated"
    );
    // LM-3: llama.cpp streams each reply (its usage in the stream's last chunk).
    assert!(
        calls.iter().all(|c| c["streamed"] == true),
        "every reply streamed: {calls:?}"
    );

    // Every unusable reply is a logged failure right after its call, with the reason.
    let failures = of_type(&events, "agent_failed");
    let failed_calls = calls.iter().filter(|c| c["ok"] == false).count();
    assert_eq!(
        failures.len(),
        failed_calls,
        "one agent_failed per failed call"
    );
    for f in &failures {
        let error = f["error"].as_str().expect("error");
        assert!(!error.is_empty());
    }
    // A parse failure in rounds 1/3 is a REFUSE, never a silent ACT.
    for f in failures.iter().filter(|f| f["round"] != 2) {
        let position = events
            .iter()
            .find(|e| {
                e["seq"].as_u64() > f["seq"].as_u64()
                    && e["agent"] == f["agent"]
                    && matches!(e["type"].as_str(), Some("position" | "revision"))
            })
            .expect("a substitute position follows");
        let decision = position
            .get("decision")
            .or_else(|| position["after"].get("decision"))
            .expect("decision");
        assert_eq!(decision, "REFUSE", "{position}");
    }

    println!("== real model: {model} ==");
    println!(
        "wall time {:.1} s, {} calls, {prompt} prompt + {completion} completion tokens, {} usable, {} parse/other failures",
        wall.as_secs_f64(),
        calls.len(),
        calls.len() - failed_calls,
        failures.len()
    );
    println!("decision {label}: {}", decision["reasoning"]);
    for f in &failures {
        println!("  failure r{} {}: {}", f["round"], f["agent"], f["error"]);
    }
    for e in of_type(&events, "injection_detected")
        .into_iter()
        .chain(of_type(&events, "confidence_clamped"))
    {
        println!("  flag: {e}");
    }
}

/// QL-2 smoke test on the real small model: the harness asks, grades, saves and prints the
/// three-row table. A check that the harness works on a real model's messy replies — not a
/// claim about the model.
#[test]
#[ignore = "needs a real model server: scripts/llm.sh start, then CONSILIUM_TEST_LLM_URL"]
fn eval_runs_on_a_real_small_model() {
    let base = std::env::var("CONSILIUM_TEST_LLM_URL").expect("CONSILIUM_TEST_LLM_URL");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("smoke.json");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_consilium"))
        .args([
            "eval",
            "arithmetic",
            "--items",
            "2",
            "--agents",
            "2",
            "--rounds",
            "2",
        ])
        .args(["--samples", "2", "--max-tokens", "96", "--timeout-s", "120"])
        .arg("--out")
        .arg(&out)
        .env("OPENAI_BASE_URL", &base)
        .env("OPENAI_MODEL", "smollm2")
        .output()
        .expect("run consilium eval");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    println!("{text}");
    for row in [
        "one agent",
        "self-consistency (2 samples, majority)",
        "debate (2 agents × 2 rounds)",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("{row}: {text}"));
        assert!(line.contains("of 2)"), "{line}");
    }
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("saved")).expect("json");
    let items = saved["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    // 1 + 2 samples + 2 × 2 debate calls per item, every one graded or its failure recorded.
    let calls = |i: &Value| {
        1 + i["samples"].as_array().map_or(0, Vec::len)
            + i["debate"].as_array().map_or(0, |r| {
                r.iter().map(|x| x.as_array().map_or(0, Vec::len)).sum()
            })
    };
    assert!(items.iter().all(|i| calls(i) == 7), "{saved}");
}

/// ES on the real small model: the four specialists' estimates, and the answers and verdicts of
/// any challenge, are real calls with their cost on record; an unusable reply is a logged
/// failure with its substitute; the pipeline ends with a decision that verifies. Real time
/// (`time_scale` 1), so a slow model never outruns the ladder's 15-minute timer.
#[tokio::test]
#[ignore = "needs a real model server: scripts/llm.sh start, then CONSILIUM_TEST_LLM_URL"]
async fn an_escalation_pipeline_on_a_real_small_model() {
    let (_dir, server, model) = model_server("300").await;
    let started = Instant::now();
    let id = create(
        &server,
        json!({"query": "Should we buy Acme at $80 after its cost programme lifts margins?",
               "protocol": "escalation", "backend": "openai", "time_scale": 1, "seed": 7}),
    )
    .await;
    let detail = finished(&server, &id, started).await;
    let events = detail["events"].as_array().expect("events").clone();
    assert_eq!(detail["status"], "finished", "{detail}");
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "verify: {out}");
    let calls = of_type(&events, "agent_call");
    assert!(
        calls.len() >= 4,
        "one estimate call per specialist at least"
    );
    let failed = calls.iter().filter(|c| c["ok"] == false).count();
    assert_eq!(of_type(&events, "agent_failed").len(), failed);
    let decision = events.last().expect("events");
    println!("== real model escalation: {model} ==");
    println!(
        "wall time {:.1} s, {} calls ({failed} unusable), {} challenges, rating {} — {}",
        started.elapsed().as_secs_f64(),
        calls.len(),
        of_type(&events, "challenge_raised").len(),
        decision["results"]["rating"],
        decision["reasoning"]
    );
    for f in of_type(&events, "agent_failed") {
        println!("  failure {}: {}", f["agent"], f["error"]);
    }
}

/// RC with real models: all-MiniLM-L6-v2 through llama.cpp's `/v1/embeddings`
/// groups seed 003's observations, SmolLM2 answers one XML prompt per topic; the builtin
/// embedder's grouping of the same set is printed beside it.
#[tokio::test]
#[ignore = "needs a real model server: scripts/llm.sh start, then CONSILIUM_TEST_LLM_URL and CONSILIUM_TEST_EMBED_URL"]
async fn a_reconciliation_on_real_models() {
    let embed = std::env::var("CONSILIUM_TEST_EMBED_URL").expect(
        "CONSILIUM_TEST_EMBED_URL must name the embedding server's /v1 URL (scripts/llm.sh start prints it)",
    );
    let base = std::env::var("CONSILIUM_TEST_LLM_URL").expect("CONSILIUM_TEST_LLM_URL");
    let (_dir, db) = temp_db();
    let server = Server::start_with(
        &db,
        0,
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_MODEL", "smollm2-135m"),
            ("OPENAI_EMBEDDINGS_BASE_URL", &embed),
            ("OPENAI_EMBEDDINGS_MODEL", "all-MiniLM-L6-v2"),
            ("CONSILIUM_OPENAI_MAX_TOKENS", "300"),
            ("CONSILIUM_REMOTE_TIMEOUT_S", "120"),
        ],
    );
    let observations: Value =
        serde_json::from_str(app::protocol::reconcile::EXAMPLE).expect("the example set");
    let topics_of = |events: &[Value]| -> Vec<Vec<String>> {
        of_type(events, "topic")
            .iter()
            .map(|t| serde_json::from_value(t["observation_ids"].clone()).expect("ids"))
            .collect()
    };
    let started = Instant::now();
    let id = create(
        &server,
        json!({"query": "What do we believe?", "protocol": "reconcile", "backend": "openai",
               "observations": observations}),
    )
    .await;
    let detail = finished(&server, &id, started).await;
    let wall = started.elapsed();
    assert_eq!(detail["status"], "finished", "{detail}");
    let events = detail["events"].as_array().expect("events").clone();
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "verify: {out}");
    assert_eq!(of_type(&events, "embedded")[0]["model"], "all-MiniLM-L6-v2");
    let minilm = topics_of(&events);
    let calls = of_type(&events, "agent_call");
    let beliefs = of_type(&events, "belief");
    assert_eq!(beliefs.len(), minilm.len(), "one belief per topic");
    let asked = minilm.iter().filter(|t| t.len() > 1).count();
    assert_eq!(
        calls.len(),
        1 + asked,
        "one embedding call, one reconciler call per topic of two or more"
    );
    let (_, builtin_events) = run_to_end(
        &server,
        json!({"query": "What do we believe?", "protocol": "reconcile", "observations": observations}),
    )
    .await;
    let builtin = topics_of(&builtin_events);
    println!(
        "== real models reconcile seed 003 ({:.1} s wall) ==",
        wall.as_secs_f64()
    );
    println!("topics by all-MiniLM-L6-v2 (llama.cpp): {minilm:?}");
    println!("topics by the builtin static embedder  : {builtin:?}");
    for b in &beliefs {
        println!(
            "  {} {:?}: belief {} · clarification {} · unresolved {}",
            b["topic"],
            b["observation_ids"],
            b["consolidated_belief"],
            b["needs_clarification"],
            b["unresolved"]
        );
    }
    for c in &calls {
        println!(
            "  call {} ok={} {} ms",
            c["agent"], c["ok"], c["latency_ms"]
        );
    }
    // Both embedders keep each conflicting pair together and apart from the other topics.
    assert_eq!(
        minilm,
        [["o1", "o2"], ["o3", "o4"], ["o5", "o6"], ["o7", "o8"]]
    );
    assert_eq!(builtin, minilm);
}

/// MN-1/MN-2 with the same model served by llama.cpp: `consilium-bench topics` through the
/// `/v1/embeddings` endpoint forms the test half's topics to MN-2's mark (precision and recall
/// ≥ 0.90) and within 0.05 of the builtin encoder (llama.cpp runs the weights in f16 and
/// tokenizes by its own code), which it can only if both compute nearly the same embeddings.
#[test]
#[ignore = "needs a real model server: scripts/llm.sh start, then CONSILIUM_TEST_EMBED_URL"]
fn the_topics_bench_runs_through_the_embeddings_endpoint() {
    let embed = std::env::var("CONSILIUM_TEST_EMBED_URL").expect("CONSILIUM_TEST_EMBED_URL");
    let run = |endpoint: Option<&str>| -> (f64, f64) {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_consilium-bench"));
        cmd.arg("topics");
        if let Some(url) = endpoint {
            cmd.args(["--endpoint", url]);
        }
        let out = cmd.output().expect("run consilium-bench topics");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        println!("{text}");
        let line = text
            .lines()
            .find(|l| l.contains("same-topic pairs precision"))
            .unwrap_or_else(|| panic!("{text}"));
        let after = |word: &str| -> f64 {
            line.split(word)
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{word} in {line}"))
        };
        (after("precision "), after("recall "))
    };
    let (p, r) = run(Some(&embed));
    let (bp, br) = run(None);
    assert!(
        p >= 0.90 && r >= 0.90,
        "through the endpoint: precision {p}, recall {r}"
    );
    assert!(
        (p - bp).abs() <= 0.05 && (r - br).abs() <= 0.05,
        "endpoint {p}/{r} vs builtin {bp}/{br}"
    );
}
