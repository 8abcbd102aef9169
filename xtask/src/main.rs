//! Consilium's build tasks in Rust, run as `cargo xtask <task> …` (the alias is in
//! `.cargo/config.toml`; `make` builds this binary beside the server and runs
//! `target/debug/xtask`).
//!
//! - `site [quick|pages|all]`: the browser side into `target/site` (see `site.rs`).
//! - `viewer-static`: the static judge viewer into `target/viewer-static` (Trunk).
//! - `embedder`: the builtin agents' sentence model into `target/embedder/minilm`.
//! - `check-vendor`: each patched crate in `vendor/` is the registry's crate plus its `PATCH.diff`.
//!
//! The steps `site` runs, each a task of its own:
//! - `split INPUT.wasm OUT_DIR NAME [--with-main PREFIX]…`: cuts the browser bundle at its lazy
//!   routes (see `split.rs`).
//! - `bindgen INPUT.wasm --out-dir DIR --out-name NAME [--target web|no-modules]
//!   [--keep-lld-exports] [--no-demangle]`: the JavaScript glue for a wasm module, as the
//!   `wasm-bindgen` CLI of the same version writes it.
//! - `hash PKG`, `pack PKG [--panels-on PAGE,…]`, `compress PKG`: content-hashed names, a pack of
//!   each page's chunks, the precompressed copies.
//! - `sizes PKG`: what each page fetches before it works.
//! - `viewer GLUE.js MODULE.wasm STYLE.css OUT.html`: the self-contained offline viewer;
//!   `viewer-csp`: Trunk's hook giving the static viewer its Content-Security-Policy.

use std::path::PathBuf;
use std::process::ExitCode;

mod bindgen;
mod check_vendor;
mod compress;
mod embedder;
mod files;
mod hash;
mod pack;
mod site;
mod sizes;
mod split;
mod viewer;
mod viewer_static;

const TASKS: &str = "site, viewer-static, embedder, check-vendor, split, bindgen, hash, pack, \
                     compress, sizes, viewer, viewer-csp";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    let result = match task.as_str() {
        "site" => site::run(&rest),
        "viewer-static" => viewer_static::run(&rest),
        "embedder" => embedder::run(&rest),
        "check-vendor" => check_vendor::run(&rest),
        "split" => split::run(&rest),
        "bindgen" => bindgen::run(&rest),
        "hash" => hash::run(&rest),
        "pack" => pack::run(&rest),
        "compress" => compress::run(&rest),
        "sizes" => sizes::run(&rest),
        "viewer" => viewer::run(&rest),
        "viewer-csp" => viewer::run_csp(&rest),
        _ => Err(format!(
            "unknown task '{task}'; the tasks are: {TASKS} (see xtask/src/main.rs)"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {task}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace's root: the folder above this crate's.
fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map_or(manifest.clone(), PathBuf::from)
}
