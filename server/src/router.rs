//! The HTTP surface on one page: the JSON API under `/api`, the SSE stream, and the Leptos pages.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, FromRef};
use axum::routing::get;
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};

use crate::engine::Engine;
use crate::http::debates;
use crate::http::error::AppError;
use crate::live::sse;

/// Request bodies above this are refused with 413.
pub const BODY_LIMIT: usize = 64 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub engine: Engine,
    pub leptos: LeptosOptions,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(s: &AppState) -> Self {
        s.leptos.clone()
    }
}

impl FromRef<AppState> for Engine {
    fn from_ref(s: &AppState) -> Self {
        s.engine.clone()
    }
}

pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route(
            "/debates",
            get(debates::list_debates).post(debates::create_debate),
        )
        .route("/debates/{id}", get(debates::get_debate))
        .route("/debates/{id}/events", get(sse::handler))
        .route("/debates/{id}/export.json", get(debates::export_json))
        .route("/debates/{id}/export.md", get(debates::export_md))
        .fallback(|| async { AppError::NotFound("no such API endpoint".into()) })
        .method_not_allowed_fallback(|method: axum::http::Method| async move {
            AppError::MethodNotAllowed(format!("method {method} is not allowed on this endpoint"))
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT));

    let service: app::api::SharedService = Arc::new(crate::http::ui_service::UiService {
        engine: state.engine.clone(),
    });
    let routes = generate_route_list(app::App);
    let leptos = state.leptos.clone();
    Router::new()
        .nest("/api", api)
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(service.clone()),
            move || app::shell(leptos.clone()),
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(
            app::shell,
        ))
        .with_state(state)
}
