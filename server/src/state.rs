//! What every request handler can reach: the engine, the pages' options, the access rules and
//! the host policy.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;

use crate::access::guard::HostPolicy;
use crate::access::SharedAccess;
use crate::engine::Engine;

#[derive(Clone)]
pub struct AppState {
    pub engine: Engine,
    pub leptos: LeptosOptions,
    pub access: SharedAccess,
    pub hosts: Arc<HostPolicy>,
}

impl FromRef<AppState> for SharedAccess {
    fn from_ref(s: &AppState) -> Self {
        s.access.clone()
    }
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
