//! `hash PKG`: puts one content hash into the name of every file of the split bundle in PKG, so
//! the server can let browsers keep them for good (`Cache-Control: immutable`): a new build has new
//! names.
//!
//! `consilium.js` → `consilium.H.js`, `consilium_bg.wasm` → `consilium.H.wasm` (the names Leptos's
//! hydration script asks for when `hash.txt` says H), `live-P.js` → `live-P.H.js` and
//! `live-P_bg.wasm` → `live-P.H.wasm` (each protocol P's live bundle, when built: `hash.txt` then
//! says `live: H` too), `__wasm_split.….js` → `__wasm_split.H.js`, `chunk_N.wasm` →
//! `chunk_N.H.wasm`, `split_….wasm` → `split_….H.wasm`. The names inside the JS files and the
//! manifest are rewritten to match, and `PKG/hash.txt` records H for the server. One hash for the
//! whole bundle, not one per file: the main module's glue imports the chunk loader and the loader
//! imports the glue back, so per-file hashes would depend on each other.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use regex::{Captures, Regex};
use sha2::{Digest, Sha256};

use crate::files::{names_in, read, write};

const GLUE: &str = "consilium.js";
const WASM: &str = "consilium_bg.wasm";

pub fn run(args: &[String]) -> Result<(), String> {
    let [pkg] = args else {
        return Err("usage: hash PKG".into());
    };
    let (h, count) = hash_bundle(Path::new(pkg))?;
    println!("bundle names carry its hash {h} ({count} files)");
    Ok(())
}

/// Renames the bundle in `pkg` after its content hash; returns the hash and how many files it
/// renamed.
pub fn hash_bundle(pkg: &Path) -> Result<(String, usize), String> {
    let loader_re = Regex::new(r"^__wasm_split\.[_A-Za-z0-9]*\.js$").map_err(|e| e.to_string())?;
    let chunk_re = Regex::new(r"^(?:chunk_\d+|split_\w+)\.wasm$").map_err(|e| e.to_string())?;
    let live_re = Regex::new(r"^live-\w+\.js$").map_err(|e| e.to_string())?;
    let names = names_in(pkg)?;
    let loaders: Vec<&String> = names.iter().filter(|n| loader_re.is_match(n)).collect();
    let chunks: Vec<&String> = names.iter().filter(|n| chunk_re.is_match(n)).collect();
    let [loader] = loaders.as_slice() else {
        return Err(no_bundle(pkg));
    };
    if !pkg.join(GLUE).exists() || !pkg.join(WASM).exists() {
        return Err(no_bundle(pkg));
    }
    let live_glues: Vec<&String> = names.iter().filter(|n| live_re.is_match(n)).collect();
    let mut live = Vec::new();
    for glue in &live_glues {
        let wasm = format!("{}_bg.wasm", stem(glue, ".js"));
        if !pkg.join(&wasm).exists() {
            return Err(format!("the live bundle {glue} has no {wasm}"));
        }
        live.push((*glue).clone());
        live.push(wasm);
    }
    let mut digest = Sha256::new();
    let hashed = [GLUE, WASM, loader.as_str()]
        .into_iter()
        .map(str::to_string)
        .chain(live)
        .chain(chunks.iter().map(|c| (*c).clone()));
    for name in hashed {
        digest.update(name.as_bytes());
        digest.update(b"\0");
        digest.update(read(&pkg.join(&name))?);
        digest.update(b"\0");
    }
    let h: String = digest.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();

    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    renamed.insert(GLUE.into(), format!("consilium.{h}.js"));
    renamed.insert(WASM.into(), format!("consilium.{h}.wasm"));
    renamed.insert((*loader).clone(), format!("__wasm_split.{h}.js"));
    for chunk in &chunks {
        renamed.insert(
            (*chunk).clone(),
            format!("{}.{h}.wasm", stem(chunk, ".wasm")),
        );
    }
    for glue in &live_glues {
        let s = stem(glue, ".js");
        renamed.insert((*glue).clone(), format!("{s}.{h}.js"));
        renamed.insert(format!("{s}_bg.wasm"), format!("{s}.{h}.wasm"));
    }

    let scripts: Vec<&str> = [GLUE, loader.as_str()]
        .into_iter()
        .chain(live_glues.iter().map(|g| g.as_str()))
        .collect();
    rewrite_references(pkg, &scripts, &renamed)?;
    rewrite_manifest(pkg, &renamed)?;
    for (old, new) in &renamed {
        fs::rename(pkg.join(old), pkg.join(new)).map_err(|e| format!("renaming {old}: {e}"))?;
    }
    let live_line = if live_glues.is_empty() {
        String::new()
    } else {
        format!("live: {h}\n")
    };
    write(
        &pkg.join("hash.txt"),
        format!("js: {h}\nwasm: {h}\nsplit: {h}\n{live_line}").as_bytes(),
    )?;
    Ok((h, renamed.len()))
}

fn no_bundle(pkg: &Path) -> String {
    format!(
        "{} holds no split bundle to hash ({GLUE}, {WASM}, one loader)",
        pkg.display()
    )
}

/// `name` without its `suffix`.
fn stem<'a>(name: &'a str, suffix: &str) -> &'a str {
    name.strip_suffix(suffix).unwrap_or(name)
}

/// Points the file references inside `scripts` at the renamed files.
fn rewrite_references(
    pkg: &Path,
    scripts: &[&str],
    renamed: &BTreeMap<String, String>,
) -> Result<(), String> {
    // References inside the JS files, where a file is fetched or imported: the glue imports the
    // loader (and names the wasm as a default URL), the loader imports the glue and fetches every
    // chunk. Only `from "…"` and `new URL("…")`: the glue's import object also names the loader,
    // but as the module name the wasm asks for, which must not change.
    let alternatives: Vec<String> = renamed.keys().map(|n| regex::escape(n)).collect();
    let reference = Regex::new(&format!(
        r#"((?:\bfrom|\bnew URL\()\s*["'](?:\./)?)({})(["'])"#,
        alternatives.join("|")
    ))
    .map_err(|e| e.to_string())?;
    for js in scripts {
        let path = pkg.join(js);
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !reference.is_match(&text) {
            return Err(format!(
                "no file reference found in {js}: has its generator changed?"
            ));
        }
        let text = reference.replace_all(&text, |c: &Captures| {
            format!("{}{}{}", &c[1], renamed[&c[2]], &c[3])
        });
        write(&path, text.as_bytes())?;
    }

    Ok(())
}

/// Renames the chunks the splitter's manifest lists.
fn rewrite_manifest(pkg: &Path, renamed: &BTreeMap<String, String>) -> Result<(), String> {
    // The manifest lists chunks without `.wasm`; the server and Leptos add it.
    let manifest_path = pkg.join("__wasm_split_manifest.json");
    let mut manifest: BTreeMap<String, Vec<String>> =
        serde_json::from_slice(&read(&manifest_path)?)
            .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let wasm_stems: BTreeMap<&str, &str> = renamed
        .iter()
        .filter(|(old, _)| old.ends_with(".wasm"))
        .map(|(old, new)| (stem(old, ".wasm"), stem(new, ".wasm")))
        .collect();
    for (split, listed) in &mut manifest {
        let missing: Vec<&String> = listed
            .iter()
            .filter(|c| !wasm_stems.contains_key(c.as_str()))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "the manifest's {split} names chunks that are not here: {missing:?}"
            ));
        }
        for chunk in listed.iter_mut() {
            *chunk = wasm_stems[chunk.as_str()].to_string();
        }
    }
    let json = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    write(&manifest_path, json.as_bytes())?;

    Ok(())
}
