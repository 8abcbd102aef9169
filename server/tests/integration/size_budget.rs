//! The size budget of docs/PERFORMANCE.md: the home page, and each protocol's live page asked for
//! by address, is sent in at most 300 KB before it works — everything its HTML tells the browser to
//! fetch first (the module and its glue, the chunk loader, the page's own code or its protocol's
//! live bundle, the stylesheet), as the server sends it brotli-compressed. Measured on the site
//! `make test` builds (`cargo xtask site all`), served by the real binary.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::*;

/// 300 KB, in bytes.
const BUDGET: usize = 300_000;

/// The `/pkg/…` files a page's `<link>` tags preload or load (module, wasm, pack, stylesheet).
fn first_fetched(html: &str) -> Vec<String> {
    let mut files = Vec::new();
    for tag in html.split("<link").skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        let Some(href) = tag
            .split("href=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
        else {
            continue;
        };
        let loads = ["preload", "modulepreload", "stylesheet"]
            .iter()
            .any(|rel| tag.contains(&format!("rel=\"{rel}\"")));
        if loads && href.starts_with("/pkg/") && !files.iter().any(|f| f == href) {
            files.push(href.to_owned());
        }
    }
    files
}

/// What `path` costs on the wire before it works: its files, each as sent with brotli.
async fn first_load(server: &Server, path: &str) -> (usize, Vec<(String, usize)>) {
    let page = client().get(server.url(path)).send().await.expect("page");
    assert_eq!(page.status(), 200, "{path}");
    let html = page.text().await.expect("html");
    let files = first_fetched(&html);
    assert!(files.len() >= 3, "{path} names its bundle: {files:?}");
    let mut sizes = Vec::new();
    for file in files {
        let resp = client()
            .get(server.url(&file))
            .header("accept-encoding", "br")
            .send()
            .await
            .expect("file");
        assert_eq!(resp.status(), 200, "{file}");
        let encoding = resp
            .headers()
            .get("content-encoding")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        assert_eq!(
            encoding.as_deref(),
            Some("br"),
            "{file} is sent precompressed"
        );
        let bytes = resp.bytes().await.expect("body").len();
        sizes.push((file, bytes));
    }
    (sizes.iter().map(|(_, n)| n).sum(), sizes)
}

#[tokio::test]
async fn the_home_and_live_pages_stay_within_their_size_budget() {
    let pkg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/site/pkg");
    let live_bundles = std::fs::read_dir(&pkg)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with("live-"))
                .count()
        })
        .unwrap_or(0);
    assert!(
        live_bundles > 0,
        "the whole site is not built in {}: run `cargo xtask site all` (make test does)",
        pkg.display()
    );
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let reconcile: Value =
        serde_json::from_str(app::protocol::reconcile::EXAMPLE).expect("the RC example");
    let q = "Should we move the team to a four-day week?";
    let debates = [
        ("s4", json!({"query": q})),
        (
            "round_robin",
            json!({"query": q, "protocol": "round_robin"}),
        ),
        ("collapse", json!({"query": q, "protocol": "collapse"})),
        ("escalation", json!({"query": q, "protocol": "escalation"})),
        (
            "reconcile",
            json!({"query": "What do we believe?", "protocol": "reconcile", "observations": reconcile}),
        ),
    ];
    let mut pages = vec![("home".to_owned(), "/".to_owned())];
    for (protocol, body) in debates {
        let id = create(&server, body).await;
        pages.push((format!("live {protocol}"), format!("/debates/{id}")));
    }
    let mut over = Vec::new();
    for (name, path) in pages {
        let (total, files) = first_load(&server, &path).await;
        println!(
            "{name:<18} {:>7.1} KiB brotli in {} files",
            total as f64 / 1024.0,
            files.len()
        );
        if total > BUDGET {
            over.push(format!(
                "{name} ({path}): {total} bytes > {BUDGET}: {files:?}"
            ));
        }
    }
    assert!(
        over.is_empty(),
        "pages over their size budget:\n{}",
        over.join("\n")
    );
}
