//! The HTTP surface on one page: the JSON API under `/api`, the SSE stream, and the Leptos pages.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderValue;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::Router;
use governor::clock::{DefaultClock, QuantaInstant};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower::Layer;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::GovernorLayer;
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::access::client::ClientKey;
use crate::access::guard;
use crate::engine::Engine;
use crate::http::error::AppError;
use crate::http::openapi;
pub use crate::state::AppState;

/// Request bodies above this are refused with 413.
pub const BODY_LIMIT: usize = 64 * 1024;

/// How often the rate limiter forgets the addresses whose allowance has refilled (SV-12).
const PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

type RateConfig = GovernorConfig<ClientKey, NoOpMiddleware<QuantaInstant>>;
type RateLimiter = governor::RateLimiter<
    std::net::IpAddr,
    DefaultKeyedStateStore<std::net::IpAddr>,
    DefaultClock,
    NoOpMiddleware<QuantaInstant>,
>;

/// The requests-per-second limit per client address (an IPv6 /64); `None` if it cannot be built.
fn rate_limit(
    limits: &crate::access::limits::LimitConfig,
    proxies: &crate::access::client::TrustedProxies,
) -> Option<Arc<RateConfig>> {
    GovernorConfigBuilder::default()
        .key_extractor(ClientKey {
            trust_proxy: proxies.clone(),
        })
        .period(std::time::Duration::from_secs(1) / limits.rate_per_s.max(1))
        .burst_size(limits.burst.max(1))
        .finish()
        .map(Arc::new)
}

/// SV-12: the limiter keeps a state per address it has seen; an address whose allowance has
/// refilled is indistinguishable from a new one, so it is forgotten. A million distinct
/// addresses then cost memory for as long as their bursts take to refill, not forever. Ends with
/// the limiter.
async fn prune_every(limiter: std::sync::Weak<RateLimiter>, period: std::time::Duration) {
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(limiter) = limiter.upgrade() else {
            return;
        };
        prune(&limiter);
    }
}

fn prune(limiter: &RateLimiter) {
    limiter.retain_recent();
    limiter.shrink_to_fit();
}

pub fn router(state: AppState) -> Router {
    let (api, _) = openapi::api_routes().split_for_parts();
    let api = api
        .fallback(|| async { AppError::NotFound("no such API endpoint".into()) })
        .method_not_allowed_fallback(|method: axum::http::Method| async move {
            AppError::MethodNotAllowed(format!("method {method} is not allowed on this endpoint"))
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT));

    let service: app::api::SharedService = Arc::new(crate::http::ui_service::UiService {
        engine: state.engine.clone(),
        access: state.access.clone(),
    });
    let routes = generate_route_list(app::App);
    let leptos = state.leptos.clone();
    let limits = state.access.limits.config.clone();
    let rate = rate_limit(&limits, &state.access.trust_proxy);
    if let (Some(rate), Ok(runtime)) = (&rate, tokio::runtime::Handle::try_current()) {
        runtime.spawn(prune_every(Arc::downgrade(rate.limiter()), PRUNE_EVERY));
    }
    let hosts = state.hosts.clone();
    let page_context = move || {
        provide_context(service.clone());
        page_policy();
        provide_bundle();
    };
    let live_bundles: Arc<[app::api::Protocol]> = live_bundles(&pkg_dir(&state.leptos)).into();
    let pkg = assets(&state.leptos);
    let viewer_built = std::path::Path::new(state.leptos.site_root.as_ref())
        .join("viewer.html")
        .is_file();
    let mut app = Router::new();
    if !viewer_built {
        app = app.route("/viewer.html", axum::routing::get(viewer_not_built));
    }
    let mut app = app
        .nest(openapi::PREFIX, api)
        .nest_service(&format!("/{}", state.leptos.site_pkg_dir), pkg)
        .leptos_routes_with_context(&state, routes, page_context.clone(), move || {
            app::shell(leptos.clone())
        })
        .fallback(leptos_axum::file_and_error_handler_with_context::<
            AppState,
            _,
        >(page_context, app::shell))
        .layer(from_fn_with_state(
            (state.engine.clone(), live_bundles),
            choose_bundle,
        ))
        .with_state(state)
        .layer(from_fn_with_state(limits.request_timeout, guard::timeout))
        .layer(from_fn_with_state(BODY_LIMIT, guard::body_limit))
        .layer(from_fn(guard::origin));
    if let Some(rate) = rate {
        app = app.layer(GovernorLayer::new(rate).error_handler(rate_limited));
    }
    app.layer(from_fn_with_state(hosts, guard::host))
        .layer(from_fn(guard::headers))
        // Pages and JSON, compressed as the browser accepts (brotli at quality 4, gzip). Never a
        // live stream (text/event-stream), nor what is already compressed (the bundle below).
        .layer(CompressionLayer::new())
}

/// UI-3: a site built with the pages alone (`make run`) has no offline viewer; its link then
/// says how to get one instead of a bare "not found".
async fn viewer_not_built() -> (axum::http::StatusCode, axum::response::Html<&'static str>) {
    (
        axum::http::StatusCode::NOT_FOUND,
        axum::response::Html(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>Offline viewer not built</title></head><body>\
             <h1>The offline viewer is not part of this build</h1>\
             <p>This server was built with the pages alone (<code>make run</code>). Build the \
             whole site with <code>make site</code> (or <code>make dist</code>) and restart the \
             server to offer the single-file viewer here; <code>make viewer</code> builds a \
             static copy for any web host. Meanwhile <code>consilium verify FILE.json</code> \
             checks an exported log offline.</p></body></html>",
        ),
    )
}

/// The browser bundle (`pkg/`): each file sent as the `.br` or `.gz` written beside it at build
/// time when the browser accepts that encoding. A file whose name carries the bundle's hash
/// (`pkg/hash.txt`, from `cargo xtask site`) never changes under that name: browsers keep it
/// for a year without asking again (`immutable`). The rest (the stylesheet, the manifest, a bundle
/// built without hashes) is kept and revalidated on each visit: `no-cache` with `Last-Modified`,
/// answered 304 while it has not changed.
fn assets(leptos: &LeptosOptions) -> Router {
    use axum::http::header::{ACCEPT_ENCODING, CACHE_CONTROL, VARY};
    let dir = pkg_dir(leptos);
    let hash: Option<Arc<str>> =
        bundle_hash(&dir.join("hash.txt"), "js").map(|h| format!(".{h}.").into());
    let files = ServeDir::new(dir).precompressed_br().precompressed_gzip();
    // Caches keep one copy per encoding.
    let vary = SetResponseHeaderLayer::appending(VARY, HeaderValue::from(ACCEPT_ENCODING));
    let cache = move |request: axum::extract::Request, next: axum::middleware::Next| {
        let hashed = hash.as_deref().is_some_and(|h| {
            let name = request.uri().path().rsplit('/').next().unwrap_or_default();
            name.contains(h)
        });
        async move {
            let mut response = next.run(request).await;
            let policy = if hashed && response.status().is_success() {
                "public, max-age=31536000, immutable"
            } else {
                "no-cache"
            };
            response
                .headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static(policy));
            response
        }
    };
    Router::new()
        .fallback_service(vary.layer(files))
        .layer(from_fn(cache))
}

/// The site's bundle folder (`target/site/pkg`).
fn pkg_dir(leptos: &LeptosOptions) -> std::path::PathBuf {
    std::path::Path::new(leptos.site_root.as_ref()).join(leptos.site_pkg_dir.as_ref())
}

/// The hash `hash.txt` records for `key` (`js`: the site's bundle; `live`: the live bundles,
/// present when the site was built with them), if the site was built with one.
fn bundle_hash(path: &std::path::Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, h)| h.trim().to_owned())
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The protocols whose live bundle the built site holds (`pkg/live-PROTOCOL.HASH.js` and
/// `.wasm`, `cargo xtask site`), read once at start: a page is never sent to a bundle that
/// is not there (a partial deploy, a protocol newer than the build).
fn live_bundles(pkg: &std::path::Path) -> Vec<app::api::Protocol> {
    let Some(hash) = bundle_hash(&pkg.join("hash.txt"), "live") else {
        return Vec::new();
    };
    app::api::Protocol::ALL
        .into_iter()
        .filter(|p| {
            let name = app::ui::Bundle::Live(*p).output_name().unwrap_or_default();
            ["js", "wasm"]
                .iter()
                .all(|ext| pkg.join(format!("{name}.{hash}.{ext}")).is_file())
        })
        .collect()
}

/// A debate's live page asked for by address (not reached by a link inside the app)
/// is hydrated by its protocol's live bundle, a module that holds that live view and nothing
/// else of the app (`app::ui::Bundle`). Decided here, before the page renders, since its
/// `<head>` names the bundle; every other page, a protocol whose live bundle the site lacks, and
/// every page of a site built without them keep the site's. An unknown debate or a store error
/// here leaves the site's bundle (the page then answers as it always has: 404, or the error).
async fn choose_bundle(
    State((engine, live_bundles)): State<(Engine, Arc<[app::api::Protocol]>)>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if !live_bundles.is_empty() && request.method() == axum::http::Method::GET {
        if let Some(id) = live_page_id(request.uri().path()) {
            if let Ok(Some(protocol)) = engine.store.protocol(id).await {
                let bundle = app::ui::Bundle::of_live_page(&protocol);
                if matches!(bundle, app::ui::Bundle::Live(p) if live_bundles.contains(&p)) {
                    request.extensions_mut().insert(bundle);
                }
            }
        }
    }
    next.run(request).await
}

/// The debate id of a live page's path, `/debates/{id}` (one that can be an id at all).
fn live_page_id(path: &str) -> Option<&str> {
    let id = path.strip_prefix("/debates/")?;
    app::api::is_debate_id(id).then_some(id)
}

/// The bundle `choose_bundle` chose for this request, for the page's shell and views.
fn provide_bundle() {
    let chosen = use_context::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<app::ui::Bundle>().copied());
    if let Some(bundle) = chosen {
        provide_context(bundle);
    }
}

/// Pages carry a Content-Security-Policy with this response's nonce, the one Leptos puts on its
/// own scripts.
fn page_policy() {
    let (Some(nonce), Some(response)) = (
        leptos::nonce::use_nonce(),
        use_context::<leptos_axum::ResponseOptions>(),
    ) else {
        return;
    };
    if let Ok(value) = axum::http::HeaderValue::from_str(&guard::page_policy(&nonce)) {
        response.insert_header(axum::http::header::CONTENT_SECURITY_POLICY, value);
    }
}

/// The rate limit's answer, as JSON like every other error.
fn rate_limited(e: tower_governor::GovernorError) -> axum::response::Response {
    use axum::response::IntoResponse;
    match e {
        tower_governor::GovernorError::TooManyRequests { wait_time, .. } => {
            AppError::TooManyRequests {
                message: format!(
                    "too many requests from your address; try again in {} s",
                    wait_time.max(1)
                ),
                retry_after_s: wait_time.max(1),
            }
            .into_response()
        }
        other => AppError::Internal(format!("rate limiter: {other}")).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a live page's path, with what can be a debate id, asks the store.
    #[test]
    fn a_live_page_path_names_its_debate() {
        for (path, id) in [
            ("/debates/ff83bb3238ff4c49", Some("ff83bb3238ff4c49")),
            ("/debates/ff83bb3238ff4c49/audit", None),
            ("/debates/", None),
            ("/debates", None),
            ("/api/debates/ff83bb3238ff4c49", None),
            ("/debates/..%2Fetc", None),
            ("/", None),
        ] {
            assert_eq!(live_page_id(path), id, "{path}");
        }
    }

    /// SV-12: a million distinct addresses cannot grow the rate limiter's table for good: once
    /// their allowance has refilled, pruning forgets them.
    #[test]
    fn the_rate_limiter_forgets_addresses_whose_allowance_refilled_sv_12() {
        let limits = crate::access::limits::LimitConfig {
            rate_per_s: 1000,
            burst: 1,
            ..Default::default()
        };
        let rate = rate_limit(&limits, &Default::default()).expect("a limit");
        let limiter = rate.limiter();
        let n: u32 = 200_000;
        for i in 0..n {
            let ip = std::net::IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            assert!(limiter.check_key(&ip).is_ok());
        }
        assert_eq!(limiter.len(), n as usize);
        // One request at 1,000 a second refills in 1 ms.
        std::thread::sleep(std::time::Duration::from_millis(20));
        prune(limiter);
        assert_eq!(limiter.len(), 0, "every refilled address is forgotten");
        // An address still inside its allowance is kept.
        let busy = std::net::IpAddr::from([192, 0, 2, 1]);
        assert!(limiter.check_key(&busy).is_ok());
        prune(limiter);
        assert_eq!(limiter.len(), 1);
    }
}
