//! SV-7 against the real binary and a real database: judges and their tokens, sessions and the
//! CSRF check, the operator's start token, the judge's stop on record by name, and that no token
//! or session id ever shows up in a log, an event, an export or a page.

use crate::common::*;
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
        seen.push_str(&everything_shown(&server, d).await);
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
