#![recursion_limit = "256"]
//! The browser entry points: `hydrate` for the server-rendered pages, `viewer` for the offline
//! audit viewer (a static page with no server behind it), only in the `single-module` build: the
//! served site's bundle is split per page, and an entry point that reaches the audit view would
//! keep all of it in the first module. With the `live` feature (built with `single-module`: a
//! split point is an export, which would keep its page's code), the live bundle: `hydrate` is
//! `app::ui::hydrate_live`, which reaches an S4 debate's live view and nothing else of the app.

#[cfg(not(feature = "live"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // The shown page's code (a lazy route's chunks) first, then synchronous hydration.
    wasm_bindgen_futures::spawn_local(async {
        app::ui::load_shown_page().await;
        leptos::mount::hydrate_body(app::App);
    });
}

#[cfg(feature = "live")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    app::ui::hydrate_live();
}

#[cfg(all(feature = "single-module", not(feature = "live")))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn viewer() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::ui::viewer::Viewer);
}
