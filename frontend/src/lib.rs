#![recursion_limit = "256"]
//! The browser entry points: `hydrate` for the server-rendered pages, `viewer` for the offline
//! audit viewer (a static page with no server behind it), only in the `single-module` build: the
//! served site's bundle is split per page, and an entry point that reaches the audit view would
//! keep all of it in the first module.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Waits for the shown page's chunk (a lazy route) before hydrating it.
    leptos::mount::hydrate_lazy(app::App);
}

#[cfg(feature = "single-module")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn viewer() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::ui::viewer::Viewer);
}
