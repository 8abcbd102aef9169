//! SV-6 / S4-8: every endpoint answers malformed requests with a 4xx and a JSON error naming the
//! problem — never a 5xx, never HTML or an empty body — and writes nothing.

use crate::common::*;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request};
use serde_json::{json, Value};

struct Case {
    name: String,
    method: Method,
    /// Relative to the server; `{id}` is replaced by a real debate's id.
    path: String,
    headers: Vec<(&'static str, HeaderValue)>,
    body: Vec<u8>,
    status: u16,
    /// A word the error message must contain (lowercase).
    mentions: &'static str,
}

fn json_ct() -> (&'static str, HeaderValue) {
    ("content-type", HeaderValue::from_static("application/json"))
}

/// `POST /api/debates` with a JSON content type.
fn post(name: &str, body: impl Into<Vec<u8>>, status: u16, mentions: &'static str) -> Case {
    Case {
        name: name.to_owned(),
        method: Method::POST,
        path: "/api/debates".into(),
        headers: vec![json_ct()],
        body: body.into(),
        status,
        mentions,
    }
}

fn get(name: &str, path: impl Into<String>, status: u16, mentions: &'static str) -> Case {
    Case {
        name: name.to_owned(),
        method: Method::GET,
        path: path.into(),
        headers: vec![],
        body: vec![],
        status,
        mentions,
    }
}

fn with_header(mut c: Case, name: &'static str, value: HeaderValue) -> Case {
    c.headers.retain(|(n, _)| *n != name);
    c.headers.push((name, value));
    c
}

fn cases() -> Vec<Case> {
    let nested = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let mut cases = vec![
        // Bodies that are not a debate request.
        post("empty body", "", 400, "json"),
        post("unterminated JSON", r#"{"query": "hi""#, 400, "json"),
        post("trailing garbage", r#"{"query": "hi"} x"#, 400, "json"),
        post("JSON array", r#"["query"]"#, 400, "object"),
        post("JSON string", r#""hi""#, 400, "object"),
        post("JSON number", "42", 400, "object"),
        post("JSON null", "null", 400, "object"),
        post("empty object", "{}", 400, "query"),
        post("nested 5000 deep", nested, 400, "json"),
        post(
            "byte order mark",
            b"\xEF\xBB\xBF{\"query\": \"hi\"}".to_vec(),
            400,
            "json",
        ),
        post("invalid UTF-8 body", b"\xff\xfe\xfd".to_vec(), 400, "json"),
        post(
            "invalid UTF-8 in a string",
            b"{\"query\": \"a\xffb\"}".to_vec(),
            400,
            "json",
        ),
        post(
            "lone surrogate escape",
            r#"{"query": "\ud800"}"#,
            400,
            "json",
        ),
        // Fields.
        post("empty query", r#"{"query": ""}"#, 400, "query"),
        post("blank query", r#"{"query": "   \n\t "}"#, 400, "query"),
        post(
            "query over 4000 characters",
            format!(r#"{{"query": "{}"}}"#, "a".repeat(4001)),
            400,
            "4000",
        ),
        post(
            "NUL in query",
            r#"{"query": "a\u0000b"}"#,
            400,
            "control character",
        ),
        post(
            "escape sequence in query",
            r#"{"query": "a\u001b[2J"}"#,
            400,
            "control character",
        ),
        post("query is a number", r#"{"query": 42}"#, 400, "query"),
        post("query is null", r#"{"query": null}"#, 400, "query"),
        post("query is an array", r#"{"query": ["hi"]}"#, 400, "query"),
        post(
            "query is an object",
            r#"{"query": {"text": "hi"}}"#,
            400,
            "query",
        ),
        post("missing query", r#"{"protocol": "s4"}"#, 400, "query"),
        post(
            "unknown protocol",
            r#"{"query": "hi", "protocol": "chess"}"#,
            400,
            "protocol",
        ),
        post(
            "protocol is a number",
            r#"{"query": "hi", "protocol": 4}"#,
            400,
            "protocol",
        ),
        post(
            "SQL in protocol",
            r#"{"query": "hi", "protocol": "s4'; DROP TABLE debates;--"}"#,
            400,
            "protocol",
        ),
        post(
            "script in protocol",
            r#"{"query": "hi", "protocol": "<script>alert(1)</script>"}"#,
            400,
            "protocol",
        ),
        post(
            "negative seed",
            r#"{"query": "hi", "seed": -1}"#,
            400,
            "seed",
        ),
        post(
            "fractional seed",
            r#"{"query": "hi", "seed": 1.5}"#,
            400,
            "seed",
        ),
        post(
            "seed above u64",
            r#"{"query": "hi", "seed": 18446744073709551616}"#,
            400,
            "seed",
        ),
        post(
            "seed as a string",
            r#"{"query": "hi", "seed": "seven"}"#,
            400,
            "seed",
        ),
        post(
            "unknown field",
            r#"{"query": "hi", "qeury": "x"}"#,
            400,
            "qeury",
        ),
        post(
            "huge body",
            format!(r#"{{"query": "{}"}}"#, "b".repeat(200_000)),
            413,
            "too large",
        ),
        // Content types.
        with_header(
            post("text/plain", r#"{"query": "hi"}"#, 415, "content-type"),
            "content-type",
            HeaderValue::from_static("text/plain"),
        ),
        with_header(
            post("form encoded", "query=hi", 415, "content-type"),
            "content-type",
            HeaderValue::from_static("application/x-www-form-urlencoded"),
        ),
        with_header(
            post("XML", "<query>hi</query>", 415, "content-type"),
            "content-type",
            HeaderValue::from_static("application/xml"),
        ),
        Case {
            headers: vec![],
            ..post("no content type", r#"{"query": "hi"}"#, 415, "content-type")
        },
        // Methods and paths.
        Case {
            method: Method::DELETE,
            ..post("DELETE the collection", "", 405, "delete")
        },
        Case {
            method: Method::PUT,
            path: "/api/debates/{id}".into(),
            ..post("PUT a debate", r#"{"query": "hi"}"#, 405, "put")
        },
        Case {
            method: Method::POST,
            path: "/api/debates/{id}/events".into(),
            ..post("POST to the event stream", "{}", 405, "post")
        },
        Case {
            method: Method::PATCH,
            path: "/api/debates/{id}/export.json".into(),
            ..post("PATCH an export", "{}", 405, "patch")
        },
        get("unknown API path", "/api/nothing", 404, "no such"),
        get(
            "unknown debate sub-resource",
            "/api/debates/{id}/secrets",
            404,
            "no such",
        ),
        // Event-stream cursors.
        with_header(
            get(
                "header cursor text",
                "/api/debates/{id}/events",
                400,
                "sequence number",
            ),
            "last-event-id",
            HeaderValue::from_static("abc"),
        ),
        with_header(
            get(
                "header cursor negative",
                "/api/debates/{id}/events",
                400,
                "sequence number",
            ),
            "last-event-id",
            HeaderValue::from_static("-1"),
        ),
        with_header(
            get(
                "header cursor fractional",
                "/api/debates/{id}/events",
                400,
                "sequence number",
            ),
            "last-event-id",
            HeaderValue::from_static("1.5"),
        ),
        with_header(
            get(
                "header cursor overflow",
                "/api/debates/{id}/events",
                400,
                "sequence number",
            ),
            "last-event-id",
            HeaderValue::from_static("99999999999999999999999"),
        ),
        with_header(
            get(
                "header cursor SQL",
                "/api/debates/{id}/events",
                400,
                "sequence number",
            ),
            "last-event-id",
            HeaderValue::from_static("1; DROP TABLE events"),
        ),
        with_header(
            get(
                "header cursor not ASCII",
                "/api/debates/{id}/events",
                400,
                "sequence number",
            ),
            "last-event-id",
            HeaderValue::from_bytes(b"\xff\xfe").expect("obs-text header"),
        ),
        get(
            "query cursor negative",
            "/api/debates/{id}/events?after=-1",
            400,
            "sequence number",
        ),
        get(
            "query cursor text",
            "/api/debates/{id}/events?after=abc",
            400,
            "sequence number",
        ),
        get(
            "query cursor script",
            "/api/debates/{id}/events?after=%3Cscript%3E",
            400,
            "sequence number",
        ),
        get(
            "query cursor twice",
            "/api/debates/{id}/events?after=1&after=2",
            400,
            "query",
        ),
        get(
            "query cursor invalid UTF-8",
            "/api/debates/{id}/events?after=%FF",
            400,
            "sequence number",
        ),
        // Header cursor wins over the query string, and is still checked.
        with_header(
            get(
                "bad header with good query",
                "/api/debates/{id}/events?after=3",
                400,
                "sequence number",
            ),
            "last-event-id",
            HeaderValue::from_static("x"),
        ),
    ];
    // Ids that are not debates, on every per-debate endpoint.
    let long = "f".repeat(5000);
    let ids: [(&str, &str, u16, &'static str); 6] = [
        ("unknown id", "0123456789abcdef", 404, "no debate"),
        ("SQL injection id", "'%20OR%201=1--", 404, "no debate"),
        (
            "script id",
            "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
            404,
            "no debate",
        ),
        ("NUL in id", "ab%00cd", 404, "no debate"),
        ("invalid UTF-8 id", "%FF%FE", 400, "debate id"),
        ("id of 5000 characters", &long, 404, "no debate"),
    ];
    for (what, id, status, mentions) in ids {
        for suffix in ["", "/events", "/export.json", "/export.md"] {
            let name = format!("{what} on /api/debates/{{id}}{suffix}");
            cases.push(get(
                &name,
                format!("/api/debates/{id}{suffix}"),
                status,
                mentions,
            ));
        }
    }
    cases
}

/// In-process (the router `serve` builds, called with `oneshot`): this is the request/response
/// contract, with no process or port in the way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_to_every_endpoint_are_4xx_json_and_write_nothing() {
    let (_dir, db) = temp_db();
    let app = InProcess::start(&db, &[]).await;
    // One real debate, so per-debate endpoints are reached with a valid id too.
    let id = app
        .debate(&json!({"query": "What is 2 + 2?", "seed": 1}))
        .await;
    let before = app.get(&format!("/api/debates/{id}")).await.json();
    assert_eq!(before["status"], "finished", "{before}");

    let cases = cases();
    let kinds = cases.len();
    assert!(kinds >= 50, "only {kinds} kinds of malformed request");
    let mut failures = Vec::new();
    for case in cases {
        let mut req = Request::builder()
            .method(case.method.clone())
            .uri(case.path.replace("{id}", &id));
        for (name, value) in case.headers {
            req = req.header(name, value);
        }
        let answer = app
            .call(req.body(Body::from(case.body)).expect("request"))
            .await;
        let status = answer.status.as_u16();
        let ct = answer
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let text = answer.text();
        let error = answer.json()["error"].as_str().map(str::to_lowercase);
        let ok = status == case.status
            && ct == "application/json"
            && error.as_deref().is_some_and(|e| e.contains(case.mentions));
        if !ok {
            failures.push(format!(
                "{}: {} {} → {status} {ct} {text:.200} (want {} mentioning {:?})",
                case.name, case.method, case.path, case.status, case.mentions
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {kinds} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );

    // Nothing was written: still exactly one debate, with exactly the same log.
    let list = app.get("/api/debates").await.json();
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list:?}");
    let after = app.get(&format!("/api/debates/{id}")).await.json();
    assert_eq!(before, after);
}

#[tokio::test]
async fn injection_strings_are_ordinary_text_in_a_query() {
    // A question may legitimately contain SQL or markup: it is stored and shown verbatim.
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let query = "Robert'); DROP TABLE debates;-- </title><script>alert(1)</script> — is this safe?";
    let id = create(&server, json!({ "query": query, "seed": 2 })).await;
    read_sse(&server, &id, None, "", usize::MAX).await;
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["query"], query);
    assert_eq!(detail["status"], "finished");
    let list: Vec<Value> = get_json(&server, "/api/debates").await;
    assert_eq!(list.len(), 1);
    // The HTML page escapes it.
    let html = client()
        .get(server.url(&format!("/debates/{id}")))
        .send()
        .await
        .expect("GET page")
        .text()
        .await
        .expect("html");
    // Escaped in the page, and unable to close the <title> early.
    assert!(!html.contains("<script>alert(1)</script>"), "{html}");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_eq!(html.matches("</title>").count(), 1, "{html}");
}

/// The builtin agents' embedder is part of the install. Without its table (or with a
/// file that is not one) the server refuses to start, naming the file and the setup step.
#[test]
fn serve_refuses_to_start_without_the_sentence_model() {
    let (dir, db) = temp_db();
    // A folder with a vocabulary but weights that are not a safetensors file.
    let not_model = dir.path().join("not-a-model");
    std::fs::create_dir(&not_model).expect("mkdir");
    std::fs::write(not_model.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n").expect("write");
    std::fs::write(not_model.join("model.safetensors"), "GGUF but not ours").expect("write");
    let cases = [
        (dir.path().join("no-such-model"), "vocab.txt: No such file"),
        (not_model, "model.safetensors: its header"),
    ];
    for (path, expected) in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_consilium"))
            .args(["serve", "--addr", "127.0.0.1:0", "--database-url", &db.url])
            .arg("--embedder")
            .arg(&path)
            .output()
            .expect("run consilium");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", path.display());
        assert!(stderr.contains(expected), "{}: {stderr}", path.display());
        assert!(stderr.contains("cargo xtask embedder"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
