//! Consilium's build tasks, run as `cargo xtask <task> …` (the alias is in `.cargo/config.toml`).
//!
//! - `split INPUT.wasm OUT_DIR NAME [--with-main PREFIX]…`: cuts the browser bundle at its lazy
//!   routes (see `split.rs`).
//! - `bindgen INPUT.wasm --out-dir DIR --out-name NAME [--target web|no-modules]
//!   [--keep-lld-exports] [--no-demangle]`: generates the JavaScript glue for a wasm module, as the
//!   `wasm-bindgen` CLI of the same version does.

use std::process::ExitCode;

mod bindgen;
mod split;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    let result = match task.as_str() {
        "split" => split::run(&rest),
        "bindgen" => bindgen::run(&rest),
        _ => Err(format!(
            "unknown task '{task}'; the tasks are: split, bindgen (see xtask/src/main.rs)"
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
