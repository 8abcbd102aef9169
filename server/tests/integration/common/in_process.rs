//! The HTTP contract without a process: the very router `consilium serve` builds (same flags,
//! same store, same guards), called with `tower::ServiceExt::oneshot` as in axum's
//! `examples/testing`. For what needs a real process (SSE resume, restart, SIGKILL) see `Server`.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use super::TestDb;

pub struct InProcess {
    router: Router,
}

/// One answer, read whole.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl InProcess {
    /// `consilium serve --database-url … --pace-ms 0 FLAGS…`, built but not listening.
    pub async fn start(db: &TestDb, flags: &[&str]) -> InProcess {
        let mut all = vec!["--database-url", db.url.as_str(), "--pace-ms", "0"];
        all.extend_from_slice(flags);
        let args = server::cli::serve::ServeArgs::from_flags(all).expect("valid serve flags");
        let serving = server::cli::serve::build(&args)
            .await
            .expect("the server builds");
        InProcess {
            router: serving.router,
        }
    }

    /// Sends one request as a loopback client would (its address, and a `Host` the guard
    /// accepts unless the request names its own).
    pub async fn call(&self, mut req: Request<Body>) -> Answer {
        if !req.headers().contains_key("host") {
            req.headers_mut()
                .insert("host", HeaderValue::from_static("127.0.0.1:3000"));
        }
        req.extensions_mut()
            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 40000))));
        let resp = self
            .router
            .clone()
            .oneshot(req)
            .await
            .expect("the router answers");
        let status = resp.status();
        let headers = resp.headers().clone();
        let body = resp
            .into_body()
            .collect()
            .await
            .expect("a whole body")
            .to_bytes()
            .to_vec();
        Answer {
            status,
            headers,
            body,
        }
    }

    pub async fn send(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<Body>,
    ) -> Answer {
        let mut req = Request::builder().method(method).uri(path);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        self.call(req.body(body.into()).expect("a well-formed test request"))
            .await
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.send(Method::GET, path, &[], Body::empty()).await
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> Answer {
        self.send(
            Method::POST,
            path,
            &[("content-type", "application/json")],
            body.to_string(),
        )
        .await
    }

    /// Starts a debate and waits until its log holds a decision (or it stopped).
    pub async fn debate(&self, body: &Value) -> String {
        let created = self.post_json("/api/debates", body).await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text());
        let id = created.json()["id"].as_str().expect("an id").to_owned();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let detail = self.get(&format!("/api/debates/{id}")).await.json();
            if detail["status"] != "running" {
                return id;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "debate {id} still running after 60 s"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}
