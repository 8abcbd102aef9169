//! The protocol core is pure by construction: no I/O, no clock, no randomness but a passed-in
//! seed, no UI framework. Cargo enforces the crates (code cannot name a crate the manifest does not
//! list); this test reads the whole resolved graph with `cargo tree`, so a dependency that pulls a
//! runtime, a database or the browser in — directly or through another crate — fails CI. The
//! standard library's clock, files, network, threads and environment are refused by clippy
//! (`app/protocol/clippy.toml`).
#![allow(clippy::expect_used, clippy::unwrap_used)] // a test: a panic is a failure with its place
#![allow(clippy::disallowed_methods)] // the test itself runs cargo, which the core may not

use std::process::Command;

/// Crates the core must not depend on, and why.
const FORBIDDEN: [(&str, &str); 18] = [
    ("leptos", "the UI framework"),
    ("tachys", "the UI framework"),
    ("tokio", "an async runtime"),
    ("async-std", "an async runtime"),
    ("mio", "I/O"),
    ("axum", "the HTTP server"),
    ("hyper", "HTTP"),
    ("reqwest", "HTTP calls"),
    ("sqlx", "the database"),
    ("rusqlite", "the database"),
    ("web-sys", "the browser"),
    ("js-sys", "the browser"),
    ("wasm-bindgen", "the browser"),
    ("uuid", "randomness"),
    ("rand", "randomness"),
    ("getrandom", "randomness"),
    ("chrono", "a clock"),
    ("time", "a clock"),
];

/// The forbidden crates a `cargo tree --prefix none` listing names.
fn forbidden_in(tree: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in tree.lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        if let Some((_, why)) = FORBIDDEN.iter().find(|(n, _)| *n == name) {
            found.push(format!("{line} ({why})"));
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn the_checker_catches_what_it_must() {
    let table: [(&str, bool); 7] = [
        ("tokio v1.54.0", true),
        ("leptos v0.8.23", true),
        ("getrandom v0.3.4", true),
        ("serde v1.0.228 (/work/vendor/serde)", false),
        ("time-humanize v0.1.0", false),
        ("protocol v0.2.0 (/work/app/protocol)", false),
        ("sha2 v0.10.9", false),
    ];
    for (line, bad) in table {
        assert_eq!(!forbidden_in(line).is_empty(), bad, "{line}");
    }
}

#[test]
fn the_protocol_core_depends_on_no_io_clock_randomness_or_ui() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--locked",
            "--package",
            "protocol",
            "--all-features",
            "--edges",
            "normal",
        ])
        .args(["--target", "all", "--prefix", "none", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo tree runs");
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        tree.lines().count() > 10,
        "an implausibly small tree:\n{tree}"
    );
    assert!(
        tree.contains("serde_json"),
        "the tree misses serde_json:\n{tree}"
    );
    let problems = forbidden_in(&tree);
    assert!(
        problems.is_empty(),
        "the protocol core must stay pure; it depends on:\n{}",
        problems.join("\n")
    );
}
