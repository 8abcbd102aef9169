#![recursion_limit = "256"]
//! The browser entry points: `hydrate` for the server-rendered pages, `viewer` for the offline
//! audit viewer (a static page with no server behind it).

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn viewer() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::ui::viewer::Viewer);
}
