//! Splits the browser bundle at its `#[lazy]` points, as `cargo leptos --split` does, so that each
//! page's code is fetched when the page is first shown instead of before the first page works.
//!
//! `wasm-split INPUT.wasm OUT_DIR NAME` reads the module cargo linked (with `--emit-relocs`) and
//! writes into OUT_DIR: `NAME_split.wasm` (the main module, for wasm-bindgen), one `.wasm` per split
//! chunk, the loader `__wasm_split.______________________.js` the main module imports, and
//! `__wasm_split_manifest.json` (which chunks each lazy point needs), from which the server-rendered
//! page preloads the chunks of the page it shows. It prints the chunk files it wrote, one per line.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wasm-split: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir, name] = args.as_slice() else {
        return Err("usage: wasm-split INPUT.wasm OUT_DIR NAME".into());
    };
    let wasm = std::fs::read(input).map_err(|e| format!("cannot read {input}: {e}"))?;
    let out_dir = PathBuf::from(out_dir);
    let main_out = out_dir.join(format!("{name}_split.wasm"));
    let main_module = format!("./{name}.js");
    let split = wasm_split_cli_support::transform({
        let mut opts = wasm_split_cli_support::Options::new(&wasm);
        opts.output_dir = &out_dir;
        opts.main_out_path = &main_out;
        opts.main_module = &main_module;
        opts.link_name = "./__wasm_split.______________________.js";
        opts
    })
    .map_err(|e| format!("cannot split {input}: {e}"))?;
    let manifest = serde_json::to_string_pretty(&split.prefetch_map).map_err(|e| e.to_string())?;
    let manifest_path = out_dir.join("__wasm_split_manifest.json");
    std::fs::write(&manifest_path, manifest)
        .map_err(|e| format!("cannot write {}: {e}", manifest_path.display()))?;
    for module in &split.split_modules {
        println!("{}", module.display());
    }
    Ok(())
}
