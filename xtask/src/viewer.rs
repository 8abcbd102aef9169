//! The offline audit viewers' pages and their Content-Security-Policy.
//!
//! - `viewer GLUE.js MODULE.wasm STYLE.css OUT.html`: writes the offline audit viewer, one
//!   self-contained HTML file (the stylesheet, the wasm-bindgen glue and the WebAssembly module
//!   inlined) that a judge opens from disk, with no server and no network.
//! - `viewer-csp`: Trunk's `post_build` hook (Trunk.toml) for the static judge viewer. Trunk
//!   writes the wasm loader as an inline module script whose text (hashed file names) changes with
//!   every build, so the policy that allows that script by its SHA-256 is written after the HTML.

use std::path::Path;

use base64::Engine as _;
use regex::Regex;
use sha2::{Digest, Sha256};

use crate::files::{read, write};

/// `'sha256-…'`, a script's hash as a Content-Security-Policy names it.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

fn read_text(path: &str) -> Result<String, String> {
    String::from_utf8(read(Path::new(path))?).map_err(|_| format!("{path} is not UTF-8"))
}

pub fn run(args: &[String]) -> Result<(), String> {
    let [glue, wasm, css, out] = args else {
        return Err("usage: viewer GLUE.js MODULE.wasm STYLE.css OUT.html".into());
    };
    let glue = read_text(glue)?;
    let css = read_text(css)?;
    let wasm = base64::engine::general_purpose::STANDARD.encode(read(Path::new(wasm))?);
    let page = viewer_page(&glue, &wasm, &css)?;
    write(Path::new(out), page.as_bytes())?;
    println!("offline viewer written to {out}: {} KiB", page.len() / 1024);
    Ok(())
}

/// The viewer's page: the glue and a boot script that instantiates the module from base64.
fn viewer_page(glue: &str, wasm_base64: &str, css: &str) -> Result<String, String> {
    for (name, text) in [("glue", glue), ("stylesheet", css)] {
        let lower = text.to_lowercase();
        if lower.contains("</script") || lower.contains("</style") {
            return Err(format!(
                "the {name} contains a closing tag and cannot be inlined"
            ));
        }
    }
    let glue_script = format!("\n{glue}\n");
    let boot_script = format!(
        r#"
(async () => {{
  const bytes = Uint8Array.from(atob("{wasm_base64}"), (c) => c.charCodeAt(0));
  await wasm_bindgen({{ module_or_path: bytes }});
  wasm_bindgen.viewer();
}})().catch((e) => {{
  document.body.insertAdjacentText("afterbegin", "The viewer could not start: " + e);
}});
"#
    );
    // Only these two scripts (by hash) run, WebAssembly is allowed, and the page may not load or
    // send anything (connect-src 'none'): a judge's log stays on disk.
    let csp = format!(
        "default-src 'none'; script-src {} {} 'wasm-unsafe-eval'; style-src 'unsafe-inline'; \
         img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'",
        csp_hash(&glue_script),
        csp_hash(&boot_script)
    );
    Ok(format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Consilium · offline audit viewer</title>
<style>
{css}
</style>
</head>
<body>
<noscript>The viewer verifies logs with WebAssembly: enable JavaScript to use it.</noscript>
<script>{glue_script}</script>
<script>{boot_script}</script>
</body>
</html>
"#
    ))
}

pub fn run_csp(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: viewer-csp (Trunk runs it with TRUNK_STAGING_DIR set)".into());
    }
    let staging = std::env::var("TRUNK_STAGING_DIR")
        .map_err(|_| "TRUNK_STAGING_DIR is not set: Trunk's post_build hook sets it".to_string())?;
    let path = Path::new(&staging).join("index.html");
    let page = String::from_utf8(read(&path)?).map_err(|_| "index.html is not UTF-8")?;
    write(&path, with_csp(&page)?.as_bytes())
}

/// `page` with a policy that allows its inline scripts by hash, after its `<meta charset>`.
fn with_csp(page: &str) -> Result<String, String> {
    let inline = Regex::new(r"(?s)<script([^>]*)>(.*?)</script>").map_err(|e| e.to_string())?;
    let src = Regex::new(r"\bsrc=").map_err(|e| e.to_string())?;
    let hashes: Vec<String> = inline
        .captures_iter(page)
        .filter(|c| !src.is_match(&c[1]))
        .map(|c| csp_hash(&c[2]))
        .collect();
    if hashes.is_empty() {
        return Err("no inline loader script in index.html: did Trunk change its output?".into());
    }
    // 'self' scripts are the wasm-bindgen glue and boot.js; connect-src 'self' is the .wasm
    // fetch; style-src 'unsafe-inline' covers the style attributes the views set (bar widths).
    let csp = format!(
        "default-src 'none'; script-src 'self' {} 'wasm-unsafe-eval'; style-src 'self' \
         'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
         form-action 'none'",
        hashes.join(" ")
    );
    let charset = r#"<meta charset="utf-8">"#;
    if !page.contains(charset) {
        return Err("no <meta charset> to put the policy after".into());
    }
    let meta = format!(r#"<meta http-equiv="Content-Security-Policy" content="{csp}">"#);
    Ok(page.replacen(charset, &format!("{charset}\n{meta}"), 1))
}

#[cfg(test)]
mod tests {
    use super::{csp_hash, viewer_page, with_csp};

    #[test]
    fn the_policy_allows_exactly_the_inline_scripts() {
        let page = "<head><meta charset=\"utf-8\"></head><script src=\"a.js\"></script>\
                    <script type=\"module\">boot()</script>";
        let out = with_csp(page).expect("a page with a loader");
        assert!(out.contains(&csp_hash("boot()")), "{out}");
        assert!(
            !out.contains(&csp_hash("")),
            "the external script is not hashed: {out}"
        );
        assert!(with_csp("<meta charset=\"utf-8\"><script src=\"a.js\"></script>").is_err());
        assert!(
            with_csp("<script>x</script>").is_err(),
            "no charset to follow"
        );
    }

    #[test]
    fn the_viewer_refuses_text_that_would_close_its_tags() {
        assert!(viewer_page("let a = '</SCRIPT>';", "", "").is_err());
        assert!(viewer_page("", "", "p{} </style>").is_err());
        let page = viewer_page("glue()", "AAAA", "p{}").expect("a page");
        assert!(page.contains("atob(\"AAAA\")") && page.contains(&csp_hash("\nglue()\n")));
    }
}
