//! DX-3: `GET /api/openapi.json`, the OpenAPI 3.1 document of the JSON API. It is generated from
//! the handlers' `#[utoipa::path]` annotations and the wire types' schemas, and the router
//! registers the routes from those same annotations ([`api_routes`]), so a route
//! cannot exist without its documentation. `server/tests/integration/openapi.rs` checks the
//! document against the real responses of every route.

use std::sync::LazyLock;

use app::api::ErrorBody;
use axum::http::header;
use axum::response::IntoResponse;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    ComponentsBuilder, ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Ref, RefOr,
    ResponseBuilder,
};
use utoipa::{PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{agents, compare, debates, fork, judge};
use crate::live::sse;
use crate::state::AppState;

/// Where the router mounts the API; the document's paths are absolute.
pub const PREFIX: &str = "/api";

const DESCRIPTION: &str = "The JSON API of Consilium: start debates between agents, follow \
their hash-chained event logs live (Server-Sent Events), export and verify them, and act on \
them as a judge.\n\n\
Every error is a JSON `ErrorBody` (`{\"error\": \"…\"}`) that names the problem. Besides the \
statuses each operation lists, any path under `/api` this document does not list answers 404, \
and a method a path does not have answers 405, both as `ErrorBody`.\n\n\
Judges present their token as `Authorization: Bearer <token>` or sign in once for a session \
cookie; a state change sent with the cookie must carry this site's `Origin`.";

/// The document's frame: info, tags and security schemes. [`api_routes`] adds
/// the operations and the schemas they use.
pub fn base() -> OpenApi {
    let tag = |name: &str, about: &str| {
        TagBuilder::new()
            .name(name)
            .description(Some(about))
            .build()
    };
    let components = ComponentsBuilder::new()
        .schema(ErrorBody::name(), ErrorBody::schema())
        .security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A judge's or viewer's token (`cj_…`, made by `consilium judge add`), or \
                         the operator's start token (`--start-token`), which only starts debates",
                    ))
                    .build(),
            ),
        )
        .security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                crate::access::session::COOKIE,
                "The session cookie `POST /api/judge/sign-in` sets; a state change sent with it \
                 must carry this site's `Origin`",
            ))),
        )
        .build();
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("Consilium")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(DESCRIPTION))
                .build(),
        )
        .components(Some(components))
        .tags(Some([
            tag(
                "debates",
                "Start, list and read debates; their logs, exports and keys",
            ),
            tag("live", "A debate's events as they are appended (SV-3)"),
            tag("judges", "SV-7: judges sign in and act on debates"),
            tag(
                "track record",
                "CR-1/CR-2: agents' credibility and their predictions",
            ),
            tag("meta", "This document (DX-3)"),
        ]))
        .build()
}

/// The document as served: paths under [`PREFIX`], and the responses every request may get
/// from the layers in front of the handlers added to each operation.
fn build() -> OpenApi {
    let (_, mut api) = api_routes().split_for_parts();
    let paths = std::mem::take(&mut api.paths.paths);
    for (path, mut item) in paths {
        let streams = path.ends_with("/events");
        for (op, writes) in [
            (item.get.as_mut(), false),
            (item.head.as_mut(), false),
            (item.options.as_mut(), false),
            (item.post.as_mut(), true),
            (item.put.as_mut(), true),
            (item.patch.as_mut(), true),
            (item.delete.as_mut(), true),
        ] {
            if let Some(op) = op {
                shared_responses(op, writes, streams);
            }
        }
        // axum's catch-all `{*identity}` is the template parameter `{identity}` in OpenAPI.
        let path = format!("{PREFIX}{}", path.replace("{*", "{"));
        api.paths.paths.insert(path, item);
    }
    api
}

/// What `crate::access::guard` and the rate limit answer before a handler runs, and what any
/// handler may answer when something breaks: added to `op`, or to its reasons when it lists
/// that status already.
fn shared_responses(op: &mut Operation, writes: bool, streams: bool) {
    let mut shared = vec![
        (
            "421",
            "the request's Host is not a name this server answers to (`--allowed-hosts`)",
        ),
        (
            "429",
            "too many requests from this address (the rate limit); see `Retry-After`",
        ),
        ("500", "an internal error; the server log has the details"),
    ];
    if !streams {
        shared.push((
            "503",
            "the request took longer than the server's limit; see `Retry-After`",
        ));
    }
    if writes {
        shared.push(("403", "a cross-site request: its `Origin` is not this site"));
        shared.push(("413", "the body is larger than the limit (64 KiB)"));
    }
    for (status, why) in shared {
        match op.responses.responses.get_mut(status) {
            Some(RefOr::T(listed)) => {
                listed.description = format!("{}; or {why}", listed.description);
            }
            Some(RefOr::Ref(_)) => {}
            None => {
                let mut about = why.to_owned();
                if let Some(first) = about.get_mut(..1) {
                    first.make_ascii_uppercase();
                }
                let response = ResponseBuilder::new()
                    .description(about)
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name(ErrorBody::name())))
                            .build(),
                    )
                    .build();
                op.responses
                    .responses
                    .insert(status.to_owned(), RefOr::T(response));
            }
        }
    }
}

/// Built once, on first request, and served as these very bytes since.
static DOCUMENT: LazyLock<String> = LazyLock::new(|| {
    serde_json::to_string(&build()).unwrap_or_else(|e| {
        serde_json::json!({"error": format!("the OpenAPI document could not be written: {e}")})
            .to_string()
    })
});

/// The document (DX-3), for the router and for tools that write it out.
pub fn document() -> &'static str {
    &DOCUMENT
}

/// This document: the OpenAPI 3.1 description of every route under `/api`.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = serde_json::Value, content_type = "application/json"))
)]
pub async fn openapi_json() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], document())
}

/// The JSON API, under `/api`. DX-3: each route is registered from its handler's
/// `#[utoipa::path]` annotation, which also documents it in `GET /api/openapi.json`
/// (this module), so a route cannot exist without its documentation. Paths are relative to
/// `/api`; one `routes!` per path.
pub fn api_routes() -> OpenApiRouter<AppState> {
    judge_routes(debate_routes(OpenApiRouter::with_openapi(base())))
        .routes(routes!(agents::list))
        .routes(routes!(agents::detail))
        .routes(routes!(agents::record_outcome))
        .routes(routes!(debates::keys))
        .routes(routes!(openapi_json))
}

/// The debates: start, list, read, follow, export, fork.
fn debate_routes(router: OpenApiRouter<AppState>) -> OpenApiRouter<AppState> {
    router
        .routes(routes!(debates::list_debates, debates::create_debate))
        .routes(routes!(debates::baseline_counts))
        .routes(routes!(debates::eval_runs))
        .routes(routes!(debates::get_debate))
        .routes(routes!(fork::fork))
        .routes(routes!(fork::forks, fork::list_forks))
        .routes(routes!(compare::compare))
        .routes(routes!(agents::of_debate))
        .routes(routes!(sse::handler))
        .routes(routes!(debates::export_json))
        .routes(routes!(debates::export_md))
}

/// What judges do, and how they sign in.
fn judge_routes(router: OpenApiRouter<AppState>) -> OpenApiRouter<AppState> {
    router
        .routes(routes!(judge::stop))
        .routes(routes!(judge::decide))
        .routes(routes!(judge::budget))
        .routes(routes!(judge::rule))
        .routes(routes!(judge::me))
        .routes(routes!(judge::queue))
        .routes(routes!(judge::desk))
        .routes(routes!(judge::sign_in))
        .routes(routes!(judge::sign_out))
}
