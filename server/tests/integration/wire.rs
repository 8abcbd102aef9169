//! What goes over the wire, against the real binary: the bundle precompressed and
//! cached, JSON compressed, the live stream never; `consilium-bench load` against a running server.

use crate::common::*;
use serde_json::json;

/// A bundle built with hashed names (`cargo xtask site`: `pkg/hash.txt`) is asked
/// for under those names by the page, and a file carrying the hash is kept by browsers for good;
/// what does not carry it (the stylesheet, a name that is not there) is revalidated (`no-cache`).
#[tokio::test]
async fn hashed_bundle_names_are_asked_for_and_kept_for_good() {
    let site = tempfile::tempdir().expect("site");
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&pkg).expect("pkg");
    let h = "0123456789abcdef";
    std::fs::write(
        pkg.join("hash.txt"),
        format!("js: {h}\nwasm: {h}\nsplit: {h}\n"),
    )
    .expect("hash");
    std::fs::write(pkg.join(format!("consilium.{h}.js")), b"export default 1;").expect("js");
    std::fs::write(pkg.join(format!("consilium.{h}.wasm")), b"\0asm").expect("wasm");
    std::fs::write(pkg.join(format!("chunk_3.{h}.wasm")), b"\0asm chunk").expect("chunk");
    std::fs::write(pkg.join("consilium.css"), b"body {}").expect("css");
    let (_dir, db) = temp_db();
    let root = site.path().to_str().expect("utf-8 path");
    let app = InProcess::start(&db, &["--site-root", root]).await;

    let page = app.get("/").await;
    assert_eq!(page.status, 200);
    let html = String::from_utf8_lossy(&page.body).into_owned();
    for name in [
        format!("/pkg/consilium.{h}.js"),
        format!("/pkg/consilium.{h}.wasm"),
    ] {
        assert!(html.contains(&name), "the page asks for {name}: {html}");
    }
    assert!(!html.contains("/pkg/consilium_bg.wasm"), "{html}");

    let immutable = "public, max-age=31536000, immutable";
    let table = [
        (format!("/pkg/consilium.{h}.wasm"), 200, immutable),
        (format!("/pkg/consilium.{h}.js"), 200, immutable),
        (format!("/pkg/chunk_3.{h}.wasm"), 200, immutable),
        ("/pkg/consilium.css".to_owned(), 200, "no-cache"),
        (format!("/pkg/chunk_4.{h}.wasm"), 404, "no-cache"),
    ];
    for (path, status, cache) in table {
        let a = app.get(&path).await;
        assert_eq!(a.status, status, "{path}");
        let header = a.headers.get("cache-control").and_then(|v| v.to_str().ok());
        assert_eq!(header, Some(cache), "{path}");
    }
}

/// The browser hydrates synchronously (vendor/tachys/PATCH.md), so it must load a lazy
/// page's code first: every server-rendered page names the lazy route it shows in its `<head>`,
/// and a page that is not lazy names none. A live page that its protocol's live bundle hydrates
/// (when the site holds it) loads no lazy route: it names none.
#[tokio::test]
async fn a_page_names_the_lazy_route_the_browser_must_load_before_hydrating() {
    let (_dir, db) = temp_db();
    // A site of the split bundle alone, then one with the S4 live bundle beside it.
    let site = tempfile::tempdir().expect("site");
    std::fs::create_dir_all(site.path().join("pkg")).expect("pkg");
    let root = site.path().to_str().expect("path");
    let split = InProcess::start(&db, &["--site-root", root]).await;
    let id = split
        .debate(&json!({"query": "Is the bridge safe to reopen?", "seed": 3}))
        .await;
    let h = "0123456789abcdef";
    std::fs::write(
        site.path().join("pkg/hash.txt"),
        format!("js: {h}\nlive: {h}\n"),
    )
    .expect("hash");
    for ext in ["js", "wasm"] {
        std::fs::write(site.path().join(format!("pkg/live-s4.{h}.{ext}")), "").expect("bundle");
    }
    let live = InProcess::start(&db, &["--site-root", root]).await;
    let table = [
        (&split, "/".to_owned(), Some("HomeRoute")),
        (&split, "/judge/sign-in".to_owned(), None),
        (&split, "/no/such/page".to_owned(), None),
        (&split, format!("/debates/{id}"), Some("LiveRoute")),
        (&split, format!("/debates/{id}/audit"), Some("AuditRoute")),
        (
            &split,
            "/debates/no-such-debate".to_owned(),
            Some("LiveRoute"),
        ),
        (&split, "/agents".to_owned(), Some("AgentsRoute")),
        (&split, "/eval".to_owned(), Some("EvalRoute")),
        (&live, format!("/debates/{id}"), None),
        (&live, format!("/debates/{id}/audit"), Some("AuditRoute")),
        (
            &live,
            "/debates/no-such-debate".to_owned(),
            Some("LiveRoute"),
        ),
    ];
    for (app, path, route) in table {
        let html = app.get(&path).await.text();
        let named: Vec<&str> = html
            .match_indices(r#"<meta name="consilium-page" content=""#)
            .map(|(at, m)| {
                let rest = &html[at + m.len()..];
                &rest[..rest.find('"').unwrap_or(0)]
            })
            .collect();
        assert_eq!(named, route.into_iter().collect::<Vec<_>>(), "{path}");
    }
}

/// The browser bundle is sent as the `.br` or `.gz` written beside it at build time,
/// whichever the browser accepts (the file itself otherwise), with `no-cache` and a
/// `Last-Modified` that answers 304 while it has not changed; JSON is compressed on the fly;
/// the live stream never is.
#[tokio::test]
async fn the_bundle_goes_precompressed_json_compressed_never_the_stream() {
    let site = tempfile::tempdir().expect("site");
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&pkg).expect("pkg");
    let raw = b"\0asm the bundle itself".to_vec();
    std::fs::write(pkg.join("consilium_bg.wasm"), &raw).expect("wasm");
    std::fs::write(pkg.join("consilium_bg.wasm.br"), b"brotli bytes").expect("br");
    std::fs::write(pkg.join("consilium_bg.wasm.gz"), b"gzip bytes").expect("gz");
    let (_dir, db) = temp_db();
    let root = site.path().to_str().expect("utf-8 path");
    let app = InProcess::start(&db, &["--site-root", root]).await;

    let wasm = "/pkg/consilium_bg.wasm";
    let table: [(&str, Option<&str>, &[u8]); 4] = [
        ("br, gzip", Some("br"), b"brotli bytes"),
        ("gzip, deflate", Some("gzip"), b"gzip bytes"),
        ("identity", None, &raw),
        ("", None, &raw),
    ];
    let mut modified = None;
    for (accept, encoding, body) in table {
        let headers: Vec<(&str, &str)> = if accept.is_empty() {
            vec![]
        } else {
            vec![("accept-encoding", accept)]
        };
        let a = app
            .send(
                axum::http::Method::GET,
                wasm,
                &headers,
                axum::body::Body::empty(),
            )
            .await;
        assert_eq!(a.status, 200, "{accept}");
        let header = |name: &str| a.headers.get(name).and_then(|v| v.to_str().ok());
        assert_eq!(header("content-encoding"), encoding, "{accept}");
        assert_eq!(header("content-type"), Some("application/wasm"), "{accept}");
        assert_eq!(header("cache-control"), Some("no-cache"), "{accept}");
        assert_eq!(header("vary"), Some("accept-encoding"), "{accept}");
        assert_eq!(a.body, body, "{accept}");
        modified = header("last-modified").map(str::to_owned);
    }
    let modified = modified.expect("Last-Modified");
    let again = app
        .send(
            axum::http::Method::GET,
            wasm,
            &[("if-modified-since", &modified), ("accept-encoding", "br")],
            axum::body::Body::empty(),
        )
        .await;
    assert_eq!(again.status, 304, "unchanged: revalidated, not resent");
    assert!(again.body.is_empty());

    // JSON, on the fly; the same answer uncompressed for a client that accepts nothing else.
    let id = app
        .post_json(
            "/api/debates",
            &json!({"query": "Should we ship on Friday?", "seed": 3}),
        )
        .await
        .json()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let detail = format!("/api/debates/{id}");
    for _ in 0..200 {
        if app.get(&detail).await.json()["status"] == "finished" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let plain = app.get(&detail).await;
    assert_eq!(plain.json()["status"], "finished");
    assert!(plain.headers.get("content-encoding").is_none());
    for (accept, encoding) in [("gzip", "gzip"), ("br", "br")] {
        let packed = app
            .send(
                axum::http::Method::GET,
                &detail,
                &[("accept-encoding", accept)],
                axum::body::Body::empty(),
            )
            .await;
        assert_eq!(packed.status, 200);
        assert_eq!(
            packed
                .headers
                .get("content-encoding")
                .and_then(|v| v.to_str().ok()),
            Some(encoding)
        );
        assert!(
            packed.body.len() < plain.body.len() / 2,
            "{accept} compresses"
        );
    }
    // The stream of events is never compressed (a proxy or browser would hold it back).
    let stream = app
        .send(
            axum::http::Method::GET,
            &format!("/api/debates/{id}/events"),
            &[("accept-encoding", "br, gzip")],
            axum::body::Body::empty(),
        )
        .await;
    assert_eq!(stream.status, 200);
    assert!(stream.headers.get("content-encoding").is_none());
    assert!(stream.text().contains("event: decision") || stream.text().contains("\"decision\""));
}

/// The load client's contract: `consilium-bench load` starts debates on a running server, watches
/// them with many raw live viewers at once, and ends with a `load:` line counting the viewers
/// that got the exact log and the live latency's p99. Without raised limits it stops at the
/// first refusal and says which limits to raise.
#[tokio::test]
async fn consilium_load_reports_exact_logs_and_latency() {
    let (_dir, db) = temp_db();
    let limits = [
        ("CONSILIUM_MAX_STREAMS_PER_CLIENT", "1000"),
        ("CONSILIUM_RATE_LIMIT", "1000"),
        ("CONSILIUM_RATE_BURST", "1000"),
    ];
    let server = Server::start_with(&db, 20, &limits);
    let addr = server.base.trim_start_matches("http://").to_owned();
    let (ok, out) = bench(&[
        "load",
        "--addr",
        &addr,
        "--viewers",
        "60",
        "--debates",
        "3",
        "--per-batch",
    ]);
    assert!(ok, "{out}");
    assert!(
        out.contains("  batch at +"),
        "--per-batch lists the batches: {out}"
    );
    let last = out
        .lines()
        .rfind(|l| l.starts_with("load:"))
        .expect("a load: line");
    assert!(last.contains("exact=60/60"), "{out}");
    let p99: f64 = last
        .split_whitespace()
        .find_map(|w| w.strip_prefix("p99_ms="))
        .and_then(|v| v.parse().ok())
        .expect("p99_ms=<number>");
    assert!(p99 >= 0.0, "{out}");
    // An event is read after it arrived: the client's own queue only adds.
    let read_p99: f64 = last
        .split_whitespace()
        .find_map(|w| w.strip_prefix("read_p99_ms="))
        .and_then(|v| v.parse().ok())
        .expect("read_p99_ms=<number>");
    assert!(read_p99 >= p99, "{out}");

    // The defaults let one address hold 64 streams: the 65th viewer is refused, and said so.
    let strict = Server::start(&db, 20);
    let addr = strict.base.trim_start_matches("http://").to_owned();
    let (_, out) = bench(&["load", "--addr", &addr, "--viewers", "80", "--debates", "1"]);
    let last = out
        .lines()
        .rfind(|l| l.starts_with("load:"))
        .expect("a load: line");
    assert!(!last.contains("exact=80/80"), "{out}");
    assert!(out.contains("429"), "the refusals are named: {out}");
}
