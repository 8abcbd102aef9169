//! The core's layers, read from its source: `shared/` (what every protocol uses) names no protocol
//! and nothing above it; a protocol folder names `shared/` and the plain vocabulary (`types`,
//! `error`, `credibility`, …) but never the envelope that wraps it (`event/`, `request.rs`,
//! `outcome.rs`, `debate.rs`), the runner, the fold, nor another protocol. Tests may drive a
//! protocol through the envelope, so a folder's `tests/` and `#[cfg(test)]` modules are not read.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a test: a panic is a failure with its place
#![allow(clippy::disallowed_methods)] // the test reads the core's files, which the core may not

use std::path::{Path, PathBuf};

const PROTOCOLS: [&str; 5] = ["s4", "round_robin", "collapse", "escalation", "reconcile"];

/// What lies above the protocols: the envelope and everything built on it.
const ABOVE: [&str; 9] = [
    "event",
    "request",
    "outcome",
    "debate",
    "run",
    "reducer",
    "recompute",
    "chain",
    "status",
];

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, but tests.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's code before its test module.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read");
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

/// Every `crate::…` path a file names (after `crate::`, up to the next non-name character), and
/// every name it takes from the crate's root.
fn named(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .map(|(i, m)| {
            code[i + m.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                .collect()
        })
        .collect()
}

fn violations(folder: &str, forbidden: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    sources(&src().join(folder), &mut files);
    assert!(!files.is_empty(), "{folder}: no sources");
    let mut found = Vec::new();
    for file in files {
        for name in named(&code(&file)) {
            let root_item = name.starts_with(|c: char| c.is_uppercase() || c == '{');
            if root_item || forbidden.contains(&name.as_str()) {
                found.push(format!("{}: crate::{name}", file.display()));
            }
        }
    }
    found
}

#[test]
fn shared_names_no_protocol_and_nothing_above_it() {
    let forbidden: Vec<&str> = PROTOCOLS.iter().chain(ABOVE.iter()).copied().collect();
    let found = violations("shared", &forbidden);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn a_protocol_names_neither_the_envelope_nor_another_protocol() {
    for protocol in PROTOCOLS {
        let forbidden: Vec<&str> = PROTOCOLS
            .iter()
            .filter(|p| **p != protocol)
            .chain(ABOVE.iter())
            .copied()
            .collect();
        let found = violations(protocol, &forbidden);
        assert!(found.is_empty(), "{found:#?}");
    }
}

/// The rule reads what it claims to: a file that names the envelope is caught.
#[test]
fn the_reader_sees_a_named_envelope() {
    let names =
        named("use crate::event::EventBody;\nuse crate::{Event, Outcome};\nx(crate::s4::S4Event);");
    assert_eq!(names, ["event", "{Event", "s4"]);
}
