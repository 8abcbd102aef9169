//! SV-7 and issue 12 against the real binary and a real database: judges and their tokens,
//! sessions and the CSRF check, the start token, the non-loopback refusal, the Host allow-list,
//! security headers, and that no token ever shows up in a log, an event, an export or a page.

mod common;

use common::*;
use reqwest::header;
use serde_json::{json, Value};

const START_TOKEN: &str = "op-canary-5f3a9d1e7b2c4a60";

fn slow_debate() -> Value {
    json!({"query": "Should we migrate the billing service to the new queue this week?"})
}

/// `(status, JSON body, headers)` of a request with an optional bearer token.
async fn call(
    method: reqwest::Method,
    url: String,
    bearer: Option<&str>,
    body: Option<Value>,
) -> (u16, Value, header::HeaderMap) {
    let mut req = client().request(method, url);
    if let Some(t) = bearer {
        req = req.bearer_auth(t);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    (status, resp.json().await.unwrap_or(Value::Null), headers)
}

#[tokio::test(flavor = "multi_thread")]
async fn judges_tokens_sessions_and_the_start_token_sv_7() {
    let (_guard, db) = temp_db();
    // Judges are made before the server starts (the CLI writes the same database).
    let ada = add_judge(&db, "ada", "judge");
    let vic = add_judge(&db, "vic", "viewer");
    assert_ne!(ada, vic);
    assert!(ada.len() >= 3 + 32, "at least 128 bits: {ada}");
    let (ok, dup) = cli_on(&db, &["judge", "add", "ada"]);
    assert!(!ok && dup.contains("exists already"), "{dup}");
    let server = Server::start_with(&db, 300, &[("CONSILIUM_START_TOKEN", START_TOKEN)]);
    let get = reqwest::Method::GET;
    let post = reqwest::Method::POST;

    // GET /api/judge/me: 401 without or with a wrong token, the judge with theirs.
    let (s, body, h) = call(get.clone(), server.url("/api/judge/me"), None, None).await;
    assert_eq!(s, 401, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("sign in")),
        "{body}"
    );
    assert_eq!(
        h.get(header::WWW_AUTHENTICATE).map(|v| v.as_bytes()),
        Some(&b"Bearer"[..])
    );
    let (s, _, _) = call(
        get.clone(),
        server.url("/api/judge/me"),
        Some("cj_nope"),
        None,
    )
    .await;
    assert_eq!(s, 401);
    let (s, me, _) = call(get.clone(), server.url("/api/judge/me"), Some(&ada), None).await;
    assert_eq!((s, me), (200, json!({"name": "ada", "role": "judge"})));
    let (s, _, _) = call(
        get.clone(),
        server.url("/api/judge/me"),
        Some(START_TOKEN),
        None,
    )
    .await;
    assert_eq!(s, 403, "the operator is not a judge");

    // Starting needs the start token or a judge; a viewer is known but not allowed.
    let start = |bearer: Option<String>| {
        let (post, url) = (post.clone(), server.url("/api/debates"));
        async move { call(post, url, bearer.as_deref(), Some(slow_debate())).await }
    };
    let (s, body, _) = start(None).await;
    assert_eq!(s, 401, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("start token")),
        "{body}"
    );
    assert_eq!(start(Some("wrong".into())).await.0, 401);
    assert_eq!(start(Some(vic.clone())).await.0, 403);
    let (s, by_judge, _) = start(Some(ada.clone())).await;
    assert_eq!(s, 201, "{by_judge}");
    let (s, created, _) = start(Some(START_TOKEN.into())).await;
    assert_eq!(s, 201, "{created}");
    let id = created["id"].as_str().expect("id").to_owned();

    // The judge-only stop: 401 without/with a wrong token, 403 for a viewer or the operator.
    let stop = server.url(&format!("/api/debates/{id}/stop"));
    assert_eq!(call(post.clone(), stop.clone(), None, None).await.0, 401);
    assert_eq!(
        call(post.clone(), stop.clone(), Some("cj_0000"), None)
            .await
            .0,
        401
    );
    assert_eq!(
        call(post.clone(), stop.clone(), Some(&vic), None).await.0,
        403
    );
    assert_eq!(
        call(post.clone(), stop.clone(), Some(START_TOKEN), None)
            .await
            .0,
        403
    );
    let (s, stopped, _) = call(post.clone(), stop.clone(), Some(&ada), None).await;
    assert_eq!((s, stopped), (200, json!({"id": id, "stopped_by": "ada"})));
    let (s, again, _) = call(post.clone(), stop.clone(), Some(&ada), None).await;
    assert_eq!(s, 409, "{again}");
    // The log ends with the judge's name on record, and still verifies.
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["status"], "interrupted");
    let last = detail["events"]
        .as_array()
        .and_then(|e| e.last())
        .expect("events");
    assert_eq!(
        (last["type"].as_str(), last["by"].as_str()),
        (Some("interrupted"), Some("ada"))
    );
    // The chain holds (a stopped debate has no decision to recompute).
    let (_, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(out.contains("chain verified"), "{out}");

    // A browser session: sign in with the form, the cookie is HttpOnly and SameSite=Strict.
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let origin = server.base.clone();
    let signed = browser
        .post(server.url("/api/judge/sign-in"))
        .header(header::ORIGIN, &origin)
        .form(&[("token", ada.as_str())])
        .send()
        .await
        .expect("sign in");
    assert_eq!(signed.status().as_u16(), 303);
    let cookie = signed
        .headers()
        .get(header::SET_COOKIE)
        .and_then(|c| c.to_str().ok())
        .expect("Set-Cookie")
        .to_owned();
    for part in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(
        !cookie.contains("Secure"),
        "plain http on loopback: {cookie}"
    );
    let session = cookie.split(';').next().expect("pair").to_owned();
    let me: Value = browser
        .get(server.url("/api/judge/me"))
        .header(header::COOKIE, &session)
        .send()
        .await
        .expect("me")
        .json()
        .await
        .expect("json");
    assert_eq!(me["name"], "ada");
    // A wrong token at the form goes back with an error, and sets no cookie.
    let wrong = browser
        .post(server.url("/api/judge/sign-in"))
        .form(&[("token", "cj_wrong")])
        .send()
        .await
        .expect("sign in");
    assert_eq!(
        wrong.headers().get(header::LOCATION).map(|l| l.as_bytes()),
        Some(&b"/judge/sign-in?error=token"[..])
    );
    assert!(wrong.headers().get(header::SET_COOKIE).is_none());

    // CSRF: a cookie-authenticated change without Origin, or from another site, is refused.
    let (s, created, _) = start(Some(ada.clone())).await;
    assert_eq!(s, 201, "{created}");
    let id2 = created["id"].as_str().expect("id").to_owned();
    let stop2 = server.url(&format!("/api/debates/{id2}/stop"));
    let with_cookie = |origin: Option<&str>| {
        let mut r = browser.post(stop2.clone()).header(header::COOKIE, &session);
        if let Some(o) = origin {
            r = r.header(header::ORIGIN, o);
        }
        r.send()
    };
    assert_eq!(
        with_cookie(None)
            .await
            .expect("no origin")
            .status()
            .as_u16(),
        403
    );
    assert_eq!(
        with_cookie(Some("http://evil.example"))
            .await
            .expect("evil")
            .status()
            .as_u16(),
        403
    );
    assert_eq!(
        with_cookie(Some(&origin))
            .await
            .expect("same site")
            .status()
            .as_u16(),
        200
    );

    // Rotation ends the old token and its sessions; removal ends the new one.
    let (ok, rotated) = server.cli(&["judge", "rotate", "ada"]);
    assert!(ok, "{rotated}");
    let ada2 = rotated
        .lines()
        .find(|l| l.starts_with("cj_"))
        .expect("new token")
        .trim()
        .to_owned();
    assert_eq!(
        call(get.clone(), server.url("/api/judge/me"), Some(&ada), None)
            .await
            .0,
        401
    );
    let old_session = browser
        .get(server.url("/api/judge/me"))
        .header(header::COOKIE, &session)
        .send()
        .await
        .expect("me");
    assert_eq!(old_session.status().as_u16(), 401);
    assert_eq!(
        call(get.clone(), server.url("/api/judge/me"), Some(&ada2), None)
            .await
            .0,
        200
    );
    let (ok, list) = server.cli(&["judge", "list"]);
    assert!(
        ok && list.contains("ada\tjudge") && list.contains("vic\tviewer"),
        "{list}"
    );
    assert!(!list.contains("cj_"), "list shows no token: {list}");
    let (ok, removed) = server.cli(&["judge", "remove", "ada"]);
    assert!(ok, "{removed}");
    assert_eq!(
        call(get.clone(), server.url("/api/judge/me"), Some(&ada2), None)
            .await
            .0,
        401
    );
    let (ok, missing) = server.cli(&["judge", "remove", "ada"]);
    assert!(!ok && missing.contains("no judge named 'ada'"), "{missing}");

    // The canary: no token or session id in any log line, event, export or page.
    let session_id = session
        .split_once('=')
        .map(|(_, v)| v.to_owned())
        .expect("id");
    let mut seen = server.log();
    for d in [&id, &id2] {
        for path in [
            format!("/api/debates/{d}"),
            format!("/api/debates/{d}/export.json"),
            format!("/api/debates/{d}/export.md"),
            format!("/debates/{d}"),
            format!("/debates/{d}/audit"),
        ] {
            seen.push_str(
                &client()
                    .get(server.url(&path))
                    .send()
                    .await
                    .expect("GET")
                    .text()
                    .await
                    .expect("text"),
            );
        }
    }
    seen.push_str(
        &client()
            .get(server.url("/"))
            .send()
            .await
            .expect("home")
            .text()
            .await
            .expect("text"),
    );
    assert!(
        seen.contains("stopped by judge ada"),
        "the judge's name is on record"
    );
    for secret in [
        START_TOKEN,
        ada.as_str(),
        ada2.as_str(),
        vic.as_str(),
        session_id.as_str(),
    ] {
        assert!(!seen.contains(secret), "a secret leaked: {secret}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn beyond_loopback_a_paid_backend_needs_a_start_token() {
    let (_guard, db) = temp_db();
    let run = |extra: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_consilium"));
        c.args(["serve", "--addr", "0.0.0.0:0"])
            .args(extra)
            .env("DATABASE_URL", &db.url)
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
        let mut child = run(extra)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
        let listening = lines.any(|l| l.is_ok_and(|l| l.contains("listening on")));
        let _ = child.kill();
        let _ = child.wait();
        assert!(listening, "{extra:?} should start");
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
        .json(&slow_debate())
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
