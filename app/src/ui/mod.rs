//! The Leptos UI: server-rendered, then hydrated in the browser (UI-1, UI-2).

mod agents;
mod audit;
#[cfg(feature = "ssr")]
mod chunks;
mod collapse;
mod compare;
mod costs;
mod credibility;
mod data;
mod desk;
mod escalation;
mod eval;
mod fold;
mod forks;
mod home;
mod human;
mod judge;
mod lineage;
mod live;
mod outcomes;
mod panels;
mod past;
mod pause;
mod per_agent;
mod reconcile;
mod round_robin;
pub mod viewer;
mod whatif;
mod widgets;

pub use data::{
    debate_predictions, get_agent, get_debate, list_agents, list_debates, record_outcome,
    start_debate, stop_debate, who_am_i,
};

#[cfg(feature = "hydrate")]
pub use live::{hydrate_live, parts as live_parts, ProtocolParts};

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::{path, Lazy, SsrMode};

/// A page whose code the browser fetches only when the page is first shown: the route
/// is a `LazyRoute`, and in the hydrating bundle `#[lazy_route]` makes its view a split point, so
/// `cargo xtask site` (xtask/src/split.rs) moves the code only it reaches into a chunk of its
/// own; the server-rendered page preloads those chunks (`chunks.rs`). With the `single-module`
/// feature (the offline viewers, which load no chunks) the same route is built into the one module.
macro_rules! lazy_page {
    ($route:ident, $page:path) => {
        pub(crate) struct $route;
        #[cfg(not(feature = "single-module"))]
        #[leptos_router::lazy_route]
        impl leptos_router::LazyRoute for $route {
            fn data() -> Self {
                $route
            }
            fn view(_this: Self) -> AnyView {
                #[cfg(feature = "ssr")]
                chunks::preload(stringify!($route));
                $page().into_any()
            }
        }
        #[cfg(feature = "single-module")]
        impl leptos_router::LazyRoute for $route {
            fn data() -> Self {
                $route
            }
            async fn view(_this: Self) -> AnyView {
                $page().into_any()
            }
        }
    };
}

/// The lazy pages, and `load_shown_page`: the browser loads the code of the page the server
/// rendered before it hydrates (see `frontend`), so the page hydrates synchronously.
macro_rules! lazy_pages {
    ($($route:ident => $page:path),* $(,)?) => {
        $(lazy_page!($route, $page);)*

        /// Loads the chunks of the lazy page this server-rendered document shows, as named in its
        /// `<head>` (`chunks::preload`), and of the protocol's panel it shows (`panels.rs`);
        /// nothing for a page that is not lazy. Hydration is
        /// synchronous (the vendored tachys drops `AnyView`'s async hydration, a copy of every
        /// view tree's hydration code), so a lazy page's code must be here before it starts.
        #[cfg(feature = "hydrate")]
        pub async fn load_shown_page() {
            match shown_in_head(PAGE_META).as_deref() {
                $(Some(stringify!($route)) => <$route as leptos_router::LazyRoute>::preload().await,)*
                Some(other) => leptos::logging::warn!("unknown page in <head>: {other}"),
                None => {}
            }
            #[cfg(not(feature = "single-module"))]
            panels::load_shown_panel().await;
        }
    };
}

/// The `<meta name>` by which a server-rendered page names the panel it shows.
#[cfg_attr(
    any(
        not(any(feature = "ssr", feature = "hydrate")),
        feature = "single-module"
    ),
    allow(dead_code)
)]
pub(crate) const PANEL_META: &str = "consilium-panel";

/// What this server-rendered document's `<meta name=NAME>` says (its lazy route, its panel).
#[cfg(feature = "hydrate")]
fn shown_in_head(name: &str) -> Option<String> {
    leptos::prelude::document()
        .query_selector(&format!("meta[name={name}]"))
        .ok()
        .flatten()
        .and_then(|meta| meta.get_attribute("content"))
}

/// The `<meta name>` by which a server-rendered page names its lazy route.
#[cfg_attr(not(any(feature = "ssr", feature = "hydrate")), allow(dead_code))]
const PAGE_META: &str = "consilium-page";

lazy_pages! {
    HomeRoute => home::HomePage,
    LiveRoute => live::LivePage,
    AuditRoute => audit::AuditPage,
    DeskRoute => desk::DeskPage,
    AgentsRoute => agents::AgentsPage,
    AgentRoute => agents::AgentPage,
    EvalRoute => eval::EvalPage,
}

/// Which browser bundle hydrates the page being rendered. The server chooses per
/// request and provides it: `Live(protocol)` for a debate's live page asked for by address when
/// the site has the live bundles (`pkg/live-PROTOCOL.H.js`, `frontend`'s `live-…` features:
/// `live::hydrate_live` with that protocol's parts), so that page's first load carries neither
/// the router, nor the other pages', nor the other protocols' code; `Site` for every other page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bundle {
    #[default]
    Site,
    Live(crate::api::Protocol),
}

impl Bundle {
    /// The bundle for a debate's live page asked for by address, by the debate's protocol (as
    /// stored); the site's for a protocol this build does not know.
    pub fn of_live_page(protocol: &str) -> Bundle {
        crate::api::Protocol::ALL
            .into_iter()
            .find(|p| p.as_str() == protocol)
            .map_or(Bundle::Site, Bundle::Live)
    }

    /// The file name Leptos's hydration script loads (`NAME.HASH.js`, `NAME.HASH.wasm`): the
    /// site's is the server's `LeptosOptions::output_name` (`consilium`).
    pub fn output_name(self) -> Option<String> {
        match self {
            Bundle::Site => None,
            Bundle::Live(protocol) => Some(format!("live-{}", protocol.as_str())),
        }
    }

    /// Whether this is a live bundle.
    pub fn is_live(self) -> bool {
        matches!(self, Bundle::Live(_))
    }
}

#[cfg(test)]
mod tests {
    use super::Bundle;
    use crate::api::Protocol;

    /// Every protocol's live page goes to that protocol's live bundle, named after the
    /// protocol as `cargo xtask site` names the files (the server checks they are there).
    #[test]
    fn each_protocol_has_its_live_bundle() {
        for protocol in Protocol::ALL {
            let bundle = Bundle::of_live_page(protocol.as_str());
            assert_eq!(bundle, Bundle::Live(protocol));
            let name = format!("live-{}", protocol.as_str());
            assert_eq!(bundle.output_name(), Some(name));
        }
        assert_eq!(Bundle::of_live_page("no such protocol"), Bundle::Site);
        assert_eq!(Bundle::Site.output_name(), None);
    }
}

/// The bundle the server chose for this page (`Site` unless it provided another).
#[cfg_attr(not(feature = "ssr"), allow(dead_code))]
pub(crate) fn page_bundle() -> Bundle {
    use_context::<Bundle>().unwrap_or_default()
}

pub fn shell(mut options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    chunks::provide(&options);
    if let Some(name) = page_bundle().output_name() {
        options.output_name = name.into();
    }
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" href="/favicon.ico"/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // Set only by a browser-side effect: proof that the page is hydrated and interactive.
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));

    view! {
        <Stylesheet id="consilium" href="/pkg/consilium.css"/>
        <Title text="Consilium"/>
        <Router>
            <div class="app" data-hydrated=move || hydrated.get().then_some("true")>
                <header class="topbar">
                    <A href="/" attr:class="brand">
                        <span class="brand-mark">"⚖"</span>
                        <span class="brand-name">"Consilium"</span>
                    </A>
                    <span class="tagline">"Structured debates between AI agents, with a log you can audit"</span>
                    <nav class="topnav"><A href="/agents">"Agents"</A><A href="/eval">"Eval"</A></nav>
                    <judge::JudgeCorner/>
                </header>
                <main>
                    <Routes fallback=|| view! { <NotFound/> }>
                        <Route path=path!("/") view={Lazy::<HomeRoute>::new()} ssr=SsrMode::Async/>
                        // Async: the page waits for the log so an unknown id can answer 404.
                        <Route path=path!("/debates/:id") view={Lazy::<LiveRoute>::new()} ssr=SsrMode::Async/>
                        <Route path=path!("/debates/:id/audit") view={Lazy::<AuditRoute>::new()} ssr=SsrMode::Async/>
                        <Route path=path!("/judge/sign-in") view=judge::SignInPage ssr=SsrMode::Async/>
                        <Route path=path!("/judge") view={Lazy::<DeskRoute>::new()} ssr=SsrMode::Async/>
                        <Route path=path!("/agents") view={Lazy::<AgentsRoute>::new()} ssr=SsrMode::Async/>
                        <Route path=path!("/eval") view={Lazy::<EvalRoute>::new()} ssr=SsrMode::Async/>
                        <Route path=path!("/agents/*identity") view={Lazy::<AgentRoute>::new()} ssr=SsrMode::Async/>
                    </Routes>
                </main>
            </div>
        </Router>
    }
}

#[component]
fn NotFound() -> impl IntoView {
    set_status_not_found();
    view! {
        <section class="panel empty">
            <h1>"Page not found"</h1>
            <p><A href="/">"Back to the debates"</A></p>
        </section>
    }
}

#[component]
fn DebateNotFound() -> impl IntoView {
    set_status_not_found();
    view! {
        <section class="panel empty">
            <h1>"No such debate"</h1>
            <p><A href="/">"Back to the debates"</A></p>
        </section>
    }
}

/// A document title showing user text. leptos_meta writes `<Title>` text into the server-rendered
/// `<title>` without escaping, so a query containing `</title>` could inject markup: angle
/// brackets are replaced by look-alikes (the title is display-only).
pub(crate) fn page_title(page: &str, query: &str) -> String {
    let shown = truncate(query, 60).replace('<', "‹").replace('>', "›");
    format!("Consilium · {page} · {shown}")
}

/// Server function errors arrive prefixed with plumbing; show only the message.
pub(crate) fn clean_error(e: &str) -> String {
    e.trim_start_matches("error running server function: ")
        .trim_start_matches("ServerFnError: ")
        .to_owned()
}

/// At most `n` characters, with an ellipsis when cut.
pub(crate) fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// During SSR, answer 404 for pages about things that do not exist.
pub(crate) fn set_status_not_found() {
    #[cfg(feature = "ssr")]
    if let Some(resp) = use_context::<leptos_axum::ResponseOptions>() {
        resp.set_status(http::StatusCode::NOT_FOUND);
    }
}
