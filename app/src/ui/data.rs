//! Server functions: how pages load data during SSR and after client-side navigation.

use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::SharedService;
use crate::api::{DebateDetail, DebateSummary};

#[cfg(feature = "ssr")]
fn service() -> Result<SharedService, ServerFnError> {
    use_context::<SharedService>()
        .ok_or_else(|| ServerFnError::new("debate service missing from the server context"))
}

#[server]
pub async fn list_debates() -> Result<Vec<DebateSummary>, ServerFnError> {
    service()?.list().await.map_err(ServerFnError::new)
}

#[server]
pub async fn get_debate(id: String) -> Result<Option<DebateDetail>, ServerFnError> {
    service()?.get(id).await.map_err(ServerFnError::new)
}

/// Starts a debate; the error message names what is wrong with the request. `config` and `cards`
/// are JSON text as typed in the form.
#[server]
pub async fn start_debate(
    query: String,
    protocol: String,
    seed: Option<u64>,
    config: Option<String>,
    cards: Option<String>,
    backend: String,
    token_budget: Option<u64>,
) -> Result<String, ServerFnError> {
    let mut request = crate::api::CreateDebate::from_form(query, protocol, seed, config, cards)
        .map_err(ServerFnError::new)?;
    request.backend = Some(backend);
    request.token_budget = token_budget;
    service()?.start(request).await.map_err(ServerFnError::new)
}
