//! `bindgen`: the JavaScript glue and the processed module for a wasm file, from the library the
//! `wasm-bindgen` CLI is built on. It must be the very version of the `wasm-bindgen` crate the module
//! was linked with (both are pinned to one version in the workspace), or the glue does not match.

use std::path::PathBuf;

pub fn run(args: &[String]) -> Result<(), String> {
    let usage =
        "usage: bindgen INPUT.wasm --out-dir DIR --out-name NAME [--target web|no-modules] \
                 [--keep-lld-exports] [--no-demangle]";
    let mut input = None;
    let mut out_dir = None;
    let mut out_name = None;
    let mut target = "web".to_string();
    let mut keep_lld_exports = false;
    let mut demangle = true;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value; {usage}"))
        };
        match arg.as_str() {
            "--out-dir" => out_dir = Some(PathBuf::from(value("--out-dir")?)),
            "--out-name" => out_name = Some(value("--out-name")?),
            "--target" => target = value("--target")?,
            "--keep-lld-exports" => keep_lld_exports = true,
            "--no-demangle" => demangle = false,
            other if other.starts_with("--") => {
                return Err(format!("unknown option {other}; {usage}"))
            }
            other => input = Some(PathBuf::from(other)),
        }
    }
    let (Some(input), Some(out_dir), Some(out_name)) = (input, out_dir, out_name) else {
        return Err(usage.into());
    };
    let mut b = wasm_bindgen_cli_support::Bindgen::new();
    // Every option as the CLI of this version sets it, given only the flags above: the library's
    // own defaults differ (it omits the default module path the `web` glue loads the wasm from).
    b.input_path(&input)
        .out_name(&out_name)
        .typescript(false)
        .keep_lld_exports(keep_lld_exports)
        .demangle(demangle)
        .debug(false)
        .keep_debug(false)
        .remove_name_section(false)
        .remove_producers_section(false)
        .omit_imports(false)
        .omit_default_module_path(false)
        .split_linked_modules(false)
        .js_string_builtins(false);
    match target.as_str() {
        "web" => b.web(true),
        "no-modules" => b.no_modules(true),
        other => return Err(format!("unknown target '{other}' (web or no-modules)")),
    }
    .map_err(|e| e.to_string())?;
    b.generate(&out_dir)
        .map_err(|e| format!("cannot generate bindings for {}: {e:#}", input.display()))
}
