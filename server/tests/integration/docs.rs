//! DX-2: the docs cannot drift from the code. Every path a doc names exists; every requirement id
//! the code and tests cite is defined in `docs/PROTOCOLS.md`; every flag and environment variable
//! of `consilium` (read from clap) and `consilium-bench` (from its help) is in `docs/OPERATIONS.md`; every `curl`/`consilium` example runs
//! against a real server and succeeds. And the repository holds no private key and no tracker
//! numbers or development diary.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// The requirement id prefixes of the spec (`S4-6`, `WC-2`, …).
const ID_PREFIXES: &[&str] = &[
    "AG", "CR", "DX", "ES", "FK", "LM", "MN", "QL", "RC", "RR", "RS", "S4", "SV", "UI", "WC",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// The user-facing documents: README, CHANGELOG and everything in docs/.
fn docs() -> Vec<(PathBuf, String)> {
    let root = root();
    let mut files = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    in_docs.sort();
    files.extend(in_docs);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

/// Files git tracks, relative to the root.
fn tracked() -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .expect("git runs (the checks read what the repository tracks)");
    assert!(out.status.success(), "git ls-files failed");
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// What a doc writes `like this` or links to [like this](path).
fn spans(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let Some(code) = parts.next() {
            out.push(code.to_owned());
            parts.next();
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    out
}

const TOP: &[&str] = &[
    "app/",
    "server/",
    "frontend/",
    "end2end/",
    "xtask/",
    "scripts/",
    "style/",
    "public/",
    "vendor/",
    "docs/",
    ".ci/",
    ".cargo/",
];

/// A span that names a file or folder of this repository, as a path relative to `base`.
fn repo_path(span: &str) -> Option<String> {
    let span = span.trim();
    let span = span.split('#').next().unwrap_or(span);
    if span.is_empty()
        || span.contains("://")
        || span.contains(char::is_whitespace)
        || span.contains(['*', '{', '<', '$', '…', '='])
    {
        return None;
    }
    // `file.rs:120` names a line of a file.
    let span = match span.rsplit_once(':') {
        Some((file, line)) if line.chars().all(|c| c.is_ascii_digit()) => file,
        _ => span,
    };
    let named = TOP.iter().any(|t| span.starts_with(t))
        || [
            "Makefile",
            "Cargo.toml",
            "Cargo.lock",
            "Trunk.toml",
            "README.md",
            "CHANGELOG.md",
            "clippy.toml",
        ]
        .contains(&span)
        || span.starts_with("../")
        || (span.ends_with(".md") && !span.contains('/'));
    named.then(|| span.to_owned())
}

#[test]
fn every_path_a_doc_names_exists() {
    let root = root();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (file, text) in docs() {
        let base = file.parent().expect("a folder").to_path_buf();
        for span in spans(&text) {
            let Some(path) = repo_path(&span) else {
                continue;
            };
            checked += 1;
            // A link is relative to its document; a path in backticks to the repository's root.
            let exists = root.join(&path).exists() || base.join(&path).exists();
            if !exists {
                missing.push(format!(
                    "{}: `{path}`",
                    file.strip_prefix(&root).unwrap_or(&file).display()
                ));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths found in the docs: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "the docs name paths that do not exist:\n{}",
        missing.join("\n")
    );
}

/// Every `PREFIX-N` in `text`.
fn requirement_ids(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let bytes = text.as_bytes();
    for prefix in ID_PREFIXES {
        let pattern = format!("{prefix}-");
        let mut from = 0;
        while let Some(i) = text[from..].find(&pattern) {
            let start = from + i;
            from = start + pattern.len();
            let before_ok = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
            let digits: String = text[from..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let after = text[from + digits.len()..].chars().next();
            let after_ok = !after.is_some_and(|c| c.is_ascii_alphanumeric());
            if before_ok && !digits.is_empty() && after_ok {
                ids.insert(format!("{prefix}-{digits}"));
            }
        }
    }
    ids
}

fn source_files() -> Vec<String> {
    tracked()
        .into_iter()
        .filter(|f| {
            ["app/", "server/", "frontend/", "end2end/", "xtask/"]
                .iter()
                .any(|d| f.starts_with(d))
                && [".rs", ".ts", ".sql"].iter().any(|x| f.ends_with(x))
        })
        .collect()
}

#[test]
fn every_requirement_id_cited_in_code_is_in_protocols_md() {
    let root = root();
    let protocols =
        std::fs::read_to_string(root.join("docs/PROTOCOLS.md")).expect("docs/PROTOCOLS.md exists");
    let defined = requirement_ids(&protocols);
    let mut cited = BTreeSet::new();
    let mut unknown = Vec::new();
    for file in source_files() {
        let Ok(text) = std::fs::read_to_string(root.join(&file)) else {
            continue;
        };
        for id in requirement_ids(&text) {
            if !defined.contains(&id) {
                unknown.push(format!("{file}: {id}"));
            }
            cited.insert(id);
        }
    }
    assert!(
        cited.len() > 40,
        "only {} ids cited: is the scan broken?",
        cited.len()
    );
    assert!(
        unknown.is_empty(),
        "requirement ids cited in the code but not defined in docs/PROTOCOLS.md:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn every_flag_and_environment_variable_is_in_operations_md() {
    use clap::CommandFactory;
    let operations = std::fs::read_to_string(root().join("docs/OPERATIONS.md"))
        .expect("docs/OPERATIONS.md exists");
    let mut missing = Vec::new();
    let mut seen = 0;
    let mut stack = vec![(String::from("consilium"), server::cli::Cli::command())];
    while let Some((path, command)) = stack.pop() {
        for arg in command.get_arguments() {
            if let Some(long) = arg.get_long() {
                if long != "help" && long != "version" {
                    seen += 1;
                    if !operations.contains(&format!("`--{long}")) {
                        missing.push(format!("{path}: --{long}"));
                    }
                }
            }
            if let Some(env) = arg.get_env() {
                let env = env.to_string_lossy();
                seen += 1;
                if !operations.contains(&format!("`{env}")) {
                    missing.push(format!("{path}: {env}"));
                }
            }
        }
        for sub in command.get_subcommands() {
            stack.push((format!("{path} {}", sub.get_name()), sub.clone()));
        }
    }
    assert!(seen > 30, "only {seen} flags read from clap");
    // `consilium-bench`'s flags, read from its help (its clap definition lives in its binary).
    let bench = env!("CARGO_BIN_EXE_consilium-bench");
    for suite in ["", "safety", "credibility", "reconcile", "topics", "load"] {
        let mut cmd = std::process::Command::new(bench);
        if !suite.is_empty() {
            cmd.arg(suite);
        }
        let out = cmd.arg("--help").output().expect("consilium-bench --help");
        assert!(out.status.success(), "consilium-bench {suite} --help");
        let help = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut flags = 0;
        let mut after_env = false;
        for word in help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
            if std::mem::replace(&mut after_env, word == "env:") {
                let env = word.split('=').next().unwrap_or(word);
                if !operations.contains(&format!("`{env}")) {
                    missing.push(format!("consilium-bench {suite}: {env}"));
                }
            }
            let name: String = word
                .strip_prefix("--")
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if name.len() > 1 && name != "help" && name != "version" {
                flags += 1;
                if !operations.contains(&format!("`--{name}")) {
                    missing.push(format!("consilium-bench {suite}: --{name}"));
                }
            }
        }
        assert!(
            flags > 0,
            "no flags read from consilium-bench {suite} --help:\n{help}"
        );
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "flags and environment variables of `consilium` and `consilium-bench` that \
         docs/OPERATIONS.md does not name \
         (in backticks):\n{}",
        missing.join("\n")
    );
}

/// A fenced `sh` block that runs `curl` or `consilium` and is not marked `<!-- not run: … -->`.
fn examples(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "```sh" {
            let start = i;
            let marked = lines[..start]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| l.trim_start().starts_with("<!-- not run"));
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && lines[i].trim() != "```" {
                body.push(lines[i]);
                i += 1;
            }
            let body = body.join("\n");
            let runs_ours = body.lines().any(|l| {
                let l = l.trim_start();
                !l.starts_with('#') && (l.contains("curl ") || l.contains("consilium "))
            });
            if runs_ours && !marked {
                out.push((start + 1, body));
            }
        }
        i += 1;
    }
    out
}

#[test]
fn every_example_in_the_docs_runs_against_a_server() {
    let (guard, db) = temp_db();
    let server = Server::start(&db, 0);
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_consilium"));
    let bin_dir = bin.parent().expect("the binary's folder").to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let host = server.base.trim_start_matches("http://").to_owned();
    let mut ran = 0;
    let mut failures = Vec::new();
    for (file, text) in docs() {
        let name = file
            .strip_prefix(root())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line, body) in examples(&text) {
            ran += 1;
            let work = tempfile::tempdir().expect("tempdir");
            let script = format!(
                "set -euo pipefail\n\
                 curl() {{ command curl --fail-with-body --silent --show-error --max-time 60 \"$@\"; }}\n\
                 {}\n",
                body.replace("127.0.0.1:3000", &host)
                    .replace("localhost:3000", &host)
            );
            let out = Command::new("bash")
                .arg("-c")
                .arg(&script)
                .current_dir(work.path())
                .env("PATH", &path)
                .env("DATABASE_URL", &db.url)
                .env_remove("OPENAI_API_KEY")
                .env_remove("OPENAI_MODEL")
                .output()
                .expect("bash runs");
            if !out.status.success() {
                failures.push(format!(
                    "{name}:{line} failed ({}):\n{body}\n--- stdout\n{}\n--- stderr\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    drop(server);
    drop(guard);
    assert!(ran >= 5, "only {ran} examples found in the docs");
    assert!(
        failures.is_empty(),
        "{} of {ran} examples in the docs failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Split in two so that this file does not match itself.
const PEM_PRIVATE: &str = concat!("PRIVATE", " KEY-----");

/// Text that is a private key: a PEM private key, or 64 hex digits alone (an Ed25519 secret as
/// Consilium writes it).
fn is_private_key(name: &str, bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let trimmed = text.trim();
    name.ends_with(".signing-key")
        || text.contains(PEM_PRIVATE)
        || (trimmed.len() == 64 && trimmed.chars().all(|c| c.is_ascii_hexdigit()))
}

#[test]
fn no_private_key_is_tracked() {
    assert!(is_private_key("x", &[b'a'; 64]));
    let pem = format!("-----BEGIN {PEM_PRIVATE}\nAAAA");
    assert!(is_private_key("k.pem", pem.as_bytes()));
    assert!(!is_private_key("a.rs", b"fn main() {}"));
    let root = root();
    let keys: Vec<String> = tracked()
        .into_iter()
        .filter(|f| std::fs::read(root.join(f)).is_ok_and(|bytes| is_private_key(f, &bytes)))
        .collect();
    assert!(
        keys.is_empty(),
        "private keys are tracked (remove them with `git rm --cached` and make new ones; a \
         committed key must never be trusted): {keys:?}"
    );
}

/// Lines that name a tracker issue or tell the story of the work, in `text`.
fn diary_lines(text: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        let numbered = |word: &str| {
            lower.match_indices(word).any(|(i, _)| {
                let before_ok = i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric();
                let rest = lower[i + word.len()..].trim_start_matches(['#', ' ']);
                before_ok
                    && rest.starts_with(|c: char| c.is_ascii_digit())
                    && lower[i + word.len()..].starts_with([' ', '#'])
            })
        };
        if numbered("issue") || numbered("stop") || lower.contains(concat!("fast", " day")) {
            hits.push(format!("{}: {}", n + 1, line.trim()));
        }
    }
    hits
}

#[test]
fn no_tracker_numbers_or_diary_in_code_or_docs() {
    // Built from parts, so that this file does not match itself.
    let (issue, stop) = ("Issue", "stop");
    assert_eq!(diary_lines(&format!("see {issue} 17 for why")).len(), 1);
    assert_eq!(diary_lines(&format!("see {issue} #17")).len(), 1);
    assert_eq!(diary_lines(&format!("// {stop} 46: scan")).len(), 1);
    assert!(diary_lines("the issue of trust; stops at 75 %; stop() then 3").is_empty());
    let root = root();
    let mut hits = Vec::new();
    for file in tracked() {
        // Applied migrations are checksummed by the databases that ran them: their text is fixed.
        let skip = file.starts_with("server/migrations/")
            || (file.starts_with("vendor/") && !file.ends_with(".md"))
            || file.ends_with(".png")
            || file.ends_with(".tsv")
            || file == "Cargo.lock"
            || file.starts_with("end2end/package");
        if skip {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(&file)) else {
            continue;
        };
        for hit in diary_lines(&text) {
            hits.push(format!("{file}:{hit}"));
        }
    }
    assert!(
        hits.is_empty(),
        "tracker numbers or development history (a comment says why, citing a requirement id \
         or a measured fact; git log keeps the history):\n{}",
        hits.join("\n")
    );
}
