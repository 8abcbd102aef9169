//! The HTTP contract: JSON API, SSE stream, and the Leptos pages.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use app::api::{CreateDebate, Created, DebateDetail, DebateSummary};
use app::protocol::Event;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use futures::Stream;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use serde::Deserialize;

use crate::error::AppError;
use crate::runner::Engine;

/// Request bodies above this are refused with 413.
pub const BODY_LIMIT: usize = 64 * 1024;
/// SSE comment lines keep idle connections (and proxies) alive.
pub const KEEP_ALIVE: Duration = Duration::from_secs(10);

#[derive(Clone)]
pub struct AppState {
    pub engine: Engine,
    pub leptos: LeptosOptions,
}

impl axum::extract::FromRef<AppState> for LeptosOptions {
    fn from_ref(s: &AppState) -> Self {
        s.leptos.clone()
    }
}

pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/debates", get(list_debates).post(create_debate))
        .route("/debates/{id}", get(get_debate))
        .route("/debates/{id}/events", get(crate::sse::events))
        .route("/debates/{id}/export.json", get(export_json))
        .route("/debates/{id}/export.md", get(export_md))
        .fallback(|| async { AppError::NotFound("no such API endpoint".into()) })
        .method_not_allowed_fallback(|method: axum::http::Method| async move {
            AppError::MethodNotAllowed(format!("method {method} is not allowed on this endpoint"))
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT));

    let service: app::api::SharedService = Arc::new(crate::ui_service::UiService {
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

async fn create_debate(
    State(state): State<AppState>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<impl IntoResponse, AppError> {
    let body: CreateDebate = json_object(body?.0)?;
    let valid = body
        .validate()
        .map_err(|e| AppError::BadRequest(e.to_string()))?;
    let id = state.engine.start(valid).await?;
    Ok((StatusCode::CREATED, Json(Created { id })))
}

async fn list_debates(State(state): State<AppState>) -> Result<Json<Vec<DebateSummary>>, AppError> {
    Ok(Json(state.engine.store.list(200).await?))
}

async fn get_debate(
    State(state): State<AppState>,
    DebateId(id): DebateId,
) -> Result<Json<DebateDetail>, AppError> {
    load(&state, &id).await.map(Json)
}

/// SV-2: the whole log with its hash chain, as a download `consilium verify` can check.
async fn export_json(
    State(state): State<AppState>,
    DebateId(id): DebateId,
) -> Result<impl IntoResponse, AppError> {
    let detail = load(&state, &id).await?;
    Ok((
        [(header::CONTENT_DISPOSITION, attachment(&detail.id, "json"))],
        Json(detail),
    ))
}

/// The same log as a report a person reads (query, rounds, before/after, votes, decision, check).
async fn export_md(
    State(state): State<AppState>,
    DebateId(id): DebateId,
) -> Result<impl IntoResponse, AppError> {
    let detail = load(&state, &id).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/markdown; charset=utf-8".to_owned(),
            ),
            (header::CONTENT_DISPOSITION, attachment(&detail.id, "md")),
        ],
        app::audit::markdown::report(&detail),
    ))
}

async fn load(state: &AppState, id: &str) -> Result<DebateDetail, AppError> {
    state
        .engine
        .store
        .get(id)
        .await?
        .ok_or_else(|| not_found(id))
}

/// Ids are generated hex, so they are safe in a header.
fn attachment(id: &str, ext: &str) -> String {
    format!("attachment; filename=\"consilium-{id}.{ext}\"")
}

/// A debate id from the path, checked before it reaches the database: an id that is not valid
/// UTF-8 is a 400, one that cannot be a debate id a 404 — always as JSON.
pub struct DebateId(pub String);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for DebateId {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, AppError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| AppError::BadRequest(format!("invalid debate id: {}", e.body_text())))?;
        if !app::api::is_debate_id(&id) {
            return Err(not_found(&id));
        }
        Ok(DebateId(id))
    }
}

pub fn not_found(id: &str) -> AppError {
    let shown: String = id.chars().take(64).collect();
    AppError::NotFound(format!("no debate with id '{shown}'"))
}

#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    /// The resume cursor for clients that cannot send `Last-Event-ID` (page reloads).
    pub after: Option<String>,
}

/// SV-3: `Last-Event-ID` (sent by EventSource on reconnect) wins over `?after=`.
pub fn resume_cursor(headers: &HeaderMap, query: &EventsQuery) -> Result<u64, AppError> {
    let raw = match headers.get("last-event-id") {
        Some(v) => Some(
            v.to_str()
                .map_err(|_| {
                    AppError::BadRequest("Last-Event-ID must be a sequence number".into())
                })?
                .to_owned(),
        ),
        None => query.after.clone(),
    };
    match raw.as_deref().map(str::trim) {
        None | Some("") => Ok(0),
        Some(s) => s.parse::<u64>().map_err(|_| {
            let shown: String = s.chars().take(32).collect();
            AppError::BadRequest(format!(
                "resume cursor '{shown}' is not a sequence number (expected a non-negative integer)"
            ))
        }),
    }
}

pub type EventStream = axum::response::Response;

pub fn sse_response(stream: impl Stream<Item = Event> + Send + 'static) -> EventStream {
    use futures::StreamExt;
    let stream = stream.map(|e| {
        let data = serde_json::to_string(&e).unwrap_or_default();
        axum::response::sse::Event::default()
            .id(e.seq.to_string())
            .data(data)
    });
    Sse::new(stream.map(Ok::<_, Infallible>))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}

pub fn parse_query(
    q: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<EventsQuery, AppError> {
    q.map(|Query(q)| q)
        .map_err(|e| AppError::BadRequest(format!("invalid query string: {}", e.body_text())))
}

/// Serde accepts a JSON array for a struct; an API body must be an object. Errors name the field.
fn json_object<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, AppError> {
    if !value.is_object() {
        return Err(AppError::BadRequest(
            "invalid JSON body: expected a JSON object".into(),
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            AppError::BadRequest(format!("invalid JSON body: {inner}"))
        } else {
            AppError::BadRequest(format!("invalid JSON body: {path}: {inner}"))
        }
    })
}
