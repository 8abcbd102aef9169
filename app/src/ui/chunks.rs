//! The server side of the split bundle (issue 17): a server-rendered page asks the browser to
//! fetch its chunks at once (`<link rel="preload">`), beside the main module, instead of after
//! the main module has started. The chunks each lazy page needs are listed in the manifest
//! `tools/wasm-split` writes (`pkg/__wasm_split_manifest.json`), keyed by the page's split point
//! (`__<page>_view_<hash>`). Without a built site there is no manifest and nothing is preloaded.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use leptos::prelude::*;
use leptos_meta::{Link, Meta};

/// Split point name → the chunk files (without `.wasm`) it needs, in load order.
#[derive(Clone, Default)]
pub(crate) struct Manifest {
    pkg: String,
    chunks: Arc<HashMap<String, Vec<String>>>,
}

/// Read once per process (the site does not change under a running server), and provided to the
/// pages below the shell.
pub(crate) fn provide(options: &LeptosOptions) {
    static MANIFEST: OnceLock<Manifest> = OnceLock::new();
    let manifest = MANIFEST.get_or_init(|| {
        let pkg = options.site_pkg_dir.to_string();
        let path = std::path::Path::new(options.site_root.as_ref())
            .join(&pkg)
            .join("__wasm_split_manifest.json");
        let chunks = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        Manifest {
            pkg,
            chunks: Arc::new(chunks),
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

/// Registers in the page's `<head>` a preload of every chunk the lazy route `route` (its type's
/// name) needs.
pub(crate) fn preload(route: &str) {
    // Named in the page, so the browser loads this route's code before hydrating (`load_shown_page`).
    let _ = view! { <Meta name=super::PAGE_META content=route.to_owned()/> }.to_html();
    let Some(manifest) = use_context::<Manifest>() else {
        return;
    };
    let prefix = split_prefix(route);
    let nonce = leptos::nonce::use_nonce()
        .map(|n| n.to_string())
        .unwrap_or_default();
    let chunks = manifest
        .chunks
        .iter()
        .filter(|(split, _)| split.starts_with(&prefix))
        .flat_map(|(_, chunks)| chunks);
    for chunk in chunks {
        // Rendering a leptos_meta tag registers it with the page's <head>.
        let _ = view! {
            <Link rel="preload" href=format!("/{}/{chunk}.wasm", manifest.pkg) as_="fetch"
                type_="application/wasm" crossorigin=nonce.clone()/>
        }
        .to_html();
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
