//! `sizes PKG`: prints what each page of the site fetches before it works, as sent (brotli), from
//! the split bundle in PKG: every page loads the main module, its JS glue, the chunk loader and the
//! stylesheet; a lazy route adds its pack (all its chunks in one file, `pack`) or, without one, the
//! chunks `PKG/pages.json` lists. A page that shows a protocol's panel is printed once without one
//! (an S4 debate's) and once with each panel (`audit + es_panel`: an ES debate's audit page), as
//! the server preloads it. A debate's live page asked for by address is sent with its protocol's
//! live bundle alone (`live-escalation (by address)`), when the site has them; through the split
//! bundle (`live + es_panel (split)`) is how a site without them sends it.

use std::path::Path;

use regex::Regex;
use serde_json::Value;

use crate::files::{names_in, read, size};

pub fn run(args: &[String]) -> Result<(), String> {
    let [pkg] = args else {
        return Err("usage: sizes PKG".into());
    };
    print!("{}", report(Path::new(pkg))?);
    Ok(())
}

fn kib(pkg: &Path, names: &[String], ext: &str) -> f64 {
    let bytes: u64 = names
        .iter()
        .map(|n| size(&pkg.join(format!("{n}{ext}"))))
        .sum();
    bytes as f64 / 1024.0
}

/// The files a page's code needs: its pack, or its chunks.
fn fetched(code: &Value) -> Vec<String> {
    match code["pack"].as_str() {
        Some(pack) => vec![format!("{pack}.bin")],
        None => code["chunks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|c| format!("{c}.wasm"))
            .collect(),
    }
}

/// Thousands separators, as the size tables are read.
fn grouped(value: f64) -> String {
    let whole = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

pub fn report(pkg: &Path) -> Result<String, String> {
    let names = names_in(pkg)?;
    let main_re = Regex::new(r"^consilium(\.[0-9a-f]+\.js|\.[0-9a-f]+\.wasm|\.js|_bg\.wasm)$")
        .map_err(|e| e.to_string())?;
    let loader_re = Regex::new(r"^__wasm_split\..*\.js$").map_err(|e| e.to_string())?;
    let live_re = Regex::new(r"^live-\w+\.[0-9a-f]+\.js$").map_err(|e| e.to_string())?;
    let mut first: Vec<String> = names
        .iter()
        .filter(|n| main_re.is_match(n))
        .cloned()
        .collect();
    first.push("consilium.css".into());
    first.extend(names.iter().filter(|n| loader_re.is_match(n)).cloned());
    let manifest: Value = serde_json::from_slice(&read(&pkg.join("pages.json"))?)
        .map_err(|e| format!("pages.json: {e}"))?;
    let Some(entries) = manifest["pages"].as_object() else {
        return Err("pages.json has no `pages`".into());
    };
    let mut pages: Vec<(String, Vec<String>)> = Vec::new();
    for page in entries.values() {
        let name = page["name"].as_str().unwrap_or_default();
        if name.ends_with("_panel") {
            continue; // loaded with a page (below), never alone first
        }
        let shown = if name == "home" { "home (/)" } else { name };
        pages.push((shown.to_string(), fetched(page)));
        if let Some(panels) = page["panels"].as_object() {
            for (panel, code) in panels {
                pages.push((format!("{name} + {panel}"), fetched(code)));
            }
        }
    }
    pages.sort_by_key(|(name, _)| name != "home (/)");
    let every: Vec<String> = names
        .iter()
        .filter(|n| n.ends_with(".wasm") || n.ends_with(".js") || n.ends_with(".css"))
        .cloned()
        .collect();
    let packed: Vec<String> = names
        .iter()
        .filter(|n| n.ends_with(".bin"))
        .cloned()
        .collect();
    let mut out = format!(
        "bundle: {} files, {} KiB raw, {} KiB gzip, {} KiB brotli in all; and {} packs of a \
         page's chunks, {} KiB brotli\npage: on the wire before it works (brotli; raw)\n",
        every.len(),
        grouped(kib(pkg, &every, "")),
        grouped(kib(pkg, &every, ".gz")),
        grouped(kib(pkg, &every, ".br")),
        packed.len(),
        grouped(kib(pkg, &packed, ".br")),
    );
    let live_glues: Vec<&String> = names.iter().filter(|n| live_re.is_match(n)).collect();
    let mut line = |name: String, files: Vec<String>| {
        out.push_str(&format!(
            "  {name:<30} {:>7} KiB  ({} KiB raw, {} files)\n",
            grouped(kib(pkg, &files, ".br")),
            grouped(kib(pkg, &files, "")),
            files.len()
        ));
    };
    for (name, chunks) in pages {
        // By address, a live page takes its protocol's live bundle (below).
        let name = if !live_glues.is_empty() && name.starts_with("live") {
            format!("{name} (split)")
        } else {
            name
        };
        line(name, first.iter().cloned().chain(chunks).collect());
    }
    // The live bundles: a debate's live page asked for by address loads its protocol's instead
    // of all of the above (its glue, its module, the stylesheet).
    for glue in live_glues {
        let stem = glue.split('.').next().unwrap_or(glue);
        let wasm = format!("{}.wasm", glue.strip_suffix(".js").unwrap_or(glue));
        line(
            format!("{stem} (by address)"),
            vec![glue.clone(), wasm, "consilium.css".into()],
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn sizes_are_printed_with_thousands_separators() {
        for (value, text) in [
            (0.4, "0"),
            (999.0, "999"),
            (1234.4, "1,234"),
            (1_234_567.0, "1,234,567"),
        ] {
            assert_eq!(grouped(value), text);
        }
    }
}
