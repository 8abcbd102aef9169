//! A protocol's own panel (RR, WC, ES, RC) on a debate's live and audit pages, its code in the
//! browser only for that protocol's debates. Each panel is a split point (`#[lazy]`):
//! `cargo xtask site` cuts the code only it reaches into chunks of its own, and
//! its packing step (xtask/src/pack.rs) packs a page's chunks with each panel's, so an S4 debate's live page
//! does not fetch the escalation ladder's forms or the reconciliation's topics. The server
//! names the panel in the page (`chunks::preload_panel`) and the browser loads its code before it
//! hydrates (`load_shown_panel`), as it does the page's. The offline viewers build one module
//! (`single-module`): there each panel is a plain async function.

use leptos::prelude::*;

use crate::protocol::DebateView;

/// One panel: a split point in the served bundle, an async function in the offline viewers.
macro_rules! panel {
    ($name:ident, |$state:ident, $id:ident| $body:expr) => {
        #[cfg(not(feature = "single-module"))]
        #[leptos::lazy]
        fn $name($state: Signal<DebateView>, $id: Option<String>) -> AnyView {
            $body.into_any()
        }
        #[cfg(feature = "single-module")]
        async fn $name($state: Signal<DebateView>, $id: Option<String>) -> AnyView {
            $body.into_any()
        }
    };
}

panel!(
    rr_panel,
    |state, _id| view! { <super::round_robin::RrPanel state/> }
);
panel!(
    wc_panel,
    |state, _id| view! { <super::collapse::WcBoard state/> }
);
panel!(
    es_panel,
    |state, id| view! { <super::escalation::EsPanel state id/> }
);
panel!(
    rc_panel,
    |state, _id| view! { <super::reconcile::RcPanel state/> }
);

/// The split point's function name of a protocol's panel (`None`: the protocol has none).
pub(crate) fn panel_of(protocol: &str) -> Option<&'static str> {
    match protocol {
        "round_robin" => Some("rr_panel"),
        "collapse" => Some("wc_panel"),
        "escalation" => Some("es_panel"),
        "reconcile" => Some("rc_panel"),
        _ => None,
    }
}

/// One protocol's panel alone: what `protocol_panel` shows for that protocol, and what a live
/// bundle built for it shows (`live::parts`), which must not reach the other panels' code.
macro_rules! panel_alone {
    ($($view:ident => $panel:ident),* $(,)?) => {$(
        pub(crate) fn $view(state: Signal<DebateView>, id: Option<String>) -> AnyView {
            Suspend::new(async move { $panel(state, id).await }).into_any()
        }
    )*};
}

panel_alone!(rr_alone => rr_panel, wc_alone => wc_panel, es_alone => es_panel, rc_alone => rc_panel);

/// The panel of a debate of `protocol` (nothing for S4), fed by `state`; `id` lets a live ES
/// debate's judge act on its challenges. The server renders it at once; in the browser its
/// code is already loaded when the page hydrates (`load_shown_panel`), and after a navigation it
/// appears once its chunks have arrived.
pub(crate) fn protocol_panel(
    protocol: &str,
    state: Signal<DebateView>,
    id: Option<String>,
) -> AnyView {
    let panel = panel_of(protocol);
    #[cfg(feature = "ssr")]
    super::chunks::preload_panel(panel);
    let Some(panel) = panel else {
        return ().into_any();
    };
    match panel {
        "rr_panel" => rr_alone(state, id),
        "wc_panel" => wc_alone(state, id),
        "es_panel" => es_alone(state, id),
        _ => rc_alone(state, id),
    }
}

/// Loads the code of the panel this server-rendered document shows, as named in its `<head>`
/// (`chunks::preload_panel`), so that hydration finds it (hydration is synchronous: a panel
/// still loading would not match the server's markup).
#[cfg(all(feature = "hydrate", not(feature = "single-module")))]
pub async fn load_shown_panel() {
    match super::shown_in_head(super::PANEL_META).as_deref() {
        Some("rr_panel") => __preload_rr_panel().await,
        Some("wc_panel") => __preload_wc_panel().await,
        Some("es_panel") => __preload_es_panel().await,
        Some("rc_panel") => __preload_rc_panel().await,
        Some(other) => leptos::logging::warn!("unknown panel in <head>: {other}"),
        None => {}
    }
}
