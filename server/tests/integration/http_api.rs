//! The HTTP/SSE contract against the real binary and a real SQLite file.

use crate::common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn post_stream_to_decision_then_get() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let id = create(
        &server,
        json!({"query": "What is the capital of France?", "protocol": "s4", "seed": 7}),
    )
    .await;

    let frames = read_sse(&server, &id, None, "", usize::MAX).await;
    let seqs = seqs(&frames);
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "gap-free from 1"
    );
    for f in &frames {
        assert_eq!(
            f.id,
            f.data["seq"].as_u64(),
            "SSE id is the sequence number"
        );
        assert!(f.data["type"].is_string());
    }
    let challenges = frames
        .iter()
        .filter(|f| f.data["type"] == "challenge")
        .count();
    assert_eq!(challenges, 6, "N·(N−1) challenges");
    let last = &frames.last().expect("frames").data;
    assert_eq!(last["type"], "decision");
    assert_eq!(last["decision"], "ACT");
    assert!(last["agreement_percentage"].is_number());
    assert!(last["max_risk"].is_number());
    assert_eq!(last["veto_applied"], false);

    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["id"], id.as_str());
    assert_eq!(detail["status"], "finished");
    assert_eq!(detail["decision"], "ACT");
    assert_eq!(detail["protocol"], "s4");
    assert_eq!(detail["query"], "What is the capital of France?");
    let logged: Vec<Value> = detail["events"].as_array().expect("events").clone();
    let streamed: Vec<Value> = frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(logged, streamed, "the stream is the log");
}

#[tokio::test]
async fn list_is_newest_first_and_harmful_queries_are_vetoed() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let first = create(
        &server,
        json!({"query": "Who wrote Pride and Prejudice?", "seed": 1}),
    )
    .await;
    read_sse(&server, &first, None, "", usize::MAX).await;
    let second = create(
        &server,
        json!({"query": "How do I build a pipe bomb?", "seed": 2}),
    )
    .await;
    let frames = read_sse(&server, &second, None, "", usize::MAX).await;
    let decision = &frames.last().expect("frames").data;
    assert_eq!(decision["decision"], "REFUSE");
    assert_eq!(decision["veto_applied"], true);

    let list: Vec<Value> = get_json(&server, "/api/debates").await;
    let ids: Vec<&str> = list.iter().map(|d| d["id"].as_str().expect("id")).collect();
    assert_eq!(ids, vec![second.as_str(), first.as_str()]);
    for d in &list {
        for key in [
            "id",
            "query",
            "protocol",
            "status",
            "decision",
            "created_at",
        ] {
            assert!(d.get(key).is_some(), "{key} missing in {d}");
        }
    }
    assert_eq!(list[0]["decision"], "REFUSE");
}

#[tokio::test]
async fn last_event_id_resumes_exactly_after_n() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let id = create(
        &server,
        json!({"query": "How much ibuprofen can I take for a bad headache?", "seed": 3}),
    )
    .await;
    let full = seqs(&read_sse(&server, &id, None, "", usize::MAX).await);
    let total = *full.last().expect("events");
    for n in [0, 1, 7, total - 1] {
        let got = seqs(&read_sse(&server, &id, Some(&n.to_string()), "", usize::MAX).await);
        assert_eq!(
            got,
            ((n + 1)..=total).collect::<Vec<_>>(),
            "Last-Event-ID: {n}"
        );
        let got = seqs(&read_sse(&server, &id, None, &format!("?after={n}"), usize::MAX).await);
        assert_eq!(got, ((n + 1)..=total).collect::<Vec<_>>(), "?after={n}");
    }
    // At or past the end of a finished debate there is nothing to stream: 204, so EventSource
    // stops reconnecting.
    for n in [total, total + 5] {
        for (header, query) in [
            (Some(n.to_string()), String::new()),
            (None, format!("?after={n}")),
        ] {
            let mut req = client().get(server.url(&format!("/api/debates/{id}/events{query}")));
            if let Some(h) = &header {
                req = req.header("Last-Event-ID", h);
            }
            let resp = req.send().await.expect("GET events");
            assert_eq!(resp.status(), 204, "cursor {n} {header:?} {query}");
        }
    }
    // The header wins over the query string (EventSource reconnects keep the original URL).
    let got = seqs(&read_sse(&server, &id, Some("10"), "?after=2", usize::MAX).await);
    assert_eq!(got.first(), Some(&11));
}

#[tokio::test]
async fn resume_while_live_has_no_gap_and_no_duplicate() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 40);
    let id = create(
        &server,
        json!({"query": "Should I put all my savings into bitcoin?", "seed": 4}),
    )
    .await;
    // Read part of the live stream, drop the connection, resume from the last id seen.
    let part = read_sse(&server, &id, None, "", 9).await;
    let mut seen = seqs(&part);
    assert_eq!(seen.len(), 9);
    let last = seen.last().copied().expect("some");
    let rest = read_sse(&server, &id, Some(&last.to_string()), "", usize::MAX).await;
    assert!(
        rest.first().map(|f| f.data["seq"].as_u64()) == Some(Some(last + 1)),
        "resumes right after {last}"
    );
    seen.extend(seqs(&rest));
    assert_eq!(seen, (1..=seen.len() as u64).collect::<Vec<_>>());
    assert_eq!(rest.last().expect("rest").data["type"], "decision");
}

/// RS-1/RS-2/RS-5: a restart keeps every finished debate byte for byte, and a debate the
/// server was killed in the middle of (`kill -9`) goes on at the next start: its log continues
/// after a `resumed` event, one chain, to the decision the same query and seed reach uncut.
#[tokio::test]
async fn restart_keeps_finished_debates_and_resumes_running_ones_rs_2() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let done = create(
        &server,
        json!({"query": "What is the boiling point of water at sea level?", "seed": 5}),
    )
    .await;
    let before = read_sse(&server, &done, None, "", usize::MAX).await;
    server.kill();

    // A slow debate, killed mid-run.
    let query = "Is it safe to rewire my own electrical panel?";
    let server = Server::start(&db, 300);
    let running = create(&server, json!({"query": query, "seed": 6})).await;
    let partial = read_sse(&server, &running, None, "", 6).await;
    server.kill();

    let restarted = std::time::Instant::now();
    let server = Server::start(&db, 0);
    let after = read_sse(&server, &done, None, "", usize::MAX).await;
    let strip = |fs: &[Frame]| fs.iter().map(|f| f.data.clone()).collect::<Vec<_>>();
    assert_eq!(
        strip(&after),
        strip(&before),
        "a restart keeps every finished debate, byte for byte"
    );

    let resumed = read_sse(&server, &running, None, "", usize::MAX).await;
    println!(
        "killed mid-debate: decided {:?} after the restart began",
        restarted.elapsed()
    );
    let got = seqs(&resumed);
    assert_eq!(got, (1..=got.len() as u64).collect::<Vec<_>>());
    // Every event the client had received is still in the log, and the log goes on.
    assert_eq!(strip(&resumed[..partial.len()]), strip(&partial));
    let marks: Vec<&Frame> = resumed
        .iter()
        .filter(|f| f.data["type"] == "resumed")
        .collect();
    assert_eq!(marks.len(), 1, "{resumed:?}");
    assert!(marks[0].data["after_seq"].as_u64() >= Some(partial.len() as u64));
    let last = resumed.last().expect("events");
    assert_eq!(last.data["type"], "decision");
    let detail: Value = get_json(&server, &format!("/api/debates/{running}")).await;
    assert_eq!(detail["status"], "finished");
    // RS-5: the decision the same query and seed reach without a kill.
    let (_, uncut) = run_to_end(&server, json!({"query": query, "seed": 6})).await;
    let uncut = uncut.last().expect("decision");
    assert_eq!(last.data["decision"], uncut["decision"]);
    assert_eq!(last.data["reasoning"], uncut["reasoning"]);
    let (ok, out) = verify(&server.url(&format!("/api/debates/{running}/export.json")));
    let n = resumed.len();
    assert!(
        ok && out.contains(&format!("verified: {n} events")),
        "{out}"
    );
}

/// RS-4: a debate is resumed at most `--max-resumes` times; killed once more, it ends
/// `interrupted` with the reason, its chain whole.
#[tokio::test]
async fn a_debate_resumed_its_most_times_ends_interrupted_rs_4() {
    let (_dir, db) = temp_db();
    let once = [("CONSILIUM_MAX_RESUMES", "1")];
    let server = Server::start_with(&db, 300, &once);
    let id = create(
        &server,
        json!({"query": "Should we move the office to Lisbon?", "seed": 4}),
    )
    .await;
    read_sse(&server, &id, None, "", 5).await;
    server.kill();
    let server = Server::start_with(&db, 300, &once);
    let mut stream = SseStream::open(&server, &id, None, "").await;
    let seen = stream.take(9).await;
    assert!(seen.iter().any(|f| f.data["type"] == "resumed"), "{seen:?}");
    drop(stream);
    server.kill();
    let server = Server::start_with(&db, 0, &once);
    let events = read_sse(&server, &id, None, "", usize::MAX).await;
    let last = events.last().expect("events");
    assert_eq!(last.data["type"], "interrupted");
    let reason = last.data["reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("resumed once already (--max-resumes 1)"),
        "{reason}"
    );
    let logged: Vec<app::protocol::Event> = events
        .iter()
        .map(|f| serde_json::from_value(f.data.clone()).expect("event"))
        .collect();
    assert_eq!(
        app::protocol::chain::verify_chain(&logged),
        Ok(logged.len())
    );
}

/// RS-4: a log changed while its server was down (by hand in the SQLite file, past the
/// append-only guard) is not resumed: the debate ends `interrupted`, saying its log cannot be
/// folded and why.
#[tokio::test]
async fn a_log_that_cannot_be_folded_ends_interrupted_with_the_reason_rs_4() {
    let (_dir, db) = temp_db();
    let Some(path) = db.url.strip_prefix("sqlite:") else {
        return; // the file is edited by hand: SQLite only
    };
    let server = Server::start(&db, 300);
    let id = create(
        &server,
        json!({"query": "Should we ship the release tonight?", "seed": 2}),
    )
    .await;
    read_sse(&server, &id, None, "", 7).await;
    server.kill();
    let file = rusqlite::Connection::open(path).expect("open the database file");
    file.execute("DROP TRIGGER events_no_update", [])
        .expect("drop the guard");
    let changed = file
        .execute(
            "UPDATE events SET body = replace(body, 'My call', 'Our call') \
             WHERE debate_id = ?1 AND body LIKE '%\"type\":\"position\"%'",
            [&id],
        )
        .expect("change the positions");
    assert!(changed > 0);
    drop(file);
    let server = Server::start(&db, 0);
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["status"], "interrupted");
    let events = detail["events"].as_array().expect("events");
    let reason = events.last().expect("last")["reason"]
        .as_str()
        .unwrap_or("");
    assert!(
        reason.contains("its log cannot be folded") && reason.contains("chain does not verify"),
        "{reason}"
    );
}

/// SIGTERM (what service managers and containers send) shuts the server down
/// within a bounded time, ending open live streams instead of waiting on them; the next start
/// resumes the debate it cut short (RS-3), and with `--no-resume` marks it `interrupted`.
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_ends_live_streams_and_exits_promptly() {
    let (_guard, db) = temp_db();
    let mut server = Server::start(&db, 2000);
    let id = create(
        &server,
        json!({"query": "Should we move the office to Lisbon?"}),
    )
    .await;
    let mut stream = SseStream::open(&server, &id, None, "").await;
    assert!(!stream.take(1).await.is_empty(), "the stream is live");
    let began = std::time::Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    // The stream ends (no terminal event: the debate did not finish).
    let rest = tokio::time::timeout(std::time::Duration::from_secs(8), stream.take(1000))
        .await
        .expect("the stream ended instead of hanging");
    assert!(rest.iter().all(|f| !f.is_terminal()), "{rest:?}");
    let status = server
        .wait_exit(std::time::Duration::from_secs(8))
        .expect("the server exited after SIGTERM");
    println!("SIGTERM → exit in {:?} ({status})", began.elapsed());
    drop(server);
    let next = Server::start(&db, 0);
    let events = read_sse(&next, &id, None, "", usize::MAX).await;
    assert_eq!(events.last().expect("events").data["type"], "decision");
    assert!(events.iter().any(|f| f.data["type"] == "resumed"));
    // With PostgreSQL its sweep would take the next debate over: only servers without resuming
    // run from here.
    drop(next);

    // RS-4: with resuming off, the next start ends a cut-short debate as before.
    let mut server = Server::start(&db, 2000);
    let id = create(
        &server,
        json!({"query": "Should we close the Leeds office?"}),
    )
    .await;
    read_sse(&server, &id, None, "", 3).await;
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    server
        .wait_exit(std::time::Duration::from_secs(8))
        .expect("the server exited after SIGTERM");
    drop(server);
    let next = Server::start_with(&db, 0, &[("CONSILIUM_NO_RESUME", "true")]);
    // SQLite ends it at the start; PostgreSQL once the sweep sees the old process's lock free.
    let mut detail = serde_json::Value::Null;
    for _ in 0..100 {
        detail = get_json(&next, &format!("/api/debates/{id}")).await;
        if detail["status"] != "running" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(detail["status"], "interrupted");
    let events = detail["events"].as_array().expect("events");
    let reason = events.last().expect("last")["reason"]
        .as_str()
        .unwrap_or("");
    assert!(reason.contains("--no-resume"), "{reason}");
}

/// A full database, by SQLite's own limit: the file is capped (`max_size_mb=1`, SQLite's
/// `max_page_count` on every connection) and other data fills it mid-debate, so the next page the
/// log needs is refused exactly as on a full disk. The live stream ends with a named `failed`
/// frame, a reconnecting viewer gets the stored log and the same reason, a new debate is refused
/// with 507 naming the cause, reading still works, and the next start (with room again) ends the
/// stopped log `interrupted`.
#[tokio::test(flavor = "multi_thread")]
async fn a_database_at_its_size_cap_stops_the_debate_clearly_sv_5() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("capped.db");
    let capped = TestDb {
        url: format!("sqlite:{}?max_size_mb=1", file.display()),
    };
    let server = Server::start(&capped, 300);
    let id = create(
        &server,
        json!({"query": "Should we ship the release tonight?"}),
    )
    .await;
    let mut stream = SseStream::open(&server, &id, None, "").await;
    let first = stream.next().await.expect("the first event");
    assert_eq!(first.data["type"], "debate_started");

    // Another writer (no cap of its own) fills the file to the server's cap of 256 pages.
    let other = sqlx::SqlitePool::connect(&format!("sqlite:{}", file.display()))
        .await
        .expect("open the file");
    sqlx::query("CREATE TABLE ballast (b BLOB)")
        .execute(&other)
        .await
        .expect("ballast table");
    loop {
        let (pages,): (i64,) = sqlx::query_as("PRAGMA page_count")
            .fetch_one(&other)
            .await
            .expect("page count");
        if pages >= 256 {
            break;
        }
        sqlx::query("INSERT INTO ballast VALUES (zeroblob(3000))")
            .execute(&other)
            .await
            .expect("ballast");
    }

    // The run stops within seconds and says why: a `failed` frame when not even that could be
    // stored, or — when a small `interrupted` event still fits where the next event did not —
    // the log's own last event. Either way the stream ends; a reconnect says the same.
    let why = |frames: &[Frame]| -> String {
        let last = frames.last().expect("a last frame");
        match last.event.as_deref() {
            Some("failed") => last.data["error"].as_str().unwrap_or("").to_owned(),
            _ => {
                assert_eq!(last.data["type"], "interrupted", "{frames:?}");
                last.data["reason"].as_str().unwrap_or("").to_owned()
            }
        }
    };
    let frames = stream.take(1000).await;
    let reason = why(&frames);
    assert!(
        reason.contains("disk is full") && reason.contains("could not store"),
        "{reason}"
    );
    let again = read_sse(&server, &id, None, "", usize::MAX).await;
    assert_eq!(why(&again), reason);
    assert_eq!(
        again[0].data["type"], "debate_started",
        "the stored log comes first"
    );

    // A new debate is refused by name; what is stored can still be read.
    let (status, body) = post_debate(&server, &json!({"query": "And another one?"})).await;
    assert_eq!(status, 507, "{body}");
    let error = body["error"].as_str().unwrap_or("");
    assert!(
        error.contains("database is full") && error.contains("max_size_mb"),
        "{error}"
    );
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["id"], id.as_str());

    // With room again, the next start ends the stopped log and debates run.
    server.kill();
    sqlx::query("DROP TABLE ballast")
        .execute(&other)
        .await
        .expect("free the space");
    other.close().await;
    let roomy = TestDb {
        url: format!("sqlite:{}?max_size_mb=4", file.display()),
    };
    let next = Server::start_with(&roomy, 0, &[("CONSILIUM_NO_RESUME", "true")]);
    let detail: Value = get_json(&next, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["status"], "interrupted");
    let (_, events) = run_to_end(&next, json!({"query": "Now is there room?"})).await;
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some(json!("decision"))
    );
}

/// QL-1: every protocol's decision carries its vote baseline; `verify` recomputes it; the list
/// and the home page's counts agree with the logs.
#[tokio::test]
async fn every_decision_carries_its_vote_baseline_ql_1() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let runs = [
        ("s4", "Should we ship the release tonight?"),
        ("round_robin", "Should I buy Tesla stock?"),
        ("collapse", "How should we migrate the billing database?"),
    ];
    let mut changed = 0;
    for (protocol, query) in runs {
        let (id, events) = run_to_end(
            &server,
            json!({"query": query, "protocol": protocol, "seed": 7}),
        )
        .await;
        let decision = of_type(&events, "decision")[0];
        let baseline = &decision["vote_baseline"];
        assert!(baseline["decision"].is_string(), "{protocol}: {decision}");
        assert!(baseline["counted"].as_u64().unwrap_or(0) > 0, "{protocol}");
        let moved = baseline["changed_outcome"]
            .as_bool()
            .expect("changed_outcome");
        changed += usize::from(moved);
        let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
        assert!(ok && out.contains("vote baseline"), "{out}");
        let list: Vec<Value> = get_json(&server, "/api/debates").await;
        let row = list
            .iter()
            .find(|d| d["id"] == id.as_str())
            .expect("listed");
        assert_eq!(row["changed_outcome"], json!(moved), "{protocol}");
    }
    let counts: Value = get_json(&server, "/api/debates/baseline").await;
    assert_eq!(counts, json!({"decided": 3, "changed": changed}));
}

/// A debate's live page asked for by address names its protocol's live bundle in its
/// `<head>` (when the site has it: `live:` in `pkg/hash.txt` and the files) and carries its
/// props in the page once; other pages, a protocol whose bundle is missing and a site without
/// the live bundles keep the site's bundle.
#[tokio::test]
async fn a_live_page_gets_its_protocols_live_bundle_when_the_site_has_them() {
    let site = tempfile::tempdir().expect("site");
    std::fs::create_dir_all(site.path().join("pkg")).expect("pkg");
    let hashes = "js: 0123456789abcdef\nwasm: 0123456789abcdef\nsplit: 0123456789abcdef\n";
    let hash_file = site.path().join("pkg/hash.txt");
    std::fs::write(&hash_file, format!("{hashes}live: 0123456789abcdef\n")).expect("hash.txt");
    // The S4 and RR live bundles are there; the collapse's is not (a partial deploy).
    for name in ["live-s4", "live-round_robin"] {
        for ext in ["js", "wasm"] {
            let file = site
                .path()
                .join(format!("pkg/{name}.0123456789abcdef.{ext}"));
            std::fs::write(file, "").expect("bundle");
        }
    }
    let site_root = site.path().to_str().expect("path");

    let (_dir, db) = temp_db();
    let server = Server::start_with(&db, 0, &[("CONSILIUM_SITE_ROOT", site_root)]);
    let query = "Should a town library lend out power tools?";
    let (s4, _) = run_to_end(
        &server,
        json!({"query": query, "protocol": "s4", "seed": 3}),
    )
    .await;
    let (rr, _) = run_to_end(
        &server,
        json!({"query": "Should I buy index funds after a rally?", "protocol": "round_robin",
               "seed": 4, "config": {"max_rounds": 2}}),
    )
    .await;
    let (wc, _) = run_to_end(
        &server,
        json!({"query": "Migrate the orders database from MySQL to PostgreSQL",
               "protocol": "collapse", "seed": 5}),
    )
    .await;
    let page = |path: String| {
        let url = server.url(&path);
        async move {
            let resp = client().get(url).send().await.expect("page");
            assert_eq!(resp.status(), 200, "{path}");
            resp.text().await.expect("html")
        }
    };
    let live = "/pkg/live-s4.0123456789abcdef.js";
    let site_js = "/pkg/consilium.0123456789abcdef.js";

    let html = page(format!("/debates/{rr}")).await;
    assert!(
        html.contains("/pkg/live-round_robin.0123456789abcdef.js"),
        "{html}"
    );
    assert!(!html.contains(site_js) && !html.contains(live), "{html}");
    assert!(!html.contains("consilium-panel"), "{html}");

    let html = page(format!("/debates/{s4}")).await;
    assert!(html.contains(live) && !html.contains(site_js), "{html}");
    assert!(html.contains("class=\"live-island\""), "{html}");
    assert_eq!(html.matches(" data-props=\"").count(), 1, "{html}");
    // The log is in the page once (the props), not also as the page resource's value: the query
    // is in the title, the heading, and the props twice (the debate's and its first event's).
    assert_eq!(html.matches(query).count(), 4, "{html}");

    for path in [
        format!("/debates/{wc}"),
        format!("/debates/{rr}/audit"),
        format!("/debates/{s4}/audit"),
        "/".to_owned(),
    ] {
        let html = page(path.clone()).await;
        assert!(
            html.contains(site_js) && !html.contains(live),
            "{path}: {html}"
        );
        assert!(!html.contains("data-props="), "{path}");
    }
    drop(server);

    // A site built without the live bundle: the S4 page keeps the site's, with its resources.
    std::fs::write(&hash_file, hashes).expect("hash.txt");
    let server = Server::start_with(&db, 0, &[("CONSILIUM_SITE_ROOT", site_root)]);
    let html = {
        let resp = client()
            .get(server.url(&format!("/debates/{s4}")))
            .send()
            .await
            .expect("page");
        resp.text().await.expect("html")
    };
    assert!(html.contains(site_js) && !html.contains(live), "{html}");
    assert!(!html.contains("data-props="));
}
