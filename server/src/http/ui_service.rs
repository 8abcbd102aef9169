//! The server side of the UI's server functions.

use app::api::{CreateDebate, DebateDetail, DebateService, DebateSummary};
use futures::future::BoxFuture;
use futures::FutureExt;

use crate::engine::Engine;

pub struct UiService {
    pub engine: Engine,
}

impl DebateService for UiService {
    fn list(&self) -> BoxFuture<'_, Result<Vec<DebateSummary>, String>> {
        async move { self.engine.store.list(50).await.map_err(|e| e.to_string()) }.boxed()
    }

    fn get(&self, id: String) -> BoxFuture<'_, Result<Option<DebateDetail>, String>> {
        async move {
            if !app::api::is_debate_id(&id) {
                return Ok(None);
            }
            self.engine.store.get(&id).await.map_err(|e| e.to_string())
        }
        .boxed()
    }

    fn start(&self, request: CreateDebate) -> BoxFuture<'_, Result<String, String>> {
        async move {
            let valid = request.validate().map_err(|e| e.to_string())?;
            self.engine.start(valid).await.map_err(|e| e.to_string())
        }
        .boxed()
    }
}
