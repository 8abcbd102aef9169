//! `split`: splits the browser bundle at its `#[lazy]` points, as `cargo leptos --split` does, so that each
//! page's code is fetched when the page is first shown instead of before the first page works.
//!
//! `split INPUT.wasm OUT_DIR NAME` reads the module cargo linked (with `--emit-relocs`) and
//! writes into OUT_DIR: `NAME_split.wasm` (the main module, for wasm-bindgen), one `.wasm` per split
//! chunk, the loader `__wasm_split.______________________.js` the main module imports, and
//! `__wasm_split_manifest.json` (which chunks each lazy point needs), from which the server-rendered
//! page preloads the chunks of the page it shows. It prints the chunk files it wrote, one per line.
//!
//! `--with-main PREFIX` (repeatable): a split whose name starts with PREFIX keeps only the code it
//! alone reaches; what it shares with other splits goes into the main module, not into chunks
//! (for the home page: one file instead of a chunk for every set of pages it shares code with).
//! The option is Consilium's patch of `wasm_split_cli_support` (vendor/wasm_split_cli_support).

use std::path::PathBuf;

pub fn run(args: &[String]) -> Result<(), String> {
    let usage = "usage: split INPUT.wasm OUT_DIR NAME [--with-main PREFIX]...";
    let mut positional = Vec::new();
    let mut with_main = Vec::new();
    let mut args = args.iter().cloned();
    while let Some(arg) = args.next() {
        if arg == "--with-main" {
            let prefix = args.next();
            with_main.push(prefix.ok_or_else(|| format!("--with-main needs a prefix; {usage}"))?);
        } else if arg.starts_with("--") {
            return Err(format!("unknown option {arg}; {usage}"));
        } else {
            positional.push(arg);
        }
    }
    let [input, out_dir, name] = positional.as_slice() else {
        return Err(usage.into());
    };
    let with_main: Vec<&str> = with_main.iter().map(String::as_str).collect();
    for module in split_into(input, out_dir, name, &with_main)? {
        println!("{}", module.display());
    }
    Ok(())
}

/// Splits `input` into `out_dir` (see the module's comment); returns the chunk files it wrote.
pub fn split_into(
    input: &str,
    out_dir: &str,
    name: &str,
    with_main: &[&str],
) -> Result<Vec<PathBuf>, String> {
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
        opts.with_main = with_main;
        opts
    })
    .map_err(|e| format!("cannot split {input}: {e}"))?;
    let manifest = serde_json::to_string_pretty(&split.prefetch_map).map_err(|e| e.to_string())?;
    let manifest_path = out_dir.join("__wasm_split_manifest.json");
    std::fs::write(&manifest_path, manifest)
        .map_err(|e| format!("cannot write {}: {e}", manifest_path.display()))?;
    Ok(split.split_modules)
}
