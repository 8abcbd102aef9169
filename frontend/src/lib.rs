#![recursion_limit = "256"]
//! The browser entry points: `hydrate` for the server-rendered pages, `viewer` for the offline
//! audit viewer (a static page with no server behind it), only in the `single-module` build: the
//! served site's bundle is split per page, and an entry point that reaches the audit view would
//! keep all of it in the first module. With a `live-PROTOCOL` feature (built with
//! `single-module`: a split point is an export, which would keep its page's code), that
//! protocol's live bundle: `hydrate` is `app::ui::hydrate_live` with the protocol's parts, which
//! reaches that protocol's live view and nothing else of the app.

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
    app::ui::hydrate_live(LIVE_PARTS);
}

#[cfg(all(feature = "live", not(feature = "single-module")))]
compile_error!("a live bundle is built with `single-module`: a split point is an export that keeps its page's code");
#[cfg(all(
    feature = "live",
    not(any(
        feature = "live-s4",
        feature = "live-round_robin",
        feature = "live-collapse",
        feature = "live-escalation",
        feature = "live-reconcile"
    ))
))]
compile_error!("a live bundle names its protocol: one `live-PROTOCOL` feature");

/// The protocol this live bundle is built for: one `live-PROTOCOL` feature.
#[cfg(feature = "live-s4")]
const LIVE_PARTS: app::ui::ProtocolParts = app::ui::live_parts::S4;
#[cfg(feature = "live-round_robin")]
const LIVE_PARTS: app::ui::ProtocolParts = app::ui::live_parts::ROUND_ROBIN;
#[cfg(feature = "live-collapse")]
const LIVE_PARTS: app::ui::ProtocolParts = app::ui::live_parts::COLLAPSE;
#[cfg(feature = "live-escalation")]
const LIVE_PARTS: app::ui::ProtocolParts = app::ui::live_parts::ESCALATION;
#[cfg(feature = "live-reconcile")]
const LIVE_PARTS: app::ui::ProtocolParts = app::ui::live_parts::RECONCILE;

#[cfg(all(feature = "single-module", not(feature = "live")))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn viewer() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::ui::viewer::Viewer);
}
