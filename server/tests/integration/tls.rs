//! HTTPS for every outbound call: an OpenAI-compatible endpoint and an agent
//! service served over TLS with a certificate from a private CA made in the test. With the CA
//! (`CONSILIUM_CA_CERT` / `--ca-cert`) whole debates run through both; without it the certificate
//! is refused, by name; `consilium verify https://…` reads an export from a TLS server; and a
//! redirect to another origin is not followed (the bearer token never leaves the endpoint).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::*;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose, SanType,
};
use serde_json::{json, Value};
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A private CA and a server certificate it signed for 127.0.0.1 and localhost.
struct Pki {
    ca_pem: String,
    leaf_der: Vec<u8>,
    leaf_key_der: Vec<u8>,
}

fn make_pki() -> Pki {
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca = CertificateParams::default();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "Consilium test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca.self_signed(&ca_key).expect("CA certificate");

    let leaf_key = KeyPair::generate().expect("leaf key");
    let mut leaf = CertificateParams::default();
    leaf.distinguished_name
        .push(DnType::CommonName, "localhost");
    leaf.subject_alt_names = vec![
        SanType::DnsName("localhost".try_into().expect("dns name")),
        SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)),
    ];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_cert = leaf
        .signed_by(&leaf_key, &ca_cert, &ca_key)
        .expect("leaf certificate");
    Pki {
        ca_pem: ca_cert.pem(),
        leaf_der: leaf_cert.der().to_vec(),
        leaf_key_der: leaf_key.serialize_der(),
    }
}

/// Serves `app` over TLS (HTTP/1.1) on a free port of 127.0.0.1.
async fn serve_tls(app: Router, pki: &Pki) -> SocketAddr {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(pki.leaf_der.clone())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pki.leaf_key_der.clone())),
        )
        .expect("server config");
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, app) = (acceptor.clone(), app.clone());
            tokio::spawn(async move {
                // A client that refuses our certificate ends the handshake: nothing to serve.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), TowerToHyperService::new(app))
                    .await;
            });
        }
    });
    addr
}

/// What the TLS fakes saw.
#[derive(Clone, Default)]
struct Seen {
    chat_calls: Arc<AtomicU32>,
    agent_calls: Arc<AtomicU32>,
    /// Calls that reached the origin a redirect pointed at.
    elsewhere: Arc<AtomicU32>,
    bearers: Arc<Mutex<Vec<String>>>,
}

impl Seen {
    fn bearer(&self, headers: &HeaderMap) {
        let value = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        self.bearers.lock().expect("lock").push(value);
    }
}

/// A well-formed answer for whatever an S4 step asks (`expects` or the prompt's answer form).
fn s4_answer(is_challenge: bool) -> Value {
    if is_challenge {
        json!({"argues_for": "WARN", "text": "Where is the rollback plan?"})
    } else {
        json!({"decision": "WARN", "confidence": 70, "risk": 40,
               "reasoning": "Useful, but the rollback plan is missing."})
    }
}

async fn chat(State(seen): State<Seen>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    seen.chat_calls.fetch_add(1, Ordering::SeqCst);
    seen.bearer(&headers);
    let user = body["messages"][1]["content"].as_str().unwrap_or("");
    let content = s4_answer(user.contains("\"argues_for\"")).to_string();
    Json(json!({
        "id": "chatcmpl-tls", "object": "chat.completion", "model": "tls-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    }))
    .into_response()
}

async fn agent(State(seen): State<Seen>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    seen.agent_calls.fetch_add(1, Ordering::SeqCst);
    seen.bearer(&headers);
    let reply = s4_answer(body["expects"] == "challenge");
    Json(json!({"reply": reply, "usage": {"prompt_tokens": 80, "completion_tokens": 20}}))
        .into_response()
}

/// The origin a hostile endpoint redirects to (plain http on another port).
async fn start_elsewhere(seen: Seen) -> String {
    let app = Router::new()
        .fallback(|State(seen): State<Seen>, headers: HeaderMap| async move {
            seen.elsewhere.fetch_add(1, Ordering::SeqCst);
            seen.bearer(&headers);
            (StatusCode::OK, "{}")
        })
        .with_state(seen);
    serve_http(app).await
}

/// The TLS fakes: `/v1/chat/completions`, `/agent`, `/export.json` (the given text) and
/// `/bounce/v1/chat/completions`, which redirects to another origin.
async fn start_tls_fakes(pki: &Pki, seen: Seen, export: String) -> String {
    let elsewhere = start_elsewhere(seen.clone()).await;
    let bounce = format!("{elsewhere}/v1/chat/completions");
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/agent", post(agent))
        .route(
            "/bounce/v1/chat/completions",
            post(move || async move { Redirect::temporary(&bounce) }),
        )
        .route("/export.json", get(move || async move { export }))
        .with_state(seen);
    let addr = serve_tls(app, pki).await;
    format!("https://127.0.0.1:{}", addr.port())
}

fn write_ca(dir: &DbGuard, pki: &Pki) -> String {
    let path = dir.path().join("private-ca.pem");
    std::fs::write(&path, &pki.ca_pem).expect("write CA");
    path.to_string_lossy().into_owned()
}

fn tls_server(db: &TestDb, base: &str, ca: Option<&str>) -> Server {
    let openai = format!("{base}/v1");
    let agent_url = format!("{base}/agent");
    let mut env = vec![
        ("OPENAI_BASE_URL", openai.as_str()),
        ("OPENAI_MODEL", "tls-model"),
        ("OPENAI_API_KEY", "sk-tls-test-key"),
        ("CONSILIUM_HTTP_AGENT_URL", agent_url.as_str()),
        ("CONSILIUM_HTTP_AGENT_TOKEN", "agent-tls-token"),
        ("CONSILIUM_REMOTE_TIMEOUT_S", "5"),
        ("CONSILIUM_REMOTE_RETRIES", "0"),
    ];
    if let Some(ca) = ca {
        env.push(("CONSILIUM_CA_CERT", ca));
    }
    Server::start_with(db, 0, &env)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_debates_run_over_https_with_a_private_ca() {
    let pki = make_pki();
    let seen = Seen::default();
    let base = start_tls_fakes(&pki, seen.clone(), String::new()).await;
    let (dir, db) = temp_db();
    let ca = write_ca(&dir, &pki);
    let server = tls_server(&db, &base, Some(&ca));

    for (backend, calls) in [("openai", &seen.chat_calls), ("http", &seen.agent_calls)] {
        let (id, events) = run_to_end(
            &server,
            json!({"query": "Should we ship the release tonight?", "backend": backend, "seed": 4}),
        )
        .await;
        let agent_calls = of_type(&events, "agent_call");
        assert_eq!(agent_calls.len(), 12, "{backend}: one call per S4 request");
        assert!(
            agent_calls.iter().all(|c| c["ok"] == true),
            "{backend}: every HTTPS call answered: {agent_calls:?}"
        );
        assert!(
            of_type(&events, "agent_failed").is_empty(),
            "{backend}: {:?}",
            of_type(&events, "agent_failed")
        );
        assert_eq!(calls.load(Ordering::SeqCst), 12, "{backend}");
        let decision = events.last().expect("decision");
        assert_eq!(decision["decision"], "WARN", "{backend}: {decision}");
        let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
        assert_eq!(detail["status"], "finished");
    }
    let bearers = seen.bearers.lock().expect("lock").clone();
    assert!(bearers[..12].iter().all(|b| b == "Bearer sk-tls-test-key"));
    assert!(bearers[12..].iter().all(|b| b == "Bearer agent-tls-token"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_certificate_is_refused_by_name() {
    let pki = make_pki();
    let seen = Seen::default();
    let base = start_tls_fakes(&pki, seen.clone(), String::new()).await;
    let (_dir, db) = temp_db();
    // No CA: the bundled and system roots do not know the test CA.
    let server = tls_server(&db, &base, None);
    let (_id, events) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "backend": "openai", "seed": 1}),
    )
    .await;
    let failures = of_type(&events, "agent_failed");
    assert_eq!(failures.len(), 12, "every call fails");
    let error = failures[0]["error"].as_str().expect("error");
    assert!(
        error.contains("certificate") && error.contains("UnknownIssuer"),
        "{error}"
    );
    assert_eq!(
        seen.chat_calls.load(Ordering::SeqCst),
        0,
        "nothing was sent"
    );
    assert_eq!(events.last().expect("decision")["decision"], "REFUSE");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_origin_is_not_followed() {
    let pki = make_pki();
    let seen = Seen::default();
    let base = start_tls_fakes(&pki, seen.clone(), String::new()).await;
    let (dir, db) = temp_db();
    let ca = write_ca(&dir, &pki);
    let server = tls_server(&db, &format!("{base}/bounce"), Some(&ca));
    let (_id, events) = run_to_end(
        &server,
        json!({"query": "Should we ship the release tonight?", "backend": "openai", "seed": 1}),
    )
    .await;
    assert_eq!(
        seen.elsewhere.load(Ordering::SeqCst),
        0,
        "no call reached the other origin"
    );
    let failures = of_type(&events, "agent_failed");
    assert_eq!(failures.len(), 12);
    let error = failures[0]["error"].as_str().expect("error");
    assert!(error.starts_with("HTTP 307"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_reads_an_export_from_an_https_server() {
    let (dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (id, _) = run_to_end(
        &server,
        json!({"query": "Ship the patch today?", "seed": 9}),
    )
    .await;
    let export = client()
        .get(server.url(&format!("/api/debates/{id}/export.json")))
        .send()
        .await
        .expect("GET export")
        .text()
        .await
        .expect("export body");

    let pki = make_pki();
    let base = start_tls_fakes(&pki, Seen::default(), export).await;
    let ca = write_ca(&dir, &pki);
    let url = format!("{base}/export.json");
    let (ok, out) = verify_with(&[&url, "--ca-cert", &ca]);
    assert!(ok, "{out}");
    assert!(out.contains("verified:"), "{out}");

    let (ok, out) = verify_with(&[&url]);
    assert!(!ok, "an unknown issuer must not be trusted: {out}");
    assert!(
        out.contains("cannot fetch") && out.contains("UnknownIssuer"),
        "{out}"
    );

    let missing = dir.path().join("no-such-ca.pem");
    let (ok, out) = verify_with(&[&url, "--ca-cert", &missing.to_string_lossy()]);
    assert!(!ok);
    assert!(out.contains("cannot read the CA certificate file"), "{out}");
}

#[test]
fn serve_refuses_to_start_with_an_unusable_ca_file() {
    let (dir, db) = temp_db();
    let not_pem = dir.path().join("not-a-cert.pem");
    std::fs::write(&not_pem, "hello, I am not a certificate\n").expect("write");
    let missing = dir.path().join("no-such-ca.pem");
    let cases = [
        (missing, "cannot read the CA certificate file"),
        (not_pem, "holds no PEM certificate"),
    ];
    for (path, expected) in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_consilium"))
            .args(["serve", "--addr", "127.0.0.1:0", "--database-url", &db.url])
            .arg("--ca-cert")
            .arg(&path)
            .env("NO_COLOR", "1")
            .output()
            .expect("run consilium");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", path.display());
        assert!(stderr.contains(expected), "{}: {stderr}", path.display());
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
