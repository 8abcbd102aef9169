//! `pack PKG [--panels-on PAGE,PAGE…]`: writes, for each lazy page of the split bundle in PKG that
//! needs more than one file, one pack holding all its chunks. The page the server renders preloads
//! that one file instead of one per chunk (`app/src/ui/chunks.rs`), and the chunk loader takes the
//! chunks from it (`vendor/wasm_split_cli_support`, PATCH.md). One compressed stream of a page's
//! ~15–25 chunks is smaller than the chunks compressed one by one (brotli finds what they share),
//! and one request replaces many. The chunks stay beside it for pages reached by navigating in the
//! browser, which load only the chunks they do not have yet.
//!
//! Runs after `hash`: a pack is named `pack_<page>.H.bin` with the bundle's hash H. The splitter's
//! manifest (`__wasm_split_manifest.json`) becomes `PKG/pages.json`, which the server reads: the
//! chunk loader's file, and for each split point its chunks and its pack (without `.wasm`,
//! `.bin`). The manifest itself is removed: Leptos would read it under its own name and preload
//! every chunk of a page one by one beside the pack.
//!
//! A page that shows a protocol's panel (`app/src/ui/panels.rs`, a split point `PANEL_panel_N`)
//! gets, besides its own pack, one pack per panel holding its chunks and the panel's
//! (`--panels-on live,audit`): the server preloads the one for the debate it renders. A panel's
//! entry also names, under `after`, for each such page the pack of the chunks it adds to that page
//! (`pack_PANEL-after-PAGE.H.bin`), which the chunk loader fetches when a click brings the panel
//! to a page already loaded. Each page's entry also carries its name (`live`, `audit`, or the
//! panel's function name), which `sizes` prints.
//!
//! Format: for each chunk, the length of its file name, the name (UTF-8), the length of its bytes,
//! the bytes; lengths as 32-bit little-endian.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use regex::Regex;
use serde_json::{json, Map, Value};

use crate::files::{names_in, read, write};

const USAGE: &str = "usage: pack PKG [--panels-on PAGE,PAGE…]";

pub fn run(args: &[String]) -> Result<(), String> {
    let (pkg, panels_on) = match args {
        [pkg] => (pkg, BTreeSet::new()),
        [pkg, flag, pages] if flag == "--panels-on" => {
            (pkg, pages.split(',').map(str::to_string).collect())
        }
        _ => return Err(USAGE.into()),
    };
    pack_pages(Path::new(pkg), &panels_on)
}

/// A split point's page name: `__live_route_view_123` → `live`, `es_panel_456` → `es_panel`.
pub fn name_of(split: &str) -> String {
    let digits = split.trim_end_matches(|c: char| c.is_ascii_digit());
    if digits.len() < split.len() {
        if let Some(body) = digits.strip_suffix('_') {
            if let Some(route) = body
                .strip_prefix("__")
                .and_then(|b| b.strip_suffix("_route_view"))
            {
                if !route.is_empty() {
                    return route.to_string();
                }
            }
            let panel = body.trim_start_matches('_');
            if panel.len() > "_panel".len() && panel.ends_with("_panel") {
                return panel.to_string();
            }
        }
    }
    split.to_string()
}

/// Writes `NAME.bin` in `pkg` holding `chunks` (file names without `.wasm`), in order.
fn write_pack(pkg: &Path, name: &str, chunks: &[String]) -> Result<(), String> {
    let mut out = Vec::new();
    for chunk in chunks {
        let file = format!("{chunk}.wasm");
        let data = read(&pkg.join(&file))?;
        let lengths = (u32::try_from(file.len()), u32::try_from(data.len()));
        let (Ok(name_len), Ok(data_len)) = lengths else {
            return Err(format!("{file} is too large for a pack"));
        };
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(file.as_bytes());
        out.extend_from_slice(&data_len.to_le_bytes());
        out.extend_from_slice(&data);
    }
    write(&pkg.join(format!("{name}.bin")), &out)
}

fn pack_pages(pkg: &Path, panels_on: &BTreeSet<String>) -> Result<(), String> {
    let manifest_path = pkg.join("__wasm_split_manifest.json");
    let manifest: BTreeMap<String, Vec<String>> = serde_json::from_slice(&read(&manifest_path)?)
        .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let hash_txt = String::from_utf8_lossy(&read(&pkg.join("hash.txt"))?).into_owned();
    let h = hash_txt
        .lines()
        .find_map(|l| l.strip_prefix("js:"))
        .map(str::trim)
        .ok_or("hash.txt names no `js:` hash")?
        .to_string();
    let loader_re = Regex::new(r"^__wasm_split\.[0-9a-f]+\.js$").map_err(|e| e.to_string())?;
    let loaders: Vec<String> = names_in(pkg)?
        .into_iter()
        .filter(|n| loader_re.is_match(n))
        .collect();
    let [loader] = loaders.as_slice() else {
        return Err(format!(
            "{} holds no hashed chunk loader (run `hash` first)",
            pkg.display()
        ));
    };
    let panels: BTreeMap<String, &Vec<String>> = manifest
        .iter()
        .map(|(split, chunks)| (name_of(split), chunks))
        .filter(|(name, _)| name.ends_with("_panel"))
        .collect();
    let named: BTreeSet<String> = manifest.keys().map(|s| name_of(s)).collect();
    let missing: Vec<&String> = panels_on.difference(&named).collect();
    if !missing.is_empty() {
        return Err(format!(
            "no split point for page(s) {missing:?} in {}",
            pkg.display()
        ));
    }
    let mut pages = Map::new();
    let mut after: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for (split, chunks) in &manifest {
        let name = name_of(split);
        let mut pack = Value::Null;
        if chunks.len() > 1 {
            let file = format!("pack_{name}.{h}");
            write_pack(pkg, &file, chunks)?;
            pack = json!(file);
        }
        let mut page_panels = Map::new();
        if panels_on.contains(&name) {
            for (panel, extra) in &panels {
                let rest: Vec<String> = extra
                    .iter()
                    .filter(|c| !chunks.contains(c))
                    .cloned()
                    .collect();
                let both: Vec<String> = chunks.iter().chain(&rest).cloned().collect();
                let mut both_pack = Value::Null;
                if both.len() > 1 {
                    let file = format!("pack_{name}-{panel}.{h}");
                    write_pack(pkg, &file, &both)?;
                    both_pack = json!(file);
                }
                page_panels.insert(panel.clone(), json!({"chunks": both, "pack": both_pack}));
                // A click to a debate loads the page, then its panel: what the panel adds, as one
                // file.
                let mut delta = Value::Null;
                if rest.len() > 1 {
                    let file = format!("pack_{panel}-after-{name}.{h}");
                    write_pack(pkg, &file, &rest)?;
                    delta = json!(file);
                }
                after
                    .entry(panel.clone())
                    .or_default()
                    .insert(split.clone(), delta);
            }
        }
        pages.insert(
            split.clone(),
            json!({"name": name, "chunks": chunks, "pack": pack, "panels": page_panels}),
        );
    }
    for page in pages.values_mut() {
        let name = page["name"].as_str().unwrap_or_default().to_string();
        if let (Some(entry), Some(object)) = (after.get(&name), page.as_object_mut()) {
            object.insert("after".into(), Value::Object(entry.clone()));
        }
    }
    let out = json!({"loader": loader, "pages": pages});
    let mut text = serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?;
    text.push('\n');
    write(&pkg.join("pages.json"), text.as_bytes())?;
    fs::remove_file(&manifest_path).map_err(|e| format!("{}: {e}", manifest_path.display()))
}

#[cfg(test)]
mod tests {
    use super::name_of;

    #[test]
    fn split_points_are_named_as_the_server_knows_their_pages() {
        let table = [
            ("__live_route_view_123", "live"),
            ("__audit_route_view_7", "audit"),
            ("__home_route_view_1", "home"),
            ("es_panel_456", "es_panel"),
            ("__rc_panel_9", "rc_panel"),
            ("something_else", "something_else"),
            ("_panel_3", "_panel_3"),
        ];
        for (split, name) in table {
            assert_eq!(name_of(split), name, "{split}");
        }
    }
}
