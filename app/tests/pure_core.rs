//! The protocol core (`app/src/protocol`) is pure by construction: no I/O, no clock, no
//! randomness but a passed-in seed, no UI framework. This test reads every source file of the
//! core and fails on any forbidden path, so a change that breaks the rule fails CI.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::too_many_lines)] // a test: a panic is a failure with its place; a scenario reads top to bottom

use std::path::{Path, PathBuf};

/// Paths the core must not name, and why.
const FORBIDDEN: [(&str, &str); 20] = [
    ("leptos", "the UI framework"),
    ("tokio", "an async runtime"),
    ("axum", "the HTTP server"),
    ("sqlx", "the database"),
    ("reqwest", "HTTP calls"),
    ("hyper", "HTTP"),
    ("web_sys", "the browser"),
    ("js_sys", "the browser"),
    ("gloo", "the browser"),
    ("wasm_bindgen", "the browser"),
    ("uuid", "randomness"),
    ("rand", "randomness"),
    ("getrandom", "randomness"),
    ("chrono", "a clock"),
    ("SystemTime", "the clock"),
    ("Instant", "the clock"),
    ("std::fs", "the file system"),
    ("std::net", "the network"),
    ("std::thread", "threads"),
    ("std::env", "the environment"),
];

/// The forbidden names `source` uses, with their line numbers. Comments are skipped.
fn violations(source: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for (name, _) in FORBIDDEN {
            if uses(code, name) {
                found.push((i + 1, name));
            }
        }
    }
    found
}

/// `name` appears in `code` as a whole path segment (so `brand` is not `rand`).
fn uses(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + name.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after) && !code[..at].ends_with('"')
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_checker_catches_what_it_must() {
    let table: [(&str, bool); 8] = [
        ("use tokio::sync::mpsc;", true),
        ("let t = std::time::SystemTime::now();", true),
        ("use leptos::prelude::*;", true),
        ("let r = rand::random::<u64>();", true),
        ("let brand = operand;", false),
        ("// tokio is mentioned in a comment only", false),
        ("let seed: u64 = 7; // no randomness but the seed", false),
        ("use std::collections::VecDeque;", false),
    ];
    for (code, bad) in table {
        assert_eq!(!violations(code).is_empty(), bad, "{code}");
    }
}

#[test]
fn the_protocol_core_imports_no_io_clock_randomness_or_ui() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/protocol");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut problems = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
        for (line, name) in violations(&source) {
            let why = FORBIDDEN
                .iter()
                .find(|(n, _)| *n == name)
                .map_or("", |f| f.1);
            problems.push(format!("{}:{line}: uses {name} ({why})", file.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "the protocol core must stay pure:\n{}",
        problems.join("\n")
    );
}
