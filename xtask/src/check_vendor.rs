//! `check-vendor`: each crate carried with a patch in `vendor/` must be exactly the registry's
//! crate of the version its `Cargo.toml` names, plus its `PATCH.diff`. The task takes the
//! published crate (from cargo's cache, or from crates.io), applies the patch and compares every
//! file; any difference — an edit the patch does not hold, a patch that no longer applies, a file
//! added or lost — fails, naming the file. So a fork can always be re-derived, and updating one
//! means: the new version's crate, the same patch, this check.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::files::{cargo_home, names_in, path_str, read};

/// Files of ours in a vendored folder, not the crate's.
const OURS: [&str; 2] = ["PATCH.md", "PATCH.diff"];
/// What cargo writes when it unpacks a crate, not part of its source.
const UNPACKING: [&str; 2] = [".cargo-ok", ".cargo_vcs_info.json"];

pub fn run(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: check-vendor".into());
    }
    let root = crate::workspace_root();
    let vendor = root.join("vendor");
    let mut failures = Vec::new();
    let crates = names_in(&vendor)?;
    for name in &crates {
        let dir = vendor.join(name);
        if !dir.is_dir() {
            continue;
        }
        match check(&dir) {
            Ok(summary) => println!("vendor/{name}: {summary}"),
            Err(e) => failures.push(format!("vendor/{name}: {e}")),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} patched crates are not their registry crate plus PATCH.diff:\n{}",
            failures.len(),
            crates.len(),
            failures.join("\n")
        ))
    }
}

/// `name` and `version` of the `[package]` in a crate's `Cargo.toml`.
fn package(dir: &Path) -> Result<(String, String), String> {
    let text = String::from_utf8_lossy(&read(&dir.join("Cargo.toml"))?).into_owned();
    let mut in_package = false;
    let (mut name, mut version) = (None, None);
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            let value = |key: &str| {
                line.strip_prefix(key)
                    .map(str::trim_start)
                    .and_then(|l| l.strip_prefix('='))
                    .map(|v| v.trim().trim_matches('"').to_string())
            };
            name = name.or_else(|| value("name"));
            version = version.or_else(|| value("version"));
        }
    }
    match (name, version) {
        (Some(n), Some(v)) => Ok((n, v)),
        _ => Err("its Cargo.toml names no [package] name and version".into()),
    }
}

fn check(dir: &Path) -> Result<String, String> {
    let (name, version) = package(dir)?;
    let patch = dir.join("PATCH.diff");
    if !patch.exists() {
        return Err("no PATCH.diff: a fork must say how it differs from its crate".into());
    }
    let work = std::env::temp_dir().join(format!("consilium-check-vendor-{name}-{version}"));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let archive = crate_archive(&name, &version, &work)?;
    run_in(&work, "tar", &["xzf", path_str(&archive)?])?;
    let pristine = work.join(format!("{name}-{version}"));
    let patch_str = path_str(&patch)?.to_string();
    // `git apply` outside a repository works as `patch -p1` does (and git is there: this is a
    // clone).
    run_in(&pristine, "git", &["apply", &patch_str])
        .map_err(|e| format!("PATCH.diff does not apply to {name} {version}: {e}"))?;
    let theirs = tree(&pristine, &UNPACKING)?;
    let ours_skipped: Vec<&str> = OURS.iter().chain(&UNPACKING).copied().collect();
    let ours = tree(dir, &ours_skipped)?;
    let mut problems = Vec::new();
    for file in theirs.difference(&ours) {
        problems.push(format!("{file} is in the crate but not here"));
    }
    for file in ours.difference(&theirs) {
        problems.push(format!("{file} is here but not in the crate"));
    }
    for file in theirs.intersection(&ours) {
        if read(&pristine.join(file))? != read(&dir.join(file))? {
            problems.push(format!("{file} differs from the crate plus PATCH.diff"));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    if problems.is_empty() {
        Ok(format!(
            "{name} {version} from the registry plus PATCH.diff, {} files identical",
            theirs.len()
        ))
    } else {
        Err(problems.join("; "))
    }
}

/// The published `.crate`: cargo's download cache if it holds it, else crates.io.
fn crate_archive(name: &str, version: &str, work: &Path) -> Result<PathBuf, String> {
    let file = format!("{name}-{version}.crate");
    if let Some(cache) = cargo_home().map(|h| h.join("registry/cache")) {
        for index in names_in(&cache).unwrap_or_default() {
            let cached = cache.join(index).join(&file);
            if cached.exists() {
                return Ok(cached);
            }
        }
    }
    let out = work.join(&file);
    let url = format!("https://static.crates.io/crates/{name}/{file}");
    run_in(
        work,
        "curl",
        &["-fsSL", "--retry", "3", "-o", path_str(&out)?, &url],
    )
    .map_err(|e| format!("cannot download {url}: {e}"))?;
    Ok(out)
}

/// Every file under `dir`, as paths relative to it, except the top-level names in `skip`.
fn tree(dir: &Path, skip: &[&str]) -> Result<BTreeSet<String>, String> {
    fn walk(base: &Path, rel: &str, out: &mut BTreeSet<String>) -> Result<(), String> {
        for name in names_in(&base.join(rel))? {
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if base.join(&path).is_dir() {
                walk(base, &path, out)?;
            } else {
                out.insert(path);
            }
        }
        Ok(())
    }
    let mut out = BTreeSet::new();
    walk(dir, "", &mut out)?;
    out.retain(|f| !skip.contains(&f.as_str()));
    Ok(out)
}

fn run_in(dir: &Path, program: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{program} failed: {}{}",
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
