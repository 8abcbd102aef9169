//! Access checks against the real binary and a real database: the non-loopback refusal, the Host
//! allow-list, the Origin check, security headers, and finding old debates. Judges are in
//! `judges.rs`.

use crate::common::*;
use reqwest::header;
use serde_json::{json, Value};

/// Whether a spawned server (stdout piped) reports that it listens; it is stopped either way.
fn listens(mut child: std::process::Child) -> bool {
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let listening = lines.any(|l| l.is_ok_and(|l| l.contains("listening on")));
    let _ = child.kill();
    let _ = child.wait();
    listening
}

#[tokio::test(flavor = "multi_thread")]
async fn beyond_loopback_a_paid_backend_needs_a_start_token() {
    let (_guard, db) = temp_db();
    let run = |extra: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_consilium"));
        c.args(["serve", "--addr", "0.0.0.0:0"])
            .args(extra)
            .env("DATABASE_URL", &db.url)
            .env("CONSILIUM_ALLOWED_HOSTS", "*")
            .env("OPENAI_MODEL", "gpt-test")
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
            .env_remove("CONSILIUM_START_TOKEN")
            .env_remove("CONSILIUM_ALLOW_ANONYMOUS_START");
        c
    };
    let out = run(&[]).output().expect("run");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        text.contains("refusing to listen on 0.0.0.0:0 with the openai backend")
            && text.contains("CONSILIUM_START_TOKEN")
            && text.contains("--allow-anonymous-start"),
        "{text}"
    );
    // With a start token, or the explicit override, it starts (and is stopped here).
    for extra in [
        &["--start-token", "s3cret"][..],
        &["--allow-anonymous-start"][..],
    ] {
        let child = run(extra)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        assert!(listens(child), "{extra:?} should start");
    }
}

/// SV-13: bound to loopback behind a reverse proxy (the deployment docs/OPERATIONS.md describes),
/// a paid backend needs a start token just the same; loopback names alone do not make a proxy.
#[tokio::test(flavor = "multi_thread")]
async fn behind_a_proxy_a_paid_backend_needs_a_start_token() {
    let (_guard, db) = temp_db();
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_consilium"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(extra)
            .env("DATABASE_URL", &db.url)
            .env("OPENAI_MODEL", "gpt-test")
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
            .env_remove("CONSILIUM_START_TOKEN")
            .env_remove("CONSILIUM_ALLOW_ANONYMOUS_START")
            .env_remove("CONSILIUM_ALLOWED_HOSTS")
            .env_remove("CONSILIUM_TRUST_PROXY")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let refused = [
        (&["--trust-proxy"][..], "(--trust-proxy)"),
        (
            &["--allowed-hosts", "debates.example.org"][..],
            "(--allowed-hosts debates.example.org)",
        ),
        (
            &[
                "--trust-proxy",
                "--allowed-hosts",
                "localhost,debates.example.org",
            ][..],
            "(--trust-proxy, --allowed-hosts debates.example.org)",
        ),
    ];
    for (extra, named) in refused {
        let out = run(extra).wait_with_output().expect("run");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?}: {text}");
        assert!(
            text.contains(&format!("refusing to serve behind a reverse proxy {named}"))
                && text.contains("CONSILIUM_START_TOKEN"),
            "{extra:?}: {text}"
        );
    }
    for extra in [
        &["--allowed-hosts", "localhost,127.0.0.1:3000,[::1]"][..],
        &["--trust-proxy", "--start-token", "s3cret"][..],
        &[
            "--allowed-hosts",
            "debates.example.org",
            "--allow-anonymous-start",
        ][..],
    ] {
        assert!(listens(run(extra)), "{extra:?} should start");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn host_allow_list_origin_check_and_security_headers() {
    let (_guard, db) = temp_db();
    let server = Server::start(&db, 0);
    // DNS rebinding: another host name reaches a loopback server → 421.
    let resp = client()
        .get(server.url("/api/debates"))
        .header(header::HOST, "attacker.example")
        .send()
        .await
        .expect("GET");
    assert_eq!(resp.status().as_u16(), 421);
    let body: Value = resp.json().await.expect("json");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("attacker.example")),
        "{body}"
    );
    let localhost = server.url("/api/debates").replace("127.0.0.1", "localhost");
    assert_eq!(
        client()
            .get(localhost)
            .send()
            .await
            .expect("GET")
            .status()
            .as_u16(),
        200
    );

    // A cross-site POST is refused before it starts anything — the JSON API and the server
    // function the form uses alike.
    let resp = client()
        .post(server.url("/api/debates"))
        .header(header::ORIGIN, "http://evil.example")
        .json(&json!({"query": "Should we migrate the billing service this week?"}))
        .send()
        .await
        .expect("POST");
    assert_eq!(resp.status().as_u16(), 403);
    let resp = client()
        .post(server.url("/api/start_debate"))
        .header(header::ORIGIN, "http://evil.example")
        .form(&[
            ("query", "Should we?"),
            ("protocol", "s4"),
            ("backend", "builtin"),
        ])
        .send()
        .await
        .expect("POST");
    assert_eq!(resp.status().as_u16(), 403);
    let list: Vec<Value> = get_json(&server, "/api/debates").await;
    assert!(list.is_empty(), "nothing was started: {list:?}");
    // The server function's body is capped like the API's.
    let resp = client()
        .post(server.url("/api/start_debate"))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(format!("query={}", "a".repeat(200 * 1024)))
        .send()
        .await
        .expect("POST");
    assert_eq!(resp.status().as_u16(), 413);

    // Headers: the page's CSP uses the nonce its scripts carry; JSON gets the strict default.
    let page = client().get(server.url("/")).send().await.expect("home");
    let h = page.headers().clone();
    let html = page.text().await.expect("html");
    assert_eq!(
        h.get("x-content-type-options").map(|v| v.as_bytes()),
        Some(&b"nosniff"[..])
    );
    assert!(h.get(header::REFERRER_POLICY).is_some());
    let csp = h
        .get(header::CONTENT_SECURITY_POLICY)
        .and_then(|v| v.to_str().ok())
        .expect("page CSP")
        .to_owned();
    assert!(
        csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline' 'wasm"),
        "{csp}"
    );
    let nonce = csp
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("nonce in CSP");
    assert!(
        html.contains(&format!("nonce=\"{nonce}\"")),
        "the scripts carry the nonce"
    );
    let api = client()
        .get(server.url("/api/debates"))
        .send()
        .await
        .expect("api");
    let api_csp = api
        .headers()
        .get(header::CONTENT_SECURITY_POLICY)
        .expect("api CSP");
    assert_eq!(
        api_csp,
        "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_filters_and_search_newest_first() {
    let (_guard, db) = temp_db();
    let server = Server::start(&db, 0);
    let mut ids = Vec::new();
    for q in [
        "Ship the tax engine today?",
        "Rename the API?",
        "Ship on Friday?",
        "Buy ACME shares now?",
    ] {
        ids.push(create(&server, json!({"query": q, "seed": 1})).await);
    }
    ids.reverse(); // newest first
    let page1: Vec<Value> = get_json(&server, "/api/debates?limit=2").await;
    let page_ids = |p: &[Value]| {
        p.iter()
            .map(|d| d["id"].as_str().unwrap_or("").to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(page_ids(&page1), ids[..2]);
    let page2: Vec<Value> =
        get_json(&server, &format!("/api/debates?limit=2&before={}", ids[1])).await;
    assert_eq!(page_ids(&page2), ids[2..]);
    let found: Vec<Value> = get_json(&server, "/api/debates?q=ship").await;
    assert_eq!(found.len(), 2, "{found:?}");
    let rr: Vec<Value> = get_json(&server, "/api/debates?protocol=round_robin").await;
    assert!(rr.is_empty());
    for bad in [
        "limit=0",
        "limit=201",
        "status=done",
        "before=zzzz",
        "before=0123456789abcdef",
        "colour=red",
    ] {
        let resp = client()
            .get(server.url(&format!("/api/debates?{bad}")))
            .send()
            .await
            .expect("GET");
        assert_eq!(resp.status().as_u16(), 400, "{bad}");
        let body: Value = resp.json().await.expect("json");
        assert!(body["error"].is_string(), "{bad}: {body}");
    }
}

/// SV-17: bound beyond loopback, the server must be told which `Host` names it serves; without
/// `--allowed-hosts` it refuses to start, naming the flag. Any name given, or `*` on purpose,
/// starts it.
#[tokio::test(flavor = "multi_thread")]
async fn beyond_loopback_the_hosts_must_be_named() {
    let (_guard, db) = temp_db();
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_consilium"))
            .args(["serve", "--addr", "0.0.0.0:0"])
            .args(extra)
            .env("DATABASE_URL", &db.url)
            .env_remove("CONSILIUM_ALLOWED_HOSTS")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_MODEL")
            .env_remove("CONSILIUM_HTTP_AGENT_URL")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let out = run(&[]).wait_with_output().expect("run");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("refusing to listen on 0.0.0.0:0 without --allowed-hosts")
            && text.contains("DNS rebinding"),
        "{text}"
    );
    for extra in [
        &["--allowed-hosts", "debates.example.org"][..],
        &["--allowed-hosts", "*"][..],
    ] {
        assert!(listens(run(extra)), "{extra:?} should start");
    }
}

/// SV-18: a request carrying two session cookies — one planted beside the real one — is refused
/// with a 400 that says what to do, on the API and on sign-out alike.
#[tokio::test]
async fn two_session_cookies_are_refused_sv_18() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    for path in ["/api/judge/queue", "/api/debates"] {
        let method = if path == "/api/debates" {
            reqwest::Method::POST
        } else {
            reqwest::Method::GET
        };
        let resp = client()
            .request(method, server.url(path))
            .header(
                "cookie",
                "consilium_session=cs_planted; __Host-consilium_session=cs_real",
            )
            .header("content-type", "application/json")
            .body(r#"{"query": "Ship it?"}"#)
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status().as_u16(), 400, "{path}");
        let body: serde_json::Value = resp.json().await.expect("json");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("two session cookies")),
            "{path}: {body}"
        );
    }
}

/// SV-18: a store failure reaches the JSON API and the page's server functions with the same
/// words, and neither carries the failure's detail: a stored event made unreadable (by hand,
/// in the SQLite file) is "internal error" to both, with nothing of the database's text.
#[tokio::test]
async fn the_api_and_the_server_functions_tell_a_store_failure_alike_sv_18() {
    let (_dir, db) = temp_db();
    let Some(path) = db.url.strip_prefix("sqlite:") else {
        return; // the file is edited by hand: SQLite only
    };
    let server = Server::start(&db, 0);
    let (id, _) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "seed": 2}),
    )
    .await;
    let file = rusqlite::Connection::open(path).expect("open the database file");
    // As an attacker or a failing disk would, past the append-only guard.
    file.execute("DROP TRIGGER events_no_update", [])
        .expect("drop the guard");
    file.execute(
        "UPDATE events SET body = 'secret-ish-detail {' WHERE debate_id = ?1 AND seq = 2",
        [&id],
    )
    .expect("spoil one event");
    drop(file);
    let said = "internal error; the server log has the details";
    let (status, api) = call_as(&server, &format!("/api/debates/{id}"), None, None).await;
    assert_eq!(status, 500, "{api}");
    assert_eq!(api["error"], said, "{api}");
    let resp = client()
        .post(server.url("/api/get_debate"))
        .form(&[("id", id.as_str())])
        .send()
        .await
        .expect("server function");
    let status = resp.status().as_u16();
    let text = resp.text().await.expect("body");
    assert!(status >= 400, "{status}: {text}");
    assert!(text.contains(said), "{status}: {text}");
    for detail in ["secret-ish", "line 1", "column", "seq", "expected"] {
        assert!(!text.contains(detail), "{detail} in {text}");
        assert!(!api.to_string().contains(detail), "{detail} in {api}");
    }
}
