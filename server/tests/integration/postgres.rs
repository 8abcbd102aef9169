//! SV-4 / SV-5 with several server processes on one PostgreSQL database: live events across
//! processes (LISTEN/NOTIFY), and recovery that only resumes (RS-2) or interrupts debates whose
//! server is gone.
//!
//! Needs PostgreSQL at `CONSILIUM_TEST_PG` (default `postgres://postgres@127.0.0.1:5432/test`, a
//! user that may CREATE DATABASE); each test uses a fresh database. Unreachable → the tests fail.

use std::process::Command;

use app::protocol::shared::CommonEvent;
use app::protocol::EventBody;

use crate::common::*;
use serde_json::{json, Value};

fn strip(frames: &[Frame]) -> Vec<Value> {
    frames.iter().map(|f| f.data.clone()).collect()
}

async fn status(server: &Server, id: &str) -> String {
    let detail: Value = get_json(server, &format!("/api/debates/{id}")).await;
    detail["status"].as_str().expect("status").to_owned()
}

async fn logged(server: &Server, id: &str) -> Vec<Value> {
    let detail: Value = get_json(server, &format!("/api/debates/{id}")).await;
    detail["events"].as_array().expect("events").clone()
}

/// RS-1: the exported log of a resumed debate: one `resumed` event, the decision last, and
/// `consilium verify` checks the chain and recomputes the decision.
async fn assert_resumed_and_verifies(server: &Server, id: &str) {
    let url = server.url(&format!("/api/debates/{id}/export.json"));
    let export: Value = get_json(server, &format!("/api/debates/{id}/export.json")).await;
    let events: Vec<app::protocol::Event> =
        serde_json::from_value(export["events"].clone()).expect("events");
    let n = events.len();
    let resumed = events.iter().filter(|e| e.body.kind() == "resumed").count();
    assert_eq!(resumed, 1, "exactly one resumed event in {id}");
    assert_eq!(events.last().expect("events").body.kind(), "decision");
    let (ok, text) = verify(&url);
    assert!(
        ok && text.contains(&format!("verified: {n} events")),
        "consilium verify {url}: {text}"
    );
}

/// The exported log of an interrupted debate: its chain verifies (there is no decision to
/// recompute, so `consilium verify` exits non-zero and says exactly that).
async fn assert_interrupted_chain_verifies(server: &Server, id: &str) {
    let url = server.url(&format!("/api/debates/{id}/export.json"));
    let export: Value = get_json(server, &format!("/api/debates/{id}/export.json")).await;
    let events: Vec<app::protocol::Event> =
        serde_json::from_value(export["events"].clone()).expect("events");
    let n = events.len();
    assert_eq!(events.last().expect("events").body.kind(), "interrupted");
    assert_eq!(app::protocol::chain::verify_chain(&events), Ok(n));
    let (ok, text) = verify(&url);
    assert!(
        !ok,
        "an unfinished debate has no decision to recompute: {text}"
    );
    assert!(
        text.contains(&format!("chain verified ({n} events)")),
        "consilium verify {url}: {text}"
    );
}

#[tokio::test]
async fn a_viewer_on_another_process_follows_a_debate_live() {
    let (_guard, db) = postgres_db();
    let a = Server::start(&db, 150);
    let b = Server::start(&db, 0);
    let id = create(
        &a,
        json!({"query": "Should I put all my savings into bitcoin?", "seed": 4}),
    )
    .await;

    // Read B's stream frame by frame; after each frame, ask A whether it is still running.
    let mut stream = SseStream::open(&b, &id, None, "").await;
    let mut frames = Vec::new();
    let mut while_running = 0;
    while let Some(frame) = stream.next().await {
        let terminal = frame.is_terminal();
        frames.push(frame);
        if status(&a, &id).await == "running" {
            while_running += 1;
        }
        if terminal {
            break;
        }
    }
    let seqs = seqs(&frames);
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "gap-free, no duplicate"
    );
    for f in &frames {
        assert_eq!(
            f.id,
            f.data["seq"].as_u64(),
            "SSE id is the sequence number"
        );
    }
    assert_eq!(frames.last().expect("frames").data["type"], "decision");
    // Only the first few events existed when B's stream opened; with a 2 s safety poll and no
    // notifications, B would deliver little else before A finished.
    assert!(
        while_running * 2 > frames.len(),
        "only {while_running} of {} frames reached B while A was running: not live",
        frames.len()
    );
    assert_eq!(
        strip(&frames),
        logged(&a, &id).await,
        "B streams A's log exactly"
    );
    assert_eq!(status(&b, &id).await, "finished");
}

#[tokio::test]
async fn starting_another_process_does_not_interrupt_running_debates() {
    let (_guard, db) = postgres_db();
    let a = Server::start(&db, 150);
    let id = create(
        &a,
        json!({"query": "Is it safe to rewire my own electrical panel?", "seed": 6}),
    )
    .await;
    let first = read_sse(&a, &id, None, "", 4).await;
    assert_eq!(status(&a, &id).await, "running");
    // B recovers at start, then sweeps every 300 ms (tests) while A's debate goes on.
    let b = Server::start(&db, 0);
    let rest = read_sse(&a, &id, Some("4"), "", usize::MAX).await;
    assert_eq!(first.len(), 4);
    let all: Vec<Frame> = first.into_iter().chain(rest).collect();
    let seqs = seqs(&all);
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert_eq!(all.last().expect("frames").data["type"], "decision");
    assert!(
        all.iter().all(|f| f.data["type"] != "interrupted"),
        "B interrupted A's debate"
    );
    assert_eq!(status(&b, &id).await, "finished");
    assert_eq!(logged(&b, &id).await, strip(&all));
}

/// RS-2: the debate of a killed process goes on in the next one, from its log.
#[tokio::test]
async fn a_debate_of_a_killed_process_is_resumed_by_the_next_one_rs_2() {
    let (_guard, db) = postgres_db();
    let a = Server::start(&db, 300);
    let id = create(
        &a,
        json!({"query": "Is it safe to rewire my own electrical panel?", "seed": 2}),
    )
    .await;
    let partial = read_sse(&a, &id, None, "", 5).await;
    a.kill();

    let b = Server::start(&db, 0);
    let resumed = read_sse(&b, &id, None, "", usize::MAX).await;
    let got = seqs(&resumed);
    assert_eq!(got, (1..=got.len() as u64).collect::<Vec<_>>());
    assert_eq!(strip(&resumed[..partial.len()]), strip(&partial));
    assert_eq!(resumed.last().expect("events").data["type"], "decision");
    assert_eq!(status(&b, &id).await, "finished");
    assert_resumed_and_verifies(&b, &id).await;
}

/// RS-2: a viewer following a debate on a surviving process, when the debate's own process is
/// killed (`kill -9`), sees it go on — a surviving process's sweep (at its default period) takes
/// it over — with every event once, in order, and no gap. Three processes share the database.
#[tokio::test(flavor = "multi_thread")]
async fn viewers_on_a_surviving_process_see_a_killed_process_debate_go_on_rs_2() {
    let (_guard, db) = postgres_db();
    // The default sweep period, as a deployment runs it.
    let default_sweep = [("CONSILIUM_ORPHAN_SWEEP_MS", "2000")];
    let a = Server::start(&db, 300);
    let b = Server::start_with(&db, 0, &default_sweep);
    let _c = Server::start_with(&db, 0, &default_sweep);
    let id = create(
        &a,
        json!({"query": "How much ibuprofen can I take for a bad headache?", "seed": 3}),
    )
    .await;
    let mut stream = SseStream::open(&b, &id, None, "").await;
    let mut frames = stream.take(5).await;
    assert_eq!(frames.len(), 5);
    let killed = std::time::Instant::now();
    a.kill();
    // A surviving process notices A's instance lock is gone and takes the debate over; the open
    // stream goes on.
    let mut went_on = None;
    while let Some(frame) = stream.next().await {
        if frame.data["type"] == "resumed" {
            went_on = Some(killed.elapsed());
        }
        let end = frame.is_terminal();
        frames.push(frame);
        if end {
            break;
        }
    }
    let went_on = went_on.expect("a resumed event");
    println!(
        "kill -9 of the owner of 3 processes: the debate went on after {went_on:?}, decided after {:?}",
        killed.elapsed()
    );
    assert!(went_on < std::time::Duration::from_secs(5), "{went_on:?}");
    let got = seqs(&frames);
    assert_eq!(got, (1..=got.len() as u64).collect::<Vec<_>>());
    assert_eq!(frames.last().expect("frames").data["type"], "decision");
    assert_eq!(strip(&frames), logged(&b, &id).await);
    assert_resumed_and_verifies(&b, &id).await;
}

/// RS-3: a rolling restart — each of three processes in turn gets SIGTERM, drains, exits and is
/// started again — while 100 paced debates run: every debate decides, none is interrupted, every
/// chain verifies.
#[tokio::test(flavor = "multi_thread")]
async fn a_rolling_restart_of_three_processes_loses_no_debate_rs_3() {
    let (_guard, db) = postgres_db();
    let env = [
        ("CONSILIUM_MAX_DEBATES", "200"),
        ("CONSILIUM_MAX_DEBATES_PER_CLIENT", "200"),
        ("CONSILIUM_RATE_LIMIT", "1000"),
        ("CONSILIUM_RATE_BURST", "1000"),
    ];
    let pace = 1500;
    let mut servers: Vec<Server> = (0..3)
        .map(|_| Server::spawn_with(&db, pace, &env))
        .collect::<Vec<_>>()
        .into_iter()
        .map(Starting::ready)
        .collect();
    let began = std::time::Instant::now();
    let ids = futures::future::join_all((0..100u64).map(|i| {
        let server = &servers[(i % 3) as usize];
        create(
            server,
            json!({"query": format!("Should team {i} adopt the four-day week?"), "seed": i}),
        )
    }))
    .await;
    // One at a time: the replacement starts, then the old process gets SIGTERM and drains.
    for slot in &mut servers {
        let mut old = std::mem::replace(slot, Server::spawn_with(&db, pace, &env).ready());
        let killed = Command::new("kill")
            .args(["-TERM", &old.pid().to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        old.wait_exit(std::time::Duration::from_secs(30))
            .expect("the process exited after SIGTERM");
    }
    let restarted = began.elapsed();
    let mut running = ids.len();
    for _ in 0..600 {
        let list: Vec<Value> = get_json(&servers[0], "/api/debates?limit=200").await;
        running = list.iter().filter(|d| d["status"] == "running").count();
        if running == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(running, 0, "every debate ended");
    let (mut decided, mut interrupted, mut resumed) = (0, 0, 0);
    let mut reasons = Vec::new();
    for id in &ids {
        let export: Value = get_json(&servers[1], &format!("/api/debates/{id}/export.json")).await;
        let events: Vec<app::protocol::Event> =
            serde_json::from_value(export["events"].clone()).expect("events");
        assert_eq!(
            app::protocol::chain::verify_chain(&events),
            Ok(events.len()),
            "{id}"
        );
        match events.last().map(|e| e.body.kind()) {
            Some("decision") => decided += 1,
            Some("interrupted") => {
                interrupted += 1;
                if let Some(EventBody::Common(CommonEvent::Interrupted { reason, .. })) =
                    events.last().map(|e| &e.body)
                {
                    reasons.push(reason.clone());
                }
            }
            other => panic!("{id} ended with {other:?}"),
        }
        resumed += usize::from(events.iter().any(|e| e.body.kind() == "resumed"));
    }
    println!(
        "rolling restart of 3 processes (SIGTERM, one at a time, {restarted:?}) during 100 paced \
         debates: {decided} decisions, {interrupted} interrupted, {resumed} resumed, all \
         chains verified, {:?} in all",
        began.elapsed()
    );
    assert_eq!((decided, interrupted), (100, 0), "{reasons:#?}");
    assert!(resumed > 0, "the restarts cut debates short");
}

/// RS-2: two processes that sweep at once: each debate is resumed by exactly one of them.
#[tokio::test]
async fn two_processes_recovering_at_once_resume_each_debate_once_rs_2() {
    let (_guard, db) = postgres_db();
    let a = Server::start(&db, 300);
    let mut ids = Vec::new();
    for seed in 0..3 {
        ids.push(
            create(
                &a,
                json!({"query": "Should I put all my savings into bitcoin?", "seed": seed}),
            )
            .await,
        );
    }
    read_sse(&a, &ids[2], None, "", 4).await;
    a.kill();

    let (b, c) = (Server::spawn(&db, 0), Server::spawn(&db, 0));
    let (b, c) = (b.ready(), c.ready());
    for id in &ids {
        for server in [&b, &c] {
            let events = read_sse(server, id, None, "", usize::MAX).await;
            let got = seqs(&events);
            assert_eq!(got, (1..=got.len() as u64).collect::<Vec<_>>());
            assert_eq!(events.last().expect("events").data["type"], "decision");
        }
        assert_resumed_and_verifies(&c, id).await;
    }
}

/// RS-4: with `--no-resume`, the debate of a killed process ends `interrupted`, once, however
/// many processes sweep at once.
#[tokio::test]
async fn without_resuming_a_killed_process_debate_is_interrupted_once_rs_4() {
    let (_guard, db) = postgres_db();
    let a = Server::start(&db, 300);
    let id = create(
        &a,
        json!({"query": "Should I put all my savings into bitcoin?", "seed": 1}),
    )
    .await;
    let partial = read_sse(&a, &id, None, "", 4).await;
    a.kill();
    let off = [("CONSILIUM_NO_RESUME", "true")];
    let (b, c) = (
        Server::spawn_with(&db, 0, &off),
        Server::spawn_with(&db, 0, &off),
    );
    let (b, c) = (b.ready(), c.ready());
    for server in [&b, &c] {
        let events = read_sse(server, &id, None, "", usize::MAX).await;
        assert_eq!(strip(&events[..partial.len()]), strip(&partial));
        let interrupted = events
            .iter()
            .filter(|f| f.data["type"] == "interrupted")
            .count();
        assert_eq!(interrupted, 1, "exactly one interrupted event");
        assert_eq!(events.last().expect("events").data["type"], "interrupted");
    }
    assert_eq!(status(&b, &id).await, "interrupted");
    assert_interrupted_chain_verifies(&c, &id).await;
}

#[test]
fn unreachable_postgres_and_unknown_schemes_are_clear_startup_errors() {
    let cases = [
        (
            "postgres://postgres:hunter2@127.0.0.1:1/consilium",
            "cannot connect to PostgreSQL at postgres://postgres:***@127.0.0.1:1/consilium",
        ),
        (
            "mysql://root@127.0.0.1/consilium",
            "unsupported DATABASE_URL scheme 'mysql'",
        ),
    ];
    for (url, expected) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_consilium"))
            .args(["serve", "--addr", "127.0.0.1:0", "--database-url", url])
            .env("NO_COLOR", "1")
            .output()
            .expect("run consilium");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{url} must fail");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{url}: exit code, not a panic: {stderr}"
        );
        assert!(stderr.contains(expected), "{url}: {stderr}");
        assert!(!stderr.contains("hunter2"), "password leaked: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[tokio::test]
async fn a_process_that_loses_its_lock_connection_keeps_one_valid_chain() {
    let (_guard, db) = postgres_db();
    let a = Server::start(&db, 300);
    let b = Server::start(&db, 0);
    let id = create(
        &a,
        json!({"query": "Should I put all my savings into bitcoin?", "seed": 9}),
    )
    .await;
    read_sse(&a, &id, None, "", 4).await;
    // Cut A's instance-lock connection: A looks dead to B until A re-takes its lock (2 s), so B's
    // 300 ms sweep may interrupt the debate A is still running. Whoever wins, the log must stay
    // one chain with one ending, and A must keep serving.
    pg_execute(
        &db.url,
        format!(
            "SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN debates d \
             ON d.owner = ((l.classid::bigint << 32) | l.objid::bigint) \
             WHERE l.locktype = 'advisory' AND d.id = '{id}'"
        ),
    )
    .expect("terminate A's lock connection");
    let frames = read_sse(&b, &id, None, "", usize::MAX).await;
    let got = seqs(&frames);
    assert_eq!(got, (1..=got.len() as u64).collect::<Vec<_>>());
    let endings = frames.iter().filter(|f| f.is_terminal()).count();
    assert_eq!(endings, 1, "one terminal event");
    // Let A hit the conflict (if it lost) and try to end the log itself.
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    let export: Value = get_json(&a, &format!("/api/debates/{id}/export.json")).await;
    let events: Vec<app::protocol::Event> =
        serde_json::from_value(export["events"].clone()).expect("events");
    assert_eq!(
        strip(&frames),
        logged(&a, &id).await,
        "nothing after the end"
    );
    assert_eq!(
        app::protocol::chain::verify_chain(&events),
        Ok(events.len())
    );
}
