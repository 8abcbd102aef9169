//! The server side of the split bundle: a server-rendered page asks the browser to
//! fetch its code at once (`<link rel="preload">`), beside the main module, instead of after the
//! main module has started. `pkg/pages.json` (xtask/src/pack.rs, from the manifest
//! `tools/wasm-split` writes) names the chunk loader and, for each lazy page's split point
//! (`__<page>_view_<hash>`), the chunks it needs and the pack holding them all. A page with a
//! pack preloads that one file, and the chunk loader takes its chunks from it (`<link
//! id="wasm-split-pack">`); a page without one preloads its chunks. Leptos's own preloading of a
//! page's chunks reads the splitter's manifest under its own name, which the build removes: it
//! would fetch every chunk beside the pack. A debate's live and audit pages also show a
//! protocol's panel (`panels.rs`), whose code is a split point of its own: for those pages
//! `pages.json` holds a pack per panel (the page's chunks with the panel's), and the page's
//! pack link waits until the page knows which panel it shows (`preload_panel`). Without a built
//! site nothing is preloaded.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use leptos::prelude::*;
use leptos_meta::{Link, Meta};
use serde::Deserialize;

/// `pkg/pages.json`.
#[derive(Default, Deserialize)]
struct Pages {
    /// The chunk loader's file (`__wasm_split.<hash>.js`).
    loader: String,
    /// Split point name → its page's code.
    pages: HashMap<String, Page>,
}

/// What a lazy page needs besides the main module.
#[derive(Deserialize)]
struct Page {
    /// The chunk files (without `.wasm`) in load order.
    chunks: Vec<String>,
    /// The file holding them all (without `.bin`), for a page of more than one chunk.
    pack: Option<String>,
    /// For a page that shows a protocol's panel (`panels.rs`), by the panel's function name: the
    /// page's chunks with the panel's, and their pack. Such a page's pack link waits until the
    /// page knows its panel (`preload_panel`).
    #[serde(default)]
    panels: HashMap<String, Code>,
}

/// The chunks of a page with one panel, and the pack holding them.
#[derive(Deserialize)]
struct Code {
    chunks: Vec<String>,
    pack: Option<String>,
}

/// The lazy page being rendered (its split point's prefix), for its panel's preload, and
/// whether its code is preloaded yet (a page's view may be built more than once while rendered).
#[derive(Clone)]
struct Shown(String, Arc<AtomicBool>);

#[derive(Clone, Default)]
pub(crate) struct Manifest {
    pkg: String,
    pages: Arc<Pages>,
}

/// Read once per process (the site does not change under a running server), and provided to the
/// pages below the shell.
pub(crate) fn provide(options: &LeptosOptions) {
    static MANIFEST: OnceLock<Manifest> = OnceLock::new();
    let manifest = MANIFEST.get_or_init(|| {
        let pkg = options.site_pkg_dir.to_string();
        let path = std::path::Path::new(options.site_root.as_ref())
            .join(&pkg)
            .join("pages.json");
        let pages = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        Manifest {
            pkg,
            pages: Arc::new(pages),
        }
    });
    provide_context(manifest.clone());
}

/// `#[lazy_route]` names a route's split point after its type: `LiveRoute` → `__live_route_view_…`.
fn split_prefix(route: &str) -> String {
    let mut snake = String::from("__");
    for (i, c) in route.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake + "_view_"
}

/// Registers in the page's `<head>` the name of the lazy route `route` (its type's name), a
/// preload of the chunk loader and of every chunk the route needs: its pack if it has one, else
/// each chunk. A page with panels leaves its chunks to `preload_panel`, which knows which panel.
pub(crate) fn preload(route: &str) {
    // The live bundle is one module: no chunks, no loader.
    if super::page_bundle().is_live() {
        return;
    }
    // Named in the page, so the browser loads this route's code before hydrating (`load_shown_page`).
    let _ = view! { <Meta name=super::PAGE_META content=route.to_owned()/> }.to_html();
    let Some(manifest) = use_context::<Manifest>() else {
        return;
    };
    let prefix = split_prefix(route);
    let Some(page) = manifest.page(&prefix) else {
        return;
    };
    provide_context(Shown(prefix, Arc::default()));
    // `crossorigin` makes each a CORS request with same-origin credentials, as the module import
    // and `fetch()` ask for, so they take the preloaded responses instead of fetching again.
    // Rendering a leptos_meta tag registers it with the page's <head>.
    let pkg = &manifest.pkg;
    let loader = &manifest.pages.loader;
    let _ = view! {
        <Link rel="modulepreload" href=format!("/{pkg}/{loader}") crossorigin="anonymous"/>
    }
    .to_html();
    if page.panels.is_empty() {
        preload_code(pkg, page.pack.as_deref(), &page.chunks);
    }
}

/// For a page that shows a protocol's panel (`panels.rs`; `None`: a debate whose protocol has
/// none): names the panel in the page, so the browser loads its code before hydrating
/// (`load_shown_panel`), and preloads the page's code with the panel's, as one pack.
pub(crate) fn preload_panel(panel: Option<&str>) {
    if super::page_bundle().is_live() {
        return;
    }
    let shown = use_context::<Shown>();
    if shown
        .as_ref()
        .is_some_and(|Shown(_, done)| done.swap(true, Ordering::Relaxed))
    {
        return;
    }
    if let Some(panel) = panel {
        let _ = view! { <Meta name=super::PANEL_META content=panel.to_owned()/> }.to_html();
    }
    let (Some(manifest), Some(Shown(prefix, _))) = (use_context::<Manifest>(), shown) else {
        return;
    };
    let Some(page) = manifest.page(&prefix) else {
        return;
    };
    let pkg = &manifest.pkg;
    match panel.and_then(|p| page.panels.get(p)) {
        Some(code) => preload_code(pkg, code.pack.as_deref(), &code.chunks),
        None => preload_code(pkg, page.pack.as_deref(), &page.chunks),
    }
}

/// A pack, found by the chunk loader by its id, or else each chunk.
fn preload_code(pkg: &str, pack: Option<&str>, chunks: &[String]) {
    if let Some(pack) = pack {
        let _ = view! {
            <Link id="wasm-split-pack" rel="preload" href=format!("/{pkg}/{pack}.bin") as_="fetch"
                crossorigin="anonymous"/>
        }
        .to_html();
        return;
    }
    for chunk in chunks {
        let _ = view! {
            <Link rel="preload" href=format!("/{pkg}/{chunk}.wasm") as_="fetch"
                type_="application/wasm" crossorigin="anonymous"/>
        }
        .to_html();
    }
}

impl Manifest {
    /// The lazy page whose split point starts with `prefix`.
    fn page(&self, prefix: &str) -> Option<&Page> {
        self.pages
            .pages
            .iter()
            .find_map(|(split, page)| split.starts_with(prefix).then_some(page))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_route_type_names_its_split_point_as_lazy_route_does() {
        for (route, prefix) in [
            ("LiveRoute", "__live_route_view_"),
            ("AgentsRoute", "__agents_route_view_"),
            ("AuditRoute", "__audit_route_view_"),
        ] {
            assert_eq!(super::split_prefix(route), prefix);
        }
    }
}
