//! `site [quick|pages|all]`: builds the browser side into `target/site`.
//!
//! - `pages`: what every page needs (`make run`): the hydrating wasm bundle split per page
//!   (`pkg/consilium.H.js`, `pkg/consilium.H.wasm`, the chunk loader, the chunks — H the bundle's
//!   hash, in `pkg/hash.txt` — their manifest `pkg/pages.json`, and each page's chunks packed in
//!   one file, `pkg/pack_PAGE.H.bin`), the stylesheet (`pkg/consilium.css`), the public assets.
//! - `quick`: the pages as `pages` builds them, unoptimised (`make run`): no `wasm-opt` and
//!   brotli at a low quality. Its pages are about twice as large on the wire — nothing a local
//!   network feels — and it finishes in seconds where the optimised build takes minutes.
//! - `all` (the default): that, the offline audit viewer (`viewer.html`, self-contained) and the
//!   live bundles (`pkg/live-PROTOCOL.H.js`, `.wasm`: a debate's live page on its own, smaller
//!   than the split bundle's first load; without them the server sends the split bundle).
//!
//! Each step prints what it does and about how long it takes; the last lines give the time and
//! what each page fetches (`sizes`). The new bundle replaces the old one only once it is whole.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::compress::Level;
use crate::files::{names_in, path_str};

const WASM_OUT: &str = "target/wasm32-unknown-unknown/wasm-release/frontend.wasm";
const SITE: &str = "target/site";
const PROTOCOLS: [&str; 5] = ["s4", "round_robin", "collapse", "escalation", "reconcile"];
/// Binaryen features the bundle uses (Rust's wasm32 target enables them).
const FEATURES: [&str; 6] = [
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

pub fn run(args: &[String]) -> Result<(), String> {
    let (all, level) = match args {
        [] => (true, Level::Best),
        [w] if w == "all" => (true, Level::Best),
        [w] if w == "pages" => (false, Level::Best),
        [w] if w == "quick" => (false, Level::Quick),
        _ => return Err("usage: site [quick|pages|all]".into()),
    };
    let began = Instant::now();
    let root = crate::workspace_root();
    std::env::set_current_dir(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    let tmp = PathBuf::from(SITE).join("pkg.tmp");
    let tmp_str = path_str(&tmp)?;
    remove_dir(&tmp)?;
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{tmp_str}: {e}"))?;

    // 1. The served site: one module per page. `split` cuts the module at its lazy routes
    //    (app/src/ui/mod.rs) into a main module (what every page shares) and chunks fetched when a
    //    page is first shown. The home page's shared code stays in the main module (--with-main,
    //    vendor/wasm_split_cli_support/PATCH.md): one file, not 26 chunks. The compile is the
    //    `cargo wasm-pages` alias (.cargo/config.toml), which `make build` starts early.
    step("compiling the browser bundle to WebAssembly (~5 min the first time, about 30 s after a change)");
    run_cargo(&["wasm-pages"])?;
    crate::split::split_into(WASM_OUT, tmp_str, "consilium", &["__home_route_view_"])?;
    let split_main = tmp.join("consilium_split.wasm");
    crate::bindgen::run(&strings(&[
        "--target",
        "web",
        "--keep-lld-exports",
        "--no-demangle",
        "--out-dir",
        tmp_str,
        "--out-name",
        "consilium",
        path_str(&split_main)?,
    ]))?;
    std::fs::remove_file(&split_main).map_err(|e| format!("{}: {e}", split_main.display()))?;
    if level == Level::Best {
        step("optimising the bundle's modules (wasm-opt, ~2 min)");
        wasm_opt_all(&files_ending(&tmp, ".wasm")?, &["-Os", "-ocimfs=0"])?;
    }
    std::fs::copy("style/main.css", tmp.join("consilium.css"))
        .map_err(|e| format!("style/main.css: {e}"))?;

    if all {
        step("compiling the offline viewer and the five live bundles (~5 min the first time)");
        offline_viewer(&tmp)?;
        live_bundles(&tmp)?;
    }
    let (hash, renamed) = crate::hash::hash_bundle(&tmp)?;
    println!("bundle names carry its hash {hash} ({renamed} files)");
    crate::pack::run(&strings(&[tmp_str, "--panels-on", "live,audit"]))?;
    step(match level {
        Level::Best => "compressing the bundle (~45 s)",
        Level::Quick => "compressing the bundle (quick)",
    });
    crate::compress::compress_dir(&tmp, level)?;
    let pkg = PathBuf::from(SITE).join("pkg");
    remove_dir(&pkg)?;
    std::fs::rename(&tmp, &pkg).map_err(|e| format!("{tmp_str} -> {}: {e}", pkg.display()))?;
    copy_dir(Path::new("public"), Path::new(SITE))?;
    println!("site built in {SITE} in {} s", began.elapsed().as_secs());
    print!("{}", crate::sizes::report(&pkg)?);
    if level == Level::Quick {
        println!(
            "(a quick build, for serving on this machine: `make site` builds the optimised one)"
        );
    }
    Ok(())
}

/// 2. The offline viewers load no chunks: the same crate as one module (feature
///    `single-module`), with the `viewer` entry point. The static judge viewer (`make viewer`,
///    Trunk) reuses this compile. What a judge opens from disk is read uncompressed, so it is
///    optimised for its raw size (-Oz).
fn offline_viewer(tmp: &Path) -> Result<(), String> {
    wasm_build(&["--features", "single-module"])?;
    let dir = tmp.join("viewer");
    let dir_str = path_str(&dir)?;
    crate::bindgen::run(&strings(&[
        "--target",
        "no-modules",
        "--out-dir",
        dir_str,
        "--out-name",
        "viewer",
        WASM_OUT,
    ]))?;
    let module = dir.join("viewer_bg.wasm");
    wasm_opt_all(std::slice::from_ref(&module), &["-Oz"])?;
    crate::viewer::run(&strings(&[
        path_str(&dir.join("viewer.js"))?,
        path_str(&module)?,
        "style/main.css",
        &format!("{SITE}/viewer.html"),
    ]))?;
    remove_dir(&dir)
}

/// 3. The live bundles, one per protocol: `frontend`'s `live-PROTOCOL` entry point hydrates a
///    debate's live view with that protocol's parts only (app::ui::hydrate_live); the server gives
///    it to that protocol's live pages asked for by address (app::ui::Bundle). Built on the
///    single-module compile above, each reaches neither the router, nor the other pages, nor the
///    other protocols.
fn live_bundles(tmp: &Path) -> Result<(), String> {
    let tmp_str = path_str(tmp)?;
    for protocol in PROTOCOLS {
        let features = format!("single-module,live-{protocol}");
        wasm_build(&["--features", &features])?;
        let name = format!("live-{protocol}");
        crate::bindgen::run(&strings(&[
            "--target",
            "web",
            "--out-dir",
            tmp_str,
            "--out-name",
            &name,
            WASM_OUT,
        ]))?;
    }
    let modules: Vec<PathBuf> = files_ending(tmp, "_bg.wasm")?
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("live-"))
        })
        .collect();
    wasm_opt_all(&modules, &["-Os", "-ocimfs=0"])
}

/// What is sent compressed is optimised with -Os and without inlining functions that have one
/// caller (-ocimfs=0): that inlining makes a module smaller raw but larger on the wire, since
/// brotli compresses the repeated shapes of small generic functions better than their copies
/// merged into each caller (a live page 535 -> 489 KiB brotli against -Oz). npm binaryen's
/// wasm-opt (scripts/setup.sh), one module per core, the largest first; Debian's wasm-opt 108
/// produces a bundle that fails to hydrate.
fn wasm_opt_all(modules: &[PathBuf], flags: &[&str]) -> Result<(), String> {
    let wasm_opt = tool("wasm-opt");
    crate::files::each_biggest_first(modules, |module| {
        let out = Command::new(&wasm_opt)
            .args(flags)
            .args(FEATURES)
            .arg("--strip-debug")
            .arg("-o")
            .arg(module)
            .arg(module)
            .output()
            .map_err(|e| {
                format!(
                    "cannot run {}: {e} (scripts/setup.sh installs it)",
                    wasm_opt.display()
                )
            })?;
        // Names binaryen cannot read are harmless (the name section is stripped anyway).
        let stderr = String::from_utf8_lossy(&out.stderr);
        for line in stderr
            .lines()
            .filter(|l| !l.contains("unknown name subsection"))
        {
            eprintln!("{line}");
        }
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("wasm-opt failed on {}", module.display()))
        }
    })
}

/// npm binaryen's wasm-opt in end2end/node_modules, else one on PATH.
fn tool(name: &str) -> PathBuf {
    let local = Path::new("end2end/node_modules/.bin").join(name);
    if local.exists() {
        local
    } else {
        PathBuf::from(name)
    }
}

/// `cargo build` of `frontend` for the browser (the `wasm-release` profile, Cargo.toml) with
/// `features`: the single-module builds.
fn wasm_build(features: &[&str]) -> Result<(), String> {
    let mut args = vec![
        "build",
        "-p",
        "frontend",
        "--lib",
        "--target",
        "wasm32-unknown-unknown",
    ];
    args.extend(["--profile", "wasm-release"]);
    args.extend(features);
    run_cargo(&args)
}

fn run_cargo(args: &[&str]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(&cargo)
        .args(args)
        .status()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed", args.join(" ")))
    }
}

fn step(what: &str) {
    println!("\x1b[1m==> {what}\x1b[0m");
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_string()).collect()
}

fn files_ending(dir: &Path, suffix: &str) -> Result<Vec<PathBuf>, String> {
    Ok(names_in(dir)?
        .into_iter()
        .filter(|n| n.ends_with(suffix))
        .map(|n| dir.join(n))
        .collect())
}

fn remove_dir(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("{}: {e}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// Copies the files of `from` into `to`, folders included.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for name in names_in(from)? {
        let (src, dst) = (from.join(&name), to.join(&name));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}
