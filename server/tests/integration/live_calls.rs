//! LM-1…LM-5 over the real binary and real HTTP, against a fake OpenAI-compatible endpoint
//! (`common::streaming_model`) with a fixed latency that counts the calls in flight, streams its
//! replies piece by piece, and misbehaves per agent (a stream cut off mid-reply, a stream that
//! never ends, a 429 with `Retry-After`, a refusal of `stream`); and the drain at shutdown.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::sse::SseStream;
use crate::common::streaming_model::{start_model, Model, Wrong};
use crate::common::*;

fn server(db: &TestDb, model: &str, extra: &[(&str, &str)]) -> Server {
    let base = format!("{model}/v1");
    let mut env = vec![
        ("OPENAI_BASE_URL", base.as_str()),
        ("OPENAI_MODEL", "fake-model"),
        ("CONSILIUM_REMOTE_TIMEOUT_S", "5"),
        ("CONSILIUM_REMOTE_RETRIES", "1"),
        ("CONSILIUM_REMOTE_BACKOFF_MS", "50"),
    ];
    env.extend_from_slice(extra);
    Server::start_with(db, 0, &env)
}

fn calls_of<'a>(events: &'a [Value], agent: &str) -> Vec<&'a Value> {
    of_type(events, "agent_call")
        .into_iter()
        .filter(|c| c["agent"] == agent)
        .collect()
}

/// LM-1/LM-2: S4's rounds go out at once, up to `--max-parallel-calls`; 1 asks one agent at a
/// time, as before.
#[tokio::test]
async fn each_round_goes_out_at_once_up_to_the_limit_lm_1_lm_2() {
    for (limit, want) in [("6", 6), ("1", 1)] {
        let m = Model::new(300, 0);
        let url = start_model(m.clone()).await;
        let (_dir, db) = temp_db();
        let server = server(
            &db,
            &url,
            &[
                ("CONSILIUM_MAX_PARALLEL_CALLS", limit),
                ("CONSILIUM_OPENAI_STREAM", "false"),
            ],
        );
        let (_id, events) = run_to_end(
            &server,
            json!({"query": "Should we ship the release tonight?", "backend": "openai", "seed": 4}),
        )
        .await;
        assert_eq!(of_type(&events, "agent_call").len(), 12, "3 + 6 + 3 calls");
        assert_eq!(
            m.max_in_flight.load(Ordering::SeqCst),
            want,
            "--max-parallel-calls {limit}: the most calls in flight at once"
        );
        // Replies are logged as they arrive, and the decision is the one the log recomputes
        // (run_to_end verified the export).
        assert_eq!(events.last().expect("last")["type"], "decision");
        assert_eq!(of_type(&events, "position").len(), 3);
        assert_eq!(of_type(&events, "challenge").len(), 6);
    }
}

/// LM-3: replies stream to a live viewer as `event: delta` frames without ids before the reply's
/// event; `done` follows it; nothing of them is stored or exported, and the call says it was
/// streamed, with the usage chunk's counts.
#[tokio::test]
async fn replies_stream_to_viewers_as_ephemeral_deltas_lm_3() {
    let m = Model::new(50, 40);
    let url = start_model(m.clone()).await;
    let (_dir, db) = temp_db();
    let server = server(&db, &url, &[]);
    let id = create(
        &server,
        json!({"query": "Should we ship the release tonight?", "backend": "openai", "seed": 5}),
    )
    .await;
    let mut stream = SseStream::open(&server, &id, None, "").await;
    let mut frames = Vec::new();
    while let Some(f) = stream.next().await {
        let terminal = f.event.is_none() && f.is_terminal();
        frames.push(f);
        if terminal {
            break;
        }
    }
    let deltas: Vec<_> = frames
        .iter()
        .filter(|f| f.event.as_deref() == Some("delta"))
        .collect();
    assert!(deltas.len() >= 12, "{} deltas", deltas.len());
    assert!(deltas.iter().all(|d| d.id.is_none()), "deltas carry no id");
    // Each streamed request's pieces add up to the reply the model wrote, then `done`.
    let mut texts: std::collections::BTreeMap<u64, (String, String, bool)> = Default::default();
    for d in &deltas {
        let r = d.data["request"].as_u64().expect("request");
        let e = texts.entry(r).or_default();
        e.0 = d.data["agent"].as_str().expect("agent").to_owned();
        assert!(!e.2, "no piece after done: {:?}", d.data);
        e.1.push_str(d.data["text"].as_str().expect("text"));
        e.2 |= d.data["done"] == true;
    }
    assert_eq!(texts.len(), 12, "every request streamed");
    // `done` follows each reply's events; the last round's may come after the decision, when
    // the stream (and the page's writing) has already ended.
    let done = texts.values().filter(|t| t.2).count();
    assert!(done >= 9, "rounds 1 and 2 end with done: {done}");
    for (r, (agent, text, _)) in &texts {
        let v: Value = serde_json::from_str(text).expect("the pieces add up to the reply");
        assert!(
            v.get("decision").is_some() || v.get("argues_for").is_some(),
            "{r} {agent}: {v}"
        );
    }
    // A piece of each agent's round-1 reply came before its position event.
    for agent in ["utility", "accuracy", "safety"] {
        let first_piece = frames
            .iter()
            .position(|f| f.event.as_deref() == Some("delta") && f.data["agent"] == agent)
            .expect("a piece");
        let position = frames
            .iter()
            .position(|f| f.data["type"] == "position" && f.data["agent"] == agent)
            .expect("a position");
        assert!(
            first_piece < position,
            "{agent}: pieces before the logged reply"
        );
    }
    // The log holds events only: the same as the stream's events, ids gap-free.
    let events: Vec<Value> = frames
        .iter()
        .filter(|f| f.event.is_none())
        .map(|f| f.data.clone())
        .collect();
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["events"].as_array().expect("events"), &events);
    let export = client()
        .get(server.url(&format!("/api/debates/{id}/export.json")))
        .send()
        .await
        .expect("export")
        .text()
        .await
        .expect("text");
    assert!(!export.contains("\"delta\""), "no delta in the export");
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(ok, "{out}");
    for c in of_type(&events, "agent_call") {
        assert_eq!(c["streamed"], true, "{c}");
        assert_eq!(
            (c["prompt_tokens"].as_u64(), c["completion_tokens"].as_u64()),
            (Some(120), Some(30)),
            "the usage chunk's counts: {c}"
        );
    }
    assert_eq!(m.streamed.load(Ordering::SeqCst), 12);
}

/// LM-2/LM-3: a stream cut off mid-reply and one that never ends are agent failures with their
/// reasons (S4-8), never retried once pieces were shown; a 429 is retried after its
/// `Retry-After`, which the call records.
#[tokio::test]
async fn broken_streams_fail_and_rate_limits_wait_lm_2_lm_3() {
    let mut m = Model::new(20, 10);
    m.wrong = |agent| match agent {
        "utility" => Wrong::Cut,
        "accuracy" => Wrong::Endless,
        _ => Wrong::Throttle,
    };
    let url = start_model(m.clone()).await;
    let (_dir, db) = temp_db();
    let server = server(&db, &url, &[("CONSILIUM_REMOTE_TIMEOUT_S", "1")]);
    let (_id, events) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "backend": "openai", "seed": 6}),
    )
    .await;
    let failed = |agent: &str| -> Vec<String> {
        of_type(&events, "agent_failed")
            .into_iter()
            .filter(|e| e["agent"] == agent)
            .map(|e| e["error"].as_str().expect("error").to_owned())
            .collect()
    };
    let cut = failed("utility");
    assert_eq!(cut.len(), 4, "{cut:?}");
    assert!(cut.iter().all(|e| e.contains("cut off after")), "{cut:?}");
    let endless = failed("accuracy");
    assert_eq!(endless.len(), 4, "{endless:?}");
    assert!(
        endless.iter().all(|e| e.contains("did not end within 1 s")),
        "{endless:?}"
    );
    for c in calls_of(&events, "accuracy") {
        assert_eq!(
            c["attempts"], 1,
            "a stream that showed pieces is not asked again: {c}"
        );
    }
    assert!(failed("safety").is_empty());
    for c in calls_of(&events, "safety") {
        assert_eq!(c["attempts"], 2, "{c}");
        assert!(
            c["retry_after_ms"].as_u64().is_some_and(|ms| ms >= 1000),
            "{c}"
        );
        assert_eq!(c["ok"], true, "{c}");
    }
    let decision = events.last().expect("decision");
    assert_eq!(decision["type"], "decision");
    assert_ne!(
        decision["decision"], "ACT",
        "two of three agents failed: {decision}"
    );
}

/// LM-3: an endpoint that refuses `stream` is asked plainly, and from then on only plainly.
#[tokio::test]
async fn an_endpoint_refusing_streams_is_asked_plainly_lm_3() {
    let mut m = Model::new(20, 0);
    m.refuse_stream = true;
    let url = start_model(m.clone()).await;
    let (_dir, db) = temp_db();
    let server = server(&db, &url, &[]);
    let body =
        json!({"query": "Should we ship the release tonight?", "backend": "openai", "seed": 7});
    let (_id, events) = run_to_end(&server, body.clone()).await;
    assert!(
        of_type(&events, "agent_failed").is_empty(),
        "every call answered"
    );
    let refused = m.refused.load(Ordering::SeqCst);
    assert!(
        (1..=3).contains(&refused),
        "only the first calls, asked at once, were refused: {refused}"
    );
    for c in of_type(&events, "agent_call") {
        assert!(c.get("streamed").is_none(), "{c}");
    }
    let _ = run_to_end(&server, body).await;
    assert_eq!(
        m.refused.load(Ordering::SeqCst),
        refused,
        "asked plainly from then on"
    );
}

/// LM-4: a judge's stop cancels the calls in flight at once (the endpoint sees them go), and the
/// log says which were cancelled before the judge's `interrupted`.
#[tokio::test]
async fn a_stop_cancels_the_calls_in_flight_lm_4() {
    let m = Model::new(30_000, 0);
    let url = start_model(m.clone()).await;
    let (_dir, db) = temp_db();
    let ada = add_judge(&db, "ada", "judge");
    let server = server(&db, &url, &[("CONSILIUM_REMOTE_TIMEOUT_S", "60")]);
    let id = round_one_in_flight(&server, &m).await;
    let resp = client()
        .post(server.url(&format!("/api/debates/{id}/stop")))
        .bearer_auth(&ada)
        .json(&json!({}))
        .send()
        .await
        .expect("stop");
    assert_eq!(resp.status(), 200);
    let began = Instant::now();
    while m.in_flight.load(Ordering::SeqCst) > 0 {
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "the calls in flight are cancelled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    let events = detail["events"].as_array().expect("events");
    let cancelled: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "agent_call" && e["cancelled"] == true)
        .collect();
    let mut agents: Vec<&str> = cancelled
        .iter()
        .map(|c| c["agent"].as_str().expect("agent"))
        .collect();
    agents.sort_unstable();
    assert_eq!(agents, ["accuracy", "safety", "utility"], "{cancelled:?}");
    assert!(cancelled.iter().all(|c| c["ok"] == false));
    let last = events.last().expect("last");
    assert_eq!(last["type"], "interrupted");
    assert_eq!(last["by"], "ada");
    let (_, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(out.contains("chain verified"), "{out}");
}

/// Starts an S4 debate on the fake model and waits until its round 1 (three calls) is in flight.
async fn round_one_in_flight(server: &Server, m: &Model) -> String {
    let id = create(
        server,
        json!({"query": "Should we ship the release tonight?", "backend": "openai", "seed": 8}),
    )
    .await;
    let began = Instant::now();
    while m.in_flight.load(Ordering::SeqCst) < 3 {
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "the round goes out"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    id
}

/// SIGTERM, then the time until the process exited.
fn terminate(server: &mut Server, limit: Duration) -> Duration {
    let began = Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    server
        .wait_exit(limit)
        .expect("the server exited after SIGTERM");
    began.elapsed()
}

/// LM-4 and RS-3 at shutdown: SIGTERM sends no new call and gives the calls in flight
/// `--drain-seconds`. Those that return in time are logged as any reply (round 1's three
/// positions, and no round 2 asked); with a shorter drain they are logged as cancelled. Either
/// way the log is left open for the next start, which resumes it (RS-1): nothing with a logged
/// reply is asked again, the cancelled calls are, and the chain runs whole to the decision.
#[tokio::test(flavor = "multi_thread")]
async fn a_shutdown_drains_the_calls_in_flight_lm_4_rs_3() {
    for (latency_ms, drain, returned) in [(1500, "20", true), (30_000, "1", false)] {
        let m = Model::new(latency_ms, 0);
        let url = start_model(m.clone()).await;
        let (_dir, db) = temp_db();
        let mut server = server(
            &db,
            &url,
            &[
                ("CONSILIUM_REMOTE_TIMEOUT_S", "60"),
                ("CONSILIUM_DRAIN_SECONDS", drain),
            ],
        );
        let id = round_one_in_flight(&server, &m).await;
        let took = terminate(&mut server, Duration::from_secs(15));
        println!(
            "SIGTERM with calls of {latency_ms} ms in flight, drain {drain} s: exit in {took:?}"
        );
        assert_eq!(m.calls.load(Ordering::SeqCst), 3, "nothing new was asked");
        assert_eq!(m.in_flight.load(Ordering::SeqCst), 0, "no call left open");
        drop(server);
        // The next start (RS-1) resumes the debate on a quick model: what was logged is not
        // asked again; what was cancelled is, and says so.
        let quick = Model::new(0, 0);
        let quick_url = start_model(quick.clone()).await;
        let next = self::server(&db, &quick_url, &[]);
        let frames = read_sse(&next, &id, None, "", usize::MAX).await;
        let events: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
        let resumed = events
            .iter()
            .position(|e| e["type"] == "resumed")
            .expect("resumed");
        let (before, after) = events.split_at(resumed);
        let calls = of_type(before, "agent_call");
        assert_eq!(calls.len(), 3, "{calls:?}");
        for c in &calls {
            assert_eq!(c["cancelled"] == true, !returned, "{c}");
            assert_eq!(c["ok"] == true, returned, "{c}");
        }
        assert_eq!(
            of_type(before, "position").len(),
            if returned { 3 } else { 0 }
        );
        assert!(of_type(before, "challenge").is_empty());
        // S4 with three agents: 3 positions, 6 challenges, 3 revisions.
        let asked_again = of_type(after, "agent_call")
            .iter()
            .filter(|c| c["reasked"] == true)
            .count();
        assert_eq!(asked_again, if returned { 0 } else { 3 });
        assert_eq!(
            quick.calls.load(Ordering::SeqCst),
            if returned { 9 } else { 12 },
            "only the calls without a logged reply were made again"
        );
        assert_eq!(of_type(&events, "position").len(), 3);
        assert_eq!(events.last().expect("last")["type"], "decision");
        let (ok, out) = verify(&next.url(&format!("/api/debates/{id}/export.json")));
        assert!(ok && out.contains("verified:"), "{out}");
    }
}
