//! SV-2: exports carry the hash chain; `consilium verify` checks it and recomputes the decision.

use crate::common::*;
use serde_json::{json, Value};

use app::protocol::s4::S4Event;

#[tokio::test]
async fn exported_logs_verify_and_tampering_is_located() {
    let (dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let id = create(
        &server,
        json!({"query": "Should I put all my savings into bitcoin?", "seed": 7}),
    )
    .await;
    read_sse(&server, &id, None, "", usize::MAX).await;

    let url = server.url(&format!("/api/debates/{id}/export.json"));
    let resp = client().get(&url).send().await.expect("GET export");
    assert_eq!(resp.status(), 200);
    let disposition = resp.headers()["content-disposition"]
        .to_str()
        .expect("header")
        .to_owned();
    assert!(
        disposition.contains(&format!("consilium-{id}.json")),
        "{disposition}"
    );
    let export: Value = resp.json().await.expect("json");
    let events = export["events"].as_array().expect("events");
    assert_eq!(events[0]["prev_hash"], "0".repeat(64));
    for pair in events.windows(2) {
        assert_eq!(pair[1]["prev_hash"], pair[0]["hash"], "linked");
    }
    let n = events.len();
    let decision = export["decision"].as_str().expect("decision").to_owned();

    let file = dir.path().join("export.json");
    std::fs::write(&file, serde_json::to_string_pretty(&export).expect("ser")).expect("write");
    let (ok, text) = verify(file.to_str().expect("path"));
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!(
            "verified: {n} events, decision {decision} recomputed"
        )),
        "{text}"
    );

    // The same check straight from the server.
    let (ok, text) = verify(&url);
    assert!(ok, "{text}");

    // Edit one challenge's text: the chain breaks exactly there.
    let mut tampered = export.clone();
    let at = tampered["events"]
        .as_array()
        .expect("events")
        .iter()
        .position(|e| e["type"] == "challenge")
        .expect("a challenge");
    tampered["events"][at]["text"] = json!("I fully agree with you.");
    let seq = tampered["events"][at]["seq"].as_u64().expect("seq");
    std::fs::write(&file, tampered.to_string()).expect("write");
    let (ok, text) = verify(file.to_str().expect("path"));
    assert!(!ok, "tampering must fail: {text}");
    assert!(text.contains(&format!("tampered at event {seq}")), "{text}");

    // Flip the final decision: caught at the last event.
    let mut forged = export.clone();
    forged["events"][n - 1]["decision"] = json!(if decision == "ACT" { "REFUSE" } else { "ACT" });
    std::fs::write(&file, forged.to_string()).expect("write");
    let (ok, text) = verify(file.to_str().expect("path"));
    assert!(!ok);
    assert!(text.contains(&format!("tampered at event {n}")), "{text}");

    // Not a log at all.
    std::fs::write(&file, "{\"hello\": 1}").expect("write");
    let (ok, text) = verify(file.to_str().expect("path"));
    assert!(!ok);
    assert!(text.contains("no \"events\""), "{text}");
    let (ok, text) = verify(&server.url("/api/debates/nope/export.json"));
    assert!(!ok);
    assert!(text.contains("404"), "{text}");
}

#[tokio::test]
async fn sv_5_sigkill_mid_debate_loses_nothing_a_client_saw_and_the_chain_verifies() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 150);
    let id = create(
        &server,
        json!({"query": "Is it safe to rewire my own electrical panel?", "seed": 2}),
    )
    .await;
    // A viewer receives part of the debate; the server dies the moment the 12th event arrives.
    let seen = read_sse(&server, &id, None, "", 12).await;
    server.kill();
    assert_eq!(seen.len(), 12);
    assert!(
        seen.iter().all(|f| f.data["type"] != "decision"),
        "killed mid-debate"
    );

    let server = Server::start_with(&db, 0, &[("CONSILIUM_NO_RESUME", "true")]);
    let export: Value = get_json(&server, &format!("/api/debates/{id}/export.json")).await;
    assert_eq!(export["status"], "interrupted");
    let events: Vec<app::protocol::Event> =
        serde_json::from_value(export["events"].clone()).expect("events");
    // Every event the viewer saw is in the log, byte for byte (same hash), at the same place.
    for frame in &seen {
        let seq = frame.data["seq"].as_u64().expect("seq");
        let stored = &events[seq as usize - 1];
        assert_eq!(stored.seq, seq);
        assert_eq!(
            stored.hash,
            frame.data["hash"].as_str().expect("hash"),
            "event {seq}"
        );
    }
    let last = events.last().expect("some");
    assert_eq!(last.body.kind(), "interrupted", "marked, not resumed");
    assert!(
        events.len() > seen.len(),
        "the interrupted event follows what was seen"
    );
    assert_eq!(
        app::protocol::chain::verify_chain(&events),
        Ok(events.len()),
        "the chain still verifies after SIGKILL and restart"
    );
    eprintln!(
        "SV-5 crash test: the viewer saw {} events; after restart the log holds {} (last: {}), chain intact",
        seen.len(),
        events.len(),
        last.body.kind()
    );
}

/// Logs exported by the release before the restructuring (one per protocol, an interrupted one
/// and one cut short by its token budget, from a real small model) still verify, and an edit to
/// any of them is still caught.
#[test]
fn exports_from_before_the_restructuring_still_verify() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "fixtures: {names:?}");
    let scratch = tempfile::tempdir().expect("tempdir");
    for path in names {
        let file = path.to_str().expect("path");
        let signed = std::fs::read_to_string(&path)
            .expect("read")
            .contains("\"signature\"");
        let interrupted = path.to_string_lossy().contains("interrupted");
        if !signed && !interrupted {
            // SV-16: a log without a signature proves nothing about its author: it fails
            // unless the judge accepts that on purpose.
            let (ok, text) = verify(file);
            assert!(!ok && text.contains("--allow-unsigned"), "{file}: {text}");
        }
        let (ok, text) = verify_with(&[file, "--allow-unsigned"]);
        if interrupted {
            // SV-5: its chain holds, but there is no decision to recompute: not a full pass.
            assert!(!ok, "{}: {text}", path.display());
            assert!(
                text.contains("chain verified"),
                "{}: {text}",
                path.display()
            );
        } else {
            assert!(ok, "{}: {text}", path.display());
            assert!(text.contains("verified:"), "{}: {text}", path.display());
        }

        let mut export: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        let events = export["events"].as_array_mut().expect("events");
        let last = events.len() - 1;
        events[last / 2]["ts"] = json!("2000-01-01T00:00:00.000Z");
        let file = scratch.path().join("tampered.json");
        std::fs::write(&file, export.to_string()).expect("write");
        let (ok, text) = verify_with(&[file.to_str().expect("path"), "--allow-unsigned"]);
        assert!(!ok, "{}: an edited log verified: {text}", path.display());
        assert!(
            !text.contains("chain verified"),
            "{}: {text}",
            path.display()
        );
    }
}

/// `consilium verify` on hostile files answers with a clear error, quickly, and
/// never hangs or crashes: 5,000-deep nesting, a 200 MB file, a million events, invalid UTF-8,
/// numbers that overflow.
#[test]
fn hostile_exports_get_a_clear_error_not_a_hang_or_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        path.to_string_lossy().into_owned()
    };
    let deep = format!("{{\"events\": {}{}}}", "[".repeat(5000), "]".repeat(5000));
    let million = format!("[{}]", vec!["{}"; 1_000_000].join(","));
    let cases: Vec<(String, &str)> = vec![
        (write("deep.json", deep.as_bytes()), "recursion limit exceeded"),
        (write("million.json", million.as_bytes()), "at most 100000"),
        (write("utf8.json", b"{\"events\": [\"\xff\xfe\"]}"), "not UTF-8 text"),
        (
            write("overflow.json", br#"{"events": [{"seq": 18446744073709551616, "ts": "t", "type": "interrupted", "reason": "x", "prev_hash": "", "hash": ""}]}"#),
            "not a valid event",
        ),
        (write("float.json", br#"{"events": [1e400]}"#), "not a JSON document"),
        ({
            // 200 MB without writing 200 MB: a sparse file.
            let path = dir.path().join("huge.json");
            std::fs::File::create(&path)
                .and_then(|f| f.set_len(200 * 1024 * 1024))
                .expect("sparse file");
            path.to_string_lossy().into_owned()
        }, "at most 32 MB"),
    ];
    for (path, expected) in cases {
        let started = std::time::Instant::now();
        let (ok, out) = verify(&path);
        assert!(!ok, "{path}: {out}");
        assert!(out.contains(expected), "{path}: want {expected:?} in {out}");
        println!("{path}: {:?}: {}", started.elapsed(), out.trim());
    }
}

/// A log that proves its author. A finished log carries the server's signature
/// (key at `GET /api/keys`); verify reports "signed by <key id>", honours a pinned key, and calls
/// a log edited and re-hashed by hand, or cut before its decision, tampered.
#[tokio::test]
async fn the_server_signs_ended_logs_and_rehashing_by_hand_is_caught() {
    let (dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let id = create(
        &server,
        json!({"query": "Should we rotate the API keys today?", "seed": 4}),
    )
    .await;
    read_sse(&server, &id, None, "", usize::MAX).await;
    let keys: Vec<Value> = get_json(&server, "/api/keys").await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    let key_id = keys[0]["key_id"].as_str().expect("key id").to_owned();
    let public = keys[0]["public_key"]
        .as_str()
        .expect("public key")
        .to_owned();
    assert_eq!(public.len(), 64);

    let url = server.url(&format!("/api/debates/{id}/export.json"));
    let export: Value = client()
        .get(&url)
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("json");
    assert_eq!(export["signature"]["key_id"], key_id.as_str());
    // SV-16: the whole public key is printed, and an unpinned check says what it proves.
    let (ok, out) = verify(&url);
    assert!(
        ok && out.contains(&format!("signed by {key_id}: public key {public}")),
        "{out}"
    );
    assert!(out.contains("key not pinned"), "{out}");
    let (ok, out) = verify_with(&[&url, "--key", &public]);
    assert!(
        ok && !out.contains("key not pinned"),
        "pinned to the right key: {out}"
    );
    let (ok, out) = verify_with(&[&url, "--key", &"ab".repeat(32)]);
    assert!(!ok && out.contains("not by the pinned key"), "{out}");
    // A key id is 64 bits: it names the key but does not pin it.
    let (ok, out) = verify_with(&[&url, "--key", &key_id]);
    assert!(!ok && out.contains("does not pin it"), "{out}");
    // The whole key as base64, or in a file (hex), pins it too.
    let bytes: Vec<u8> = (0..32)
        .map(|i| u8::from_str_radix(&public[2 * i..2 * i + 2], 16).expect("hex"))
        .collect();
    let b64 = base64_of(&bytes);
    let (ok, out) = verify_with(&[&url, "--key", &b64]);
    assert!(ok, "pinned by base64 {b64}: {out}");
    let key_file = dir.path().join("server.pub");
    std::fs::write(&key_file, format!("{public}\n")).expect("write");
    let (ok, out) = verify_with(&[&url, "--key", key_file.to_str().expect("path")]);
    assert!(ok, "pinned by a file: {out}");

    // Edit an agent's reasoning and re-hash the whole chain by hand: the chain holds, the
    // signature does not.
    let mut events: Vec<app::protocol::Event> =
        serde_json::from_value(export["events"].clone()).expect("events");
    let target = events
        .iter()
        .position(|e| {
            matches!(
                e.body,
                app::protocol::EventBody::S4(S4Event::Position { .. })
            )
        })
        .expect("a position");
    if let app::protocol::EventBody::S4(S4Event::Position { position, .. }) =
        &mut events[target].body
    {
        position.reasoning = "Edited after the fact.".into();
    }
    let mut prev = app::protocol::chain::GENESIS.to_owned();
    for e in events.iter_mut() {
        *e = app::protocol::chain::seal(e.clone(), &prev);
        prev = e.hash.to_string();
    }
    let mut rehashed = export.clone();
    rehashed["events"] = serde_json::to_value(&events).expect("events");
    let path = dir.path().join("rehashed.json");
    std::fs::write(&path, rehashed.to_string()).expect("write");
    let (ok, out) = verify(path.to_str().expect("path"));
    assert!(!ok && out.contains("edited and re-hashed"), "{out}");

    // Cut before the decision: no longer "unfinished" but tampered.
    let mut cut = export.clone();
    let n = cut["events"].as_array().map_or(0, Vec::len);
    cut["events"]
        .as_array_mut()
        .expect("events")
        .truncate(n - 1);
    let path = dir.path().join("cut.json");
    std::fs::write(&path, cut.to_string()).expect("write");
    let (ok, out) = verify(path.to_str().expect("path"));
    assert!(
        !ok && out.contains("tampered: the log was cut off"),
        "{out}"
    );

    // The key survives a restart (same file beside the database), so old logs still verify.
    drop(server);
    let again = Server::start(&db, 0);
    let keys: Vec<Value> = get_json(&again, "/api/keys").await;
    assert_eq!(keys[0]["key_id"], key_id.as_str());
}

/// Standard base64 with padding, as `GET /api/keys` readers may hold a key.
fn base64_of(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(char::from(DIGITS[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    while !out.len().is_multiple_of(4) {
        out.push('=');
    }
    out
}

/// `consilium verify FILE | head -2`: once the reader has gone, the command stops quietly
/// with the status a shell gives a program ended by SIGPIPE, not with a panic and a backtrace.
#[test]
fn verify_stops_quietly_when_its_reader_has_gone() {
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/s4-finished.json");
    // The pipe's reading end is closed before the command starts: its first line cannot be read.
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_consilium"))
        .arg("verify")
        .arg(&file)
        .env_remove("CONSILIUM_CA_CERT")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run verify");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}
