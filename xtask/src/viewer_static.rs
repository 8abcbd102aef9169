//! `viewer-static`: builds the static judge viewer (Trunk.toml) into `target/viewer-static/`:
//! `index.html` plus hashed, cacheable `.js`, `.wasm` and `.css` files that any static host serves.
//! Run after `site all`, whose compiled `frontend` (same features, profile `wasm-release`) cargo
//! reuses here. Trunk's `post_build` hook runs this binary's `viewer-csp`.

use std::path::PathBuf;
use std::process::Command;

use crate::files::size;

pub fn run(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: viewer-static".into());
    }
    let root = crate::workspace_root();
    // trunk and wasm-bindgen from `cargo install`; npm binaryen's wasm-opt (Trunk.toml: offline,
    // so Trunk only uses tools it finds on PATH at the pinned versions).
    let cargo_bin = crate::files::cargo_home().map(|h| h.join("bin"));
    let mut path = vec![root.join("end2end/node_modules/.bin")];
    path.extend(cargo_bin);
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(path).map_err(|e| e.to_string())?;
    let status = Command::new("trunk")
        .args(["build", "--release"])
        .current_dir(&root)
        .env("PATH", &path)
        .status()
        .map_err(|e| format!("cannot run trunk ({e}): scripts/setup.sh test installs it"))?;
    if !status.success() {
        return Err(format!("trunk build failed ({status})"));
    }
    let out = root.join("target/viewer-static");
    let mut files = Vec::new();
    collect(&out, &mut files);
    let total: u64 = files.iter().map(|f| size(f)).sum();
    let wasm = files
        .iter()
        .find(|f| f.extension().is_some_and(|e| e == "wasm"))
        .ok_or("trunk wrote no .wasm")?;
    let raw = crate::files::read(wasm)?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, &raw).map_err(|e| e.to_string())?;
    let gz = gz.finish().map_err(|e| e.to_string())?;
    println!(
        "static judge viewer built in {}: {} files, {} KiB ({} {} KiB raw, {} KiB gzip)",
        out.display(),
        files.len(),
        total / 1024,
        wasm.file_name().unwrap_or_default().to_string_lossy(),
        raw.len() / 1024,
        gz.len() / 1024
    );
    Ok(())
}

fn collect(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}
