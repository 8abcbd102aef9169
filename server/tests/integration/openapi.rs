//! DX-3 against the real binary: `GET /api/openapi.json` is an OpenAPI 3.1 document, and every
//! route of the API answers as it says. The test calls every operation for real — successes and
//! the errors it can provoke — and checks each response: its operation is in the document (found
//! from the URL, as a client would), its status is documented for it, its content type is one
//! the document gives, the headers the document promises are there, and a JSON body validates
//! against the documented schema. It ends by asserting that the operations it called are exactly
//! the document's, so a route added without a test here (or without documentation) fails.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

use crate::common::*;
use reqwest::header::{self, HeaderMap};
use reqwest::Method;
use serde_json::{json, Value};

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

// ---------------------------------------------------------------------------------------------
// A validator for the part of JSON Schema (2020-12, as OpenAPI 3.1 uses it) that utoipa emits.
// Formats, descriptions and examples are not checked.

/// Whether `v` is valid against `schema`; the error names where and why not.
fn validate(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    let s = match schema {
        Value::Bool(true) => return Ok(()),
        Value::Bool(false) => return Err(format!("{at}: nothing is allowed here, got {v}")),
        Value::Object(s) => s,
        other => return Err(format!("{at}: not a schema: {other}")),
    };
    if let Some(r) = s.get("$ref") {
        validate(doc, resolve(doc, r)?, v, at)?;
    }
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            other => return Err(format!("{at}: bad `type` {other}")),
        };
        if !types.iter().any(|t| is_type(t, v)) {
            return Err(format!("{at}: expected {types:?}, got {v}"));
        }
    }
    if let Some(Value::Array(allowed)) = s.get("enum") {
        if !allowed.contains(v) {
            return Err(format!("{at}: {v} is not one of {allowed:?}"));
        }
    }
    if let Some(c) = s.get("const") {
        if c != v {
            return Err(format!("{at}: expected {c}, got {v}"));
        }
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for sub in all {
            validate(doc, sub, v, at)?;
        }
    }
    if let Some(Value::Array(any)) = s.get("anyOf") {
        let errors: Vec<String> = any
            .iter()
            .filter_map(|sub| validate(doc, sub, v, at).err())
            .collect();
        if errors.len() == any.len() {
            return Err(format!("{at}: matches none of anyOf: {errors:?}"));
        }
    }
    if let Some(Value::Array(one)) = s.get("oneOf") {
        let (ok, errors): (Vec<_>, Vec<_>) = one
            .iter()
            .map(|sub| validate(doc, sub, v, at))
            .partition(Result::is_ok);
        if ok.len() != 1 {
            let errors: Vec<String> = errors.into_iter().filter_map(Result::err).collect();
            return Err(format!(
                "{at}: matches {} of oneOf, not exactly one: {errors:?}",
                ok.len()
            ));
        }
    }
    if let Some(n) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
            if n < min {
                return Err(format!("{at}: {n} is below the minimum {min}"));
            }
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
            if n > max {
                return Err(format!("{at}: {n} is above the maximum {max}"));
            }
        }
    }
    if let Value::Object(members) = v {
        let properties = s.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = s.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !members.contains_key(name) {
                    return Err(format!("{at}: required member `{name}` is missing"));
                }
            }
        }
        for (name, value) in members {
            let here = format!("{at}.{name}");
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => validate(doc, sub, value, &here)?,
                None => {
                    if let Some(extra) = s.get("additionalProperties") {
                        validate(doc, extra, value, &here)?;
                    }
                }
            }
        }
    }
    if let Value::Array(items) = v {
        let prefix = match s.get("prefixItems") {
            Some(Value::Array(p)) => p.as_slice(),
            _ => &[],
        };
        for (i, item) in items.iter().enumerate() {
            let here = format!("{at}[{i}]");
            match prefix.get(i) {
                Some(sub) => validate(doc, sub, item, &here)?,
                None => {
                    if let Some(rest) = s.get("items") {
                        validate(doc, rest, item, &here)?;
                    }
                }
            }
        }
        if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
            if (items.len() as u64) < min {
                return Err(format!("{at}: fewer than {min} items"));
            }
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64) {
            if items.len() as u64 > max {
                return Err(format!("{at}: more than {max} items"));
            }
        }
    }
    Ok(())
}

fn is_type(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

/// The schema a local `$ref` (`#/components/schemas/Name`) points at.
fn resolve<'a>(doc: &'a Value, r: &Value) -> Result<&'a Value, String> {
    let r = r.as_str().ok_or_else(|| format!("bad $ref {r}"))?;
    let pointer = r
        .strip_prefix('#')
        .ok_or_else(|| format!("{r}: only local references are expected"))?;
    doc.pointer(pointer)
        .ok_or_else(|| format!("{r}: no such schema in the document"))
}

/// The schema of a named component.
fn component<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc.pointer(&format!("/components/schemas/{name}"))
        .unwrap_or_else(|| panic!("no schema {name} in the document"))
}

// ---------------------------------------------------------------------------------------------
// The document's operations, found from a request's URL.

/// The document's path template that `path` (no query string) is an instance of: a `{param}`
/// stands for one segment; of several matches the one with the most literal segments wins, as in
/// the router (`/api/debates/baseline` over `/api/debates/{id}`).
fn template_of(doc: &Value, path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').collect();
    doc["paths"]
        .as_object()?
        .keys()
        .filter_map(|template| {
            let parts: Vec<&str> = template.split('/').collect();
            if parts.len() != segments.len() {
                return None;
            }
            let mut literal = 0;
            for (part, segment) in parts.iter().zip(&segments) {
                if part.starts_with('{') && part.ends_with('}') {
                    if segment.is_empty() {
                        return None;
                    }
                } else if part == segment {
                    literal += 1;
                } else {
                    return None;
                }
            }
            Some((literal, template.clone()))
        })
        .max()
        .map(|(_, t)| t)
}

/// The documented response of `method` on `template` for `status`, or why there is none.
fn documented<'a>(
    doc: &'a Value,
    method: &str,
    template: &str,
    status: u16,
) -> Result<&'a Value, String> {
    let op = doc["paths"][template]
        .get(method.to_ascii_lowercase())
        .ok_or_else(|| format!("{method} {template} is not in the document"))?;
    op["responses"]
        .get(status.to_string())
        .ok_or_else(|| format!("{method} {template} does not document status {status}"))
}

/// Checks one real response against the documented one: status, content type, promised
/// headers, and a JSON body against its schema. `body` is `None` for a stream left open.
fn check_response(
    doc: &Value,
    method: &str,
    template: &str,
    status: u16,
    headers: &HeaderMap,
    body: Option<&[u8]>,
) -> Result<Option<Value>, String> {
    let what = format!("{method} {template} → {status}");
    let response = documented(doc, method, template, status)?;
    for name in response["headers"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(n, _)| n)
    {
        if !headers.contains_key(name.to_ascii_lowercase().as_str()) {
            return Err(format!("{what}: the documented header {name} is missing"));
        }
    }
    let Some(content) = response.get("content").and_then(Value::as_object) else {
        return match body {
            Some(b) if !b.is_empty() => Err(format!(
                "{what}: the document says no body, got {}",
                String::from_utf8_lossy(b)
            )),
            _ => Ok(None),
        };
    };
    let media = headers
        .get(header::CONTENT_TYPE)
        .and_then(|c| c.to_str().ok())
        .map(|c| {
            c.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .ok_or_else(|| format!("{what}: no Content-Type"))?;
    let documented = content.get(&media).ok_or_else(|| {
        format!(
            "{what}: Content-Type {media} is not among the documented {:?}",
            content.keys().collect::<Vec<_>>()
        )
    })?;
    let Some(body) = body else { return Ok(None) };
    let schema = documented.get("schema").unwrap_or(&Value::Bool(true));
    if media == "application/json" {
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| format!("{what}: the body is not JSON ({e})"))?;
        validate(doc, schema, &value, "$").map_err(|e| format!("{what}: {e}\nbody: {value}"))?;
        Ok(Some(value))
    } else {
        let text = std::str::from_utf8(body).map_err(|e| format!("{what}: not UTF-8: {e}"))?;
        validate(doc, schema, &Value::String(text.to_owned()), "$")
            .map_err(|e| format!("{what}: {e}"))?;
        Ok(None)
    }
}

// ---------------------------------------------------------------------------------------------
// The client that checks every response it gets.

struct Reply {
    status: u16,
    headers: HeaderMap,
    /// The JSON body (null when the body is not JSON).
    json: Value,
    text: String,
}

struct Api<'a> {
    server: &'a Server,
    doc: Value,
    http: reqwest::Client,
    /// (method, path template) of every operation called.
    called: Mutex<BTreeSet<(String, String)>>,
    /// (method, path template, status) of every response checked.
    statuses: Mutex<BTreeSet<(String, String, u16)>>,
}

/// What a request carries besides its method and path.
#[derive(Default)]
struct Req<'b> {
    bearer: Option<&'b str>,
    json: Option<Value>,
    /// A body sent as is, with its content type.
    raw: Option<(&'b str, Vec<u8>)>,
    headers: Vec<(&'b str, String)>,
}

impl<'a> Api<'a> {
    fn request(&self, method: &Method, path: &str, req: Req<'_>) -> reqwest::RequestBuilder {
        let mut r = self.http.request(method.clone(), self.server.url(path));
        if let Some(t) = req.bearer {
            r = r.bearer_auth(t);
        }
        if let Some(j) = req.json {
            r = r.json(&j);
        }
        if let Some((ct, bytes)) = req.raw {
            r = r.header(header::CONTENT_TYPE, ct).body(bytes);
        }
        for (name, value) in req.headers {
            r = r.header(name, value);
        }
        r
    }

    /// The documented operation a request to `path` reaches.
    fn operation(&self, method: &Method, path: &str) -> String {
        let bare = path.split('?').next().unwrap_or_default();
        let template = template_of(&self.doc, bare)
            .unwrap_or_else(|| panic!("{method} {path}: no path of the document matches"));
        self.called
            .lock()
            .unwrap()
            .insert((method.as_str().to_owned(), template.clone()));
        template
    }

    /// Sends a request, checks its whole response against the document, and returns it.
    async fn call(&self, method: Method, path: &str, req: Req<'_>) -> Reply {
        let template = self.operation(&method, path);
        let resp = self
            .request(&method, path, req)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.bytes().await.expect("body");
        let json = check_response(
            &self.doc,
            method.as_str(),
            &template,
            status,
            &headers,
            Some(body.as_ref()),
        )
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .unwrap_or(Value::Null);
        self.statuses
            .lock()
            .unwrap()
            .insert((method.as_str().to_owned(), template, status));
        Reply {
            status,
            headers,
            json,
            text: String::from_utf8_lossy(&body).into_owned(),
        }
    }

    /// Like [`Api::call`] for a response whose body is not read (a live stream left open).
    async fn open(&self, method: Method, path: &str) -> (u16, reqwest::Response) {
        let template = self.operation(&method, path);
        let resp = self
            .request(&method, path, Req::default())
            .send()
            .await
            .expect("send");
        let status = resp.status().as_u16();
        if status == 200 {
            check_response(
                &self.doc,
                method.as_str(),
                &template,
                status,
                resp.headers(),
                None,
            )
            .unwrap_or_else(|e| panic!("{path}: {e}"));
            self.statuses
                .lock()
                .unwrap()
                .insert((method.as_str().to_owned(), template, status));
        }
        (status, resp)
    }

    async fn get(&self, path: &str) -> Reply {
        self.call(Method::GET, path, Req::default()).await
    }

    async fn get_as(&self, path: &str, bearer: &str) -> Reply {
        let req = Req {
            bearer: Some(bearer),
            ..Req::default()
        };
        self.call(Method::GET, path, req).await
    }

    async fn post(&self, path: &str, bearer: Option<&str>, body: Value) -> Reply {
        let req = Req {
            bearer,
            json: Some(body),
            ..Req::default()
        };
        self.call(Method::POST, path, req).await
    }

    /// A request the document does not describe (an unknown path, a method a path does not
    /// have): the router's JSON 404 or 405, an `ErrorBody`.
    async fn undocumented(&self, method: Method, path: &str, expected: u16) {
        let bare = path.split('?').next().unwrap_or_default();
        if let Some(template) = template_of(&self.doc, bare) {
            assert!(
                self.doc["paths"][&template]
                    .get(method.as_str().to_ascii_lowercase())
                    .is_none(),
                "{method} {path} is documented"
            );
        }
        let resp = self
            .request(&method, path, Req::default())
            .send()
            .await
            .expect("send");
        assert_eq!(resp.status().as_u16(), expected, "{method} {path}");
        let body: Value = resp.json().await.expect("a JSON error");
        validate(&self.doc, component(&self.doc, "ErrorBody"), &body, "$")
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    }
}

/// Asserts the status, printing the body when it differs.
#[track_caller]
fn expect(reply: &Reply, status: u16) -> &Value {
    assert_eq!(reply.status, status, "{}", reply.text);
    &reply.json
}

// ---------------------------------------------------------------------------------------------

/// The data lines of each SSE message (comment lines skipped): (event name, data).
fn sse_messages(text: &str) -> Vec<(Option<String>, String)> {
    text.split("\n\n")
        .filter_map(|block| {
            let mut event = None;
            let mut data = Vec::new();
            for line in block.lines() {
                if let Some(e) = line.strip_prefix("event:") {
                    event = Some(e.trim().to_owned());
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push(d.strip_prefix(' ').unwrap_or(d));
                }
            }
            (!data.is_empty()).then(|| (event, data.join("\n")))
        })
        .collect()
}

/// A saved `consilium eval` run, for `GET /api/eval` to list.
fn saved_eval() -> Value {
    let sample =
        |answer: &str, correct: bool| json!({"answer": answer, "correct": correct, "tokens": 12});
    json!({
        "config": {"task_set": "arithmetic", "seed": 1, "items": 1, "agents": 3, "rounds": 2,
                   "samples": 3, "model": "fake-model", "endpoint": "http://127.0.0.1:9/v1",
                   "temperature": 0.2, "max_tokens": 400},
        "started_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:01:00Z",
        "wall_ms": 60000,
        "items": [{
            "id": "q1", "question": "What is 2 + 2?", "answer": "4",
            "single": sample("4", true),
            "samples": [sample("4", true), sample("5", false), sample("4", true)],
            "debate": [[sample("5", false), sample("4", true), sample("5", false)],
                       [sample("4", true), sample("4", true), sample("4", true)]],
        }],
    })
}

/// Waits until the desk gives a challenge of debate `id` to a judge.
async fn held(api: &Api<'_>, judge: &str, id: &str) {
    for _ in 0..200 {
        let q = api.get_as("/api/judge/queue", judge).await;
        let queue = expect(&q, 200);
        if queue["held"]
            .as_array()
            .is_some_and(|h| h.iter().any(|c| c["debate"] == id))
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("debate {id} was never held by a judge");
}

/// Fails unless the check `r` found the fault: the checks this test relies on can fail.
#[track_caller]
fn refused<T>(what: &str, r: Result<T, String>) {
    assert!(r.is_err(), "the check accepted {what}");
}

/// The validator and the response check refuse what the document does not say.
fn the_checks_can_fail(doc: &Value) {
    let error = component(doc, "ErrorBody");
    assert!(validate(doc, error, &json!({"error": "no"}), "$").is_ok());
    refused(
        "a number for a string",
        validate(doc, error, &json!({"error": 5}), "$"),
    );
    refused("a missing member", validate(doc, error, &json!({}), "$"));
    refused(
        "an array for an object",
        validate(doc, error, &json!([]), "$"),
    );
    let summary = component(doc, "DebateSummary");
    refused(
        "an unknown status",
        validate(
            doc,
            summary,
            &json!({"id": "a1", "query": "q", "protocol": "s4", "status": "paused",
                    "decision": null, "created_at": "2026-01-01T00:00:00Z"}),
            "$",
        ),
    );
    let request = component(doc, "CreateDebate");
    refused(
        "an unknown member of a closed object",
        validate(doc, request, &json!({"query": "q", "bogus": 1}), "$"),
    );
    refused(
        "a null where a value is required",
        validate(doc, request, &json!({"query": null}), "$"),
    );
    let action = component(doc, "JudgeAction");
    assert!(validate(doc, action, &json!({"action": "confirm"}), "$").is_ok());
    refused(
        "an action no variant has",
        validate(doc, action, &json!({"action": "shrug"}), "$"),
    );
    refused(
        "an undocumented status",
        documented(doc, "GET", "/api/debates/{id}", 418),
    );
    refused(
        "an undocumented method",
        documented(doc, "DELETE", "/api/debates", 200),
    );
    let json_ct = {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
        h
    };
    refused(
        "a body that breaks its schema",
        check_response(
            doc,
            "GET",
            "/api/debates/baseline",
            200,
            &json_ct,
            Some(br#"{"decided": -1, "changed": 0}"#.as_slice()),
        ),
    );
    refused(
        "a content type the document does not give",
        check_response(
            doc,
            "GET",
            "/api/debates/{id}/export.md",
            200,
            &json_ct,
            Some(b"{}".as_slice()),
        ),
    );
    refused(
        "a missing documented header",
        check_response(
            doc,
            "GET",
            "/api/debates/{id}/export.json",
            200,
            &json_ct,
            Some(b"{}".as_slice()),
        ),
    );
    assert_eq!(
        template_of(doc, "/api/debates/baseline").as_deref(),
        Some("/api/debates/baseline")
    );
    assert_eq!(
        template_of(doc, "/api/debates/ab12").as_deref(),
        Some("/api/debates/{id}")
    );
    assert_eq!(template_of(doc, "/api/nothing/here"), None);
}

/// The document's own shape: version, info, parameters that match their templates, security on
/// what needs credentials.
fn the_document_is_openapi_3_1(doc: &Value) {
    let version = doc["openapi"].as_str().expect("openapi");
    assert!(version.starts_with("3.1."), "{version}");
    assert_eq!(doc["info"]["title"], "Consilium");
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(doc["info"]["description"]
        .as_str()
        .is_some_and(|d| !d.is_empty()));
    let paths = doc["paths"].as_object().expect("paths");
    for (template, item) in paths {
        assert!(template.starts_with("/api/"), "{template}");
        let named: BTreeSet<&str> = template
            .split('/')
            .filter_map(|p| p.strip_prefix('{').and_then(|p| p.strip_suffix('}')))
            .collect();
        for method in METHODS {
            let Some(op) = item.get(method) else { continue };
            let in_path: BTreeSet<&str> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().expect("name"))
                .collect();
            assert_eq!(in_path, named, "{method} {template}: path parameters");
            assert!(
                op["tags"].as_array().is_some_and(|t| !t.is_empty()),
                "{method} {template}: tags"
            );
            let responses = op["responses"].as_object().expect("responses");
            assert!(
                responses
                    .keys()
                    .any(|s| s.starts_with('2') || s.starts_with('3')),
                "{method} {template}: no success documented"
            );
            for (status, r) in responses {
                if status.starts_with('4') || status.starts_with('5') {
                    assert_eq!(
                        r["content"]["application/json"]["schema"]["$ref"],
                        "#/components/schemas/ErrorBody",
                        "{method} {template} {status}: errors are ErrorBody"
                    );
                }
            }
            // Sign-in answers 401 for the token in its body, which is no security scheme.
            if responses.contains_key("401") && !template.ends_with("/judge/sign-in") {
                let schemes: BTreeSet<&str> = op["security"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_object)
                    .flat_map(|r| r.keys().map(String::as_str))
                    .collect();
                assert!(
                    schemes.contains("bearer") && schemes.contains("session"),
                    "{method} {template}: credentials without `security`"
                );
            }
        }
    }
    let schemes = doc["components"]["securitySchemes"]
        .as_object()
        .expect("schemes");
    assert!(schemes.contains_key("bearer") && schemes.contains_key("session"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_openapi_document_describes_every_route_as_it_answers_dx_3() {
    let fakes = start_fakes(Fake {
        tokens_per_call: 400,
        ..Fake::default()
    })
    .await;
    let (guard, db) = temp_db();
    let eval_dir = guard.path().join("eval");
    std::fs::create_dir_all(&eval_dir).unwrap();
    std::fs::write(eval_dir.join("run-1.json"), saved_eval().to_string()).unwrap();
    let (ada, vic) = (
        add_judge(&db, "ada", "judge"),
        add_judge(&db, "vic", "viewer"),
    );
    let (ada, vic) = (ada.as_str(), vic.as_str());
    let server = Server::start_with(
        &db,
        0,
        &[
            ("OPENAI_BASE_URL", &format!("{fakes}/v1")),
            ("OPENAI_MODEL", "fake-model"),
            ("CONSILIUM_REMOTE_TIMEOUT_S", "1"),
            ("CONSILIUM_REMOTE_RETRIES", "1"),
            ("CONSILIUM_REMOTE_BACKOFF_MS", "50"),
            ("CONSILIUM_TOKEN_BUDGET", "1000000"),
            ("CONSILIUM_EVAL_DIR", eval_dir.to_str().unwrap()),
            ("CONSILIUM_MAX_STREAMS_PER_CLIENT", "2"),
        ],
    );
    // A fresh connection per request: a refused request (413, 415) may close its connection, and
    // a pooled connection the server has just closed fails the next request sent on it.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(60))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();

    // The document, from the real binary.
    let resp = http
        .get(server.url("/api/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let doc: Value = resp.json().await.expect("JSON");
    the_document_is_openapi_3_1(&doc);
    the_checks_can_fail(&doc);
    let api = Api {
        server: &server,
        doc,
        http,
        called: Mutex::new(BTreeSet::new()),
        statuses: Mutex::new(BTreeSet::new()),
    };
    let served = api.get("/api/openapi.json").await;
    assert_eq!(&served.json, &api.doc, "the same document every time");

    // Debates: start, list, read, export.
    let started = api
        .post(
            "/api/debates",
            None,
            json!({"query": "Is the sky blue?", "seed": 1}),
        )
        .await;
    let s4 = expect(&started, 201)["id"].as_str().unwrap().to_owned();
    let frames = read_sse(&server, &s4, None, "", usize::MAX).await;
    let last_seq = frames.last().and_then(|f| f.id).expect("seq");
    expect(
        &api.post("/api/debates", None, json!({"query": ""})).await,
        400,
    );
    expect(&api.post("/api/debates", None, json!([1, 2])).await, 400);
    let as_text = Req {
        raw: Some(("text/plain", b"{\"query\": \"x\"}".to_vec())),
        ..Req::default()
    };
    expect(&api.call(Method::POST, "/api/debates", as_text).await, 415);
    let too_big = Req {
        raw: Some(("application/json", vec![b' '; 70 * 1024])),
        ..Req::default()
    };
    expect(&api.call(Method::POST, "/api/debates", too_big).await, 413);
    let cross_site = Req {
        json: Some(json!({"query": "Is the sky blue?"})),
        headers: vec![("origin", "https://elsewhere.example".into())],
        ..Req::default()
    };
    expect(
        &api.call(Method::POST, "/api/debates", cross_site).await,
        403,
    );
    let bad_scheme = Req {
        json: Some(json!({"query": "Is the sky blue?"})),
        headers: vec![("authorization", "Basic YWRhOng=".into())],
        ..Req::default()
    };
    expect(
        &api.call(Method::POST, "/api/debates", bad_scheme).await,
        401,
    );
    let other_host = Req {
        headers: vec![("host", "elsewhere.example".into())],
        ..Req::default()
    };
    expect(
        &api.call(Method::GET, "/api/debates", other_host).await,
        421,
    );

    let list = api.get("/api/debates?limit=5").await;
    assert!(expect(&list, 200).as_array().is_some_and(|l| !l.is_empty()));
    expect(&api.get("/api/debates?limit=0").await, 400);
    expect(&api.get("/api/debates?bogus=1").await, 400);
    expect(&api.get("/api/debates/baseline").await, 200);
    let evals = api.get("/api/eval").await;
    assert_eq!(
        expect(&evals, 200).as_array().map(Vec::len),
        Some(1),
        "{}",
        evals.text
    );
    let keys = api.get("/api/keys").await;
    assert!(expect(&keys, 200).as_array().is_some_and(|k| !k.is_empty()));
    let detail = api.get(&format!("/api/debates/{s4}")).await;
    assert_eq!(
        expect(&detail, 200)["events"].as_array().map(Vec::len),
        Some(frames.len())
    );
    expect(&api.get("/api/debates/ffff0000ffff0000").await, 404);
    expect(&api.get("/api/debates/%FF").await, 400);
    let export = api.get(&format!("/api/debates/{s4}/export.json")).await;
    assert!(
        expect(&export, 200)["signature"].is_object(),
        "{}",
        export.text
    );
    expect(
        &api.get("/api/debates/ffff0000ffff0000/export.json").await,
        404,
    );
    let md = api.get(&format!("/api/debates/{s4}/export.md")).await;
    expect(&md, 200);
    assert!(md.text.contains("Is the sky blue?"));
    expect(
        &api.get("/api/debates/ffff0000ffff0000/export.md").await,
        404,
    );
    expect(&api.get("/api/debates/%FF/export.md").await, 400);

    // The live stream: every message's data is a documented `Event`.
    let stream = api.get(&format!("/api/debates/{s4}/events")).await;
    expect(&stream, 200);
    let messages = sse_messages(&stream.text);
    assert_eq!(messages.len(), frames.len(), "{}", stream.text);
    for (i, (event, data)) in messages.iter().enumerate() {
        assert_eq!(event, &None, "{data}");
        let value: Value = serde_json::from_str(data).expect("JSON data");
        validate(
            &api.doc,
            component(&api.doc, "Event"),
            &value,
            &format!("$[{i}]"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    expect(
        &api.get(&format!("/api/debates/{s4}/events?after={last_seq}"))
            .await,
        204,
    );
    let resumed = Req {
        headers: vec![("last-event-id", last_seq.to_string())],
        ..Req::default()
    };
    let path = format!("/api/debates/{s4}/events");
    expect(&api.call(Method::GET, &path, resumed).await, 204);
    expect(
        &api.get(&format!("/api/debates/{s4}/events?after=soon"))
            .await,
        400,
    );
    expect(&api.get("/api/debates/ffff0000ffff0000/events").await, 404);

    // Judges: who am I, sessions, the CSRF check.
    expect(&api.get("/api/judge/me").await, 401);
    let me = api.get_as("/api/judge/me", ada).await;
    assert_eq!(expect(&me, 200), &json!({"name": "ada", "role": "judge"}));
    expect(
        &api.post("/api/judge/sign-in", None, json!({"token": "cj_wrong"}))
            .await,
        401,
    );
    expect(
        &api.post("/api/judge/sign-in", None, json!({"nope": 1}))
            .await,
        400,
    );
    let signed = api
        .post("/api/judge/sign-in", None, json!({"token": ada}))
        .await;
    expect(&signed, 200);
    let cookie = signed.headers[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let by_cookie = Req {
        headers: vec![("cookie", cookie.clone())],
        ..Req::default()
    };
    expect(
        &api.call(Method::GET, "/api/judge/me", by_cookie).await,
        200,
    );
    for token in ["cj_wrong", ada] {
        let form = Req {
            raw: Some((
                "application/x-www-form-urlencoded",
                format!("token={token}").into_bytes(),
            )),
            ..Req::default()
        };
        let r = api.call(Method::POST, "/api/judge/sign-in", form).await;
        expect(&r, 303);
    }

    // The track record: finished debates record predictions; judges append outcomes.
    let rows = api.get(&format!("/api/debates/{s4}/predictions")).await;
    let prediction = expect(&rows, 200)[0]["id"]
        .as_str()
        .expect("a prediction")
        .to_owned();
    expect(
        &api.get("/api/debates/ffff0000ffff0000/predictions").await,
        404,
    );
    let outcome = format!("/api/predictions/{prediction}/outcome");
    expect(
        &api.post(&outcome, None, json!({"correct": true})).await,
        401,
    );
    expect(
        &api.post(&outcome, Some(vic), json!({"correct": true}))
            .await,
        403,
    );
    expect(&api.post(&outcome, Some(ada), json!({})).await, 400);
    expect(
        &api.post(
            "/api/predictions/pnope/outcome",
            Some(ada),
            json!({"correct": true}),
        )
        .await,
        404,
    );
    let no_type = Req {
        bearer: Some(ada),
        raw: Some(("text/plain", b"{\"correct\": true}".to_vec())),
        ..Req::default()
    };
    expect(&api.call(Method::POST, &outcome, no_type).await, 415);
    let recorded = api
        .post(
            &outcome,
            Some(ada),
            json!({"correct": true, "note": "it was"}),
        )
        .await;
    assert!(expect(&recorded, 201)["outcome"].is_object());
    let agents = api.get("/api/agents").await;
    let identity = expect(&agents, 200)[0]["identity"]
        .as_str()
        .expect("an agent")
        .to_owned();
    let one = api
        .get(&format!("/api/agents/{identity}?regime=bull"))
        .await;
    assert_eq!(expect(&one, 200)["identity"], identity.as_str());
    expect(&api.get("/api/agents/builtin:nobody-here").await, 404);
    expect(
        &api.get(&format!("/api/agents/{identity}?bogus=1")).await,
        400,
    );
    expect(&api.get("/api/agents/%FF").await, 400);

    // ES-12: a collapse debate escalated to a human gets a judge's decision.
    let (collapse, events) = run_to_end(
        &server,
        json!({"query": "Disable authentication on the internal admin API to speed up debugging",
               "protocol": "collapse", "seed": 4}),
    )
    .await;
    let chosen = of_type(&events, "card_submitted")[0]["position"]
        .as_str()
        .unwrap()
        .to_owned();
    let decision = format!("/api/debates/{collapse}/decision");
    let good = json!({"chosen": chosen, "rationale": "keep auth; debug with a scoped token"});
    expect(&api.post(&decision, None, good.clone()).await, 401);
    expect(&api.post(&decision, Some(vic), good.clone()).await, 403);
    expect(
        &api.post(
            &decision,
            Some(ada),
            json!({"chosen": "ghost", "rationale": "x"}),
        )
        .await,
        400,
    );
    expect(
        &api.post(
            "/api/debates/ffff0000ffff0000/decision",
            Some(ada),
            good.clone(),
        )
        .await,
        404,
    );
    let desk = api.get_as("/api/judge/desk", ada).await;
    assert_eq!(
        expect(&desk, 200)["escalated"][0]["debate"],
        collapse.as_str()
    );
    expect(&api.post(&decision, Some(ada), good.clone()).await, 200);
    expect(&api.post(&decision, Some(ada), good).await, 409);

    // ES-7 at the gate: a pipeline decided with a provisional value is a case on the desk.
    let (gate, _) = run_to_end(
        &server,
        json!({"query": "Buy Acme at $80? Its cost programme should lift margins.",
               "protocol": "escalation", "time_scale": 86400, "seed": 5}),
    )
    .await;
    let desk = api.get_as("/api/judge/desk", ada).await;
    let cases = expect(&desk, 200)["cases"].as_array().expect("cases");
    assert!(
        cases.iter().any(|c| c["debate"] == gate.as_str()),
        "{}",
        desk.text
    );
    expect(&api.get("/api/judge/desk").await, 401);
    expect(&api.get_as("/api/judge/desk", vic).await, 403);

    // ES-5/ES-7: a running pipeline whose challenge a judge holds (a minute a second: six
    // minutes), ruled on; a second one, stopped.
    let pipeline = json!({"query": "Buy Acme at $80 after its cost programme lifts margins?",
                          "protocol": "escalation", "time_scale": 60, "seed": 5});
    let ruled = expect(&api.post("/api/debates", None, pipeline.clone()).await, 201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    held(&api, ada, &ruled).await;
    expect(&api.get("/api/judge/queue").await, 401);
    expect(&api.get_as("/api/judge/queue", vic).await, 403);
    let ruling = format!("/api/debates/{ruled}/challenges/CH-001/ruling");
    let good = json!({"action": "override", "value": 0.265, "rationale": "guidance says 26-27 %"});
    expect(&api.post(&ruling, None, good.clone()).await, 401);
    expect(&api.post(&ruling, Some(vic), good.clone()).await, 403);
    expect(
        &api.post(&ruling, Some(ada), json!({"action": "shrug"}))
            .await,
        400,
    );
    expect(
        &api.post(&ruling, Some(ada), json!({"action": "confirm"}))
            .await,
        409,
    );
    expect(
        &api.post(
            "/api/debates/ffff0000ffff0000/challenges/CH-001/ruling",
            Some(ada),
            good.clone(),
        )
        .await,
        404,
    );
    let no_type = Req {
        bearer: Some(ada),
        raw: Some(("text/plain", b"{\"action\": \"confirm\"}".to_vec())),
        ..Req::default()
    };
    expect(&api.call(Method::POST, &ruling, no_type).await, 415);
    let r = api.post(&ruling, Some(ada), good).await;
    assert_eq!(expect(&r, 200)["judge"], "ada");

    let stopped = expect(&api.post("/api/debates", None, pipeline).await, 201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    held(&api, ada, &stopped).await;
    let stop = format!("/api/debates/{stopped}/stop");
    expect(&api.post(&stop, None, json!({})).await, 401);
    expect(&api.post(&stop, Some(vic), json!({})).await, 403);
    // Signed in by cookie, a change must come from this site's pages.
    let csrf = Req {
        headers: vec![("cookie", cookie.clone())],
        ..Req::default()
    };
    expect(&api.call(Method::POST, &stop, csrf).await, 403);
    expect(
        &api.post("/api/debates/ffff0000ffff0000/stop", Some(ada), json!({}))
            .await,
        404,
    );
    expect(
        &api.post("/api/debates/%FF/stop", Some(ada), json!({}))
            .await,
        400,
    );

    // SV-3's stream limit (two per address here): a third open stream is refused while two
    // stay open on the running pipeline.
    let events = format!("/api/debates/{stopped}/events");
    let mut open = Vec::new();
    for _ in 0..50 {
        let (status, resp) = api.open(Method::GET, &events).await;
        if status == 200 {
            open.push(resp);
            if open.len() == 2 {
                break;
            }
        } else {
            // A finished stream's place is given back as its connection closes.
            assert_eq!(status, 429, "{}", resp.text().await.unwrap_or_default());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    assert_eq!(open.len(), 2, "two streams open");
    expect(&api.get(&events).await, 429);
    drop(open);

    let r = api.post(&stop, Some(ada), json!({})).await;
    assert_eq!(expect(&r, 200)["stopped_by"], "ada");
    expect(&api.post(&stop, Some(ada), json!({})).await, 409);

    // ES-11: a spent budget waits for a judge's grant.
    let paused = expect(
        &api.post(
            "/api/debates",
            None,
            json!({"query": "Should we ship the release tonight?", "backend": "openai",
                   "seed": 3, "token_budget": 1200}),
        )
        .await,
        201,
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut waiting = false;
    for _ in 0..400 {
        let desk = api.get_as("/api/judge/desk", ada).await;
        if expect(&desk, 200)["paused"]
            .as_array()
            .is_some_and(|p| p.iter().any(|p| p["debate"] == paused.as_str()))
        {
            waiting = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(waiting, "debate {paused} never paused");
    let budget = format!("/api/debates/{paused}/budget");
    let grant = json!({"action": "grant", "tokens": 100000});
    expect(&api.post(&budget, None, grant.clone()).await, 401);
    expect(&api.post(&budget, Some(vic), grant.clone()).await, 403);
    expect(
        &api.post(&budget, Some(ada), json!({"action": "grant", "tokens": 0}))
            .await,
        400,
    );
    expect(
        &api.post(
            &format!("/api/debates/{s4}/budget"),
            Some(ada),
            grant.clone(),
        )
        .await,
        409,
    );
    expect(
        &api.post(
            "/api/debates/ffff0000ffff0000/budget",
            Some(ada),
            grant.clone(),
        )
        .await,
        404,
    );
    let r = api.post(&budget, Some(ada), grant).await;
    assert_eq!(
        expect(&r, 200),
        &json!({"id": paused, "judge": "ada", "action": "grant", "tokens": 100000})
    );

    // FK-1/FK-4: a fork, and a batch of forks, of the decided S4 debate.
    let fork = format!("/api/debates/{s4}/fork");
    let r = api.post(&fork, None, json!({"after_seq": 3})).await;
    assert!(expect(&r, 201)["id"].is_string());
    expect(&api.post(&fork, None, json!({"after_seq": 0})).await, 400);
    expect(
        &api.post(
            "/api/debates/ffff0000ffff0000/fork",
            None,
            json!({"after_seq": 3}),
        )
        .await,
        404,
    );
    let forks = format!("/api/debates/{s4}/forks");
    let r = api
        .post(&forks, None, json!({"after_seq": 3, "seeds": [1, 2]}))
        .await;
    assert_eq!(expect(&r, 200)["decided"], 2);
    let listed = api.get(&forks).await;
    assert_eq!(
        expect(&listed, 200)["forks"].as_array().map(Vec::len),
        Some(3)
    );
    expect(&api.get("/api/debates/ffff0000ffff0000/forks").await, 404);
    // FK-3: the debate beside its forks.
    let compared = api.get(&format!("/api/debates/{s4}/compare")).await;
    assert_eq!(
        expect(&compared, 200)["columns"].as_array().map(Vec::len),
        Some(4)
    );
    expect(
        &api.get(&format!("/api/debates/{s4}/compare?forks=ffff0000ffff0000"))
            .await,
        400,
    );
    expect(&api.get("/api/debates/ffff0000ffff0000/compare").await, 404);
    expect(
        &api.post(&forks, None, json!({"after_seq": 3, "seeds": []}))
            .await,
        400,
    );
    expect(
        &api.post(
            "/api/debates/ffff0000ffff0000/forks",
            None,
            json!({"after_seq": 3, "seeds": [1]}),
        )
        .await,
        404,
    );

    // Signing out ends the session.
    let out = Req {
        headers: vec![("cookie", cookie)],
        ..Req::default()
    };
    expect(
        &api.call(Method::POST, "/api/judge/sign-out", out).await,
        303,
    );
    expect(
        &api.call(Method::POST, "/api/judge/sign-out", Req::default())
            .await,
        303,
    );

    // What the document does not describe answers as its description says.
    api.undocumented(Method::GET, "/api/no-such-thing", 404)
        .await;
    api.undocumented(Method::DELETE, "/api/debates", 405).await;
    api.undocumented(Method::GET, &format!("/api/debates/{s4}/stop"), 405)
        .await;

    // Every documented operation was called, and nothing undocumented was.
    let documented: BTreeSet<(String, String)> = api.doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| {
            METHODS
                .iter()
                .filter(|m| item.get(**m).is_some())
                .map(|m| (m.to_ascii_uppercase(), path.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    let called = api.called.lock().unwrap().clone();
    assert_eq!(
        called, documented,
        "the operations called here must be exactly the document's"
    );
    // And each of them answered at least one success.
    let statuses = api.statuses.lock().unwrap().clone();
    for (method, path) in &documented {
        assert!(
            statuses
                .iter()
                .any(|(m, p, s)| m == method && p == path && (200..400).contains(s)),
            "{method} {path}: no success was checked"
        );
    }
}
