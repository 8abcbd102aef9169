//! The server side of the UI's server functions, under the same access rules and limits as the
//! JSON API (one way in): a start is refused without the start token or a judge when one is
//! required, counts against the running-debate limits, and a cookie-authenticated start must
//! come from this site.

use crate::http::error::public;
use app::api::{CreateDebate, DebateDetail, DebateService, DebateSummary, HOME_PAGE_SIZE};
use axum::http::request::Parts;
use futures::future::BoxFuture;
use futures::FutureExt;

use crate::access::{client, Principal, SharedAccess};
use crate::db::ListQuery;
use crate::engine::Engine;

pub struct UiService {
    pub engine: Engine,
    pub access: SharedAccess,
}

impl UiService {
    /// Who asks (and the CSRF check), whether they may start debates, and from which address:
    /// the first steps of a start and of a fork, as in the JSON API.
    async fn starter(&self, head: &Parts) -> Result<(Principal, std::net::IpAddr), String> {
        let who = self.access.caller(head).await.map_err(public)?;
        self.access.may_start(&who).map_err(public)?;
        let ip = client::address(&head.extensions, &head.headers, &self.access.trust_proxy);
        Ok((who, ip))
    }
}

impl DebateService for UiService {
    fn list(
        &self,
        before: Option<String>,
        search: Option<String>,
    ) -> BoxFuture<'_, Result<Vec<DebateSummary>, String>> {
        async move {
            let query = ListQuery {
                limit: HOME_PAGE_SIZE,
                before: before.filter(|b| app::api::is_debate_id(b)),
                search: search
                    .map(|s| s.trim().chars().take(200).collect::<String>())
                    .filter(|s| !s.is_empty()),
                ..ListQuery::default()
            };
            self.engine.store.list(&query).await.map_err(public)
        }
        .boxed()
    }

    fn eval_runs(&self) -> BoxFuture<'_, Result<Vec<app::api::SavedEval>, String>> {
        async move {
            Ok(crate::eval::saved_runs_async(self.engine.settings.eval_dir.clone()).await)
        }
        .boxed()
    }

    fn baseline_counts(&self) -> BoxFuture<'_, Result<app::api::BaselineCounts, String>> {
        async move { self.engine.store.baseline_counts().await.map_err(public) }.boxed()
    }

    fn get(&self, id: String) -> BoxFuture<'_, Result<Option<DebateDetail>, String>> {
        async move {
            if !app::api::is_debate_id(&id) {
                return Ok(None);
            }
            self.engine.store.get(&id).await.map_err(public)
        }
        .boxed()
    }

    /// The same steps as `POST /api/debates`: who asks (and the CSRF check), may they start,
    /// is the request valid, is there a place for it.
    fn start(&self, request: CreateDebate, head: Parts) -> BoxFuture<'_, Result<String, String>> {
        async move {
            let (who, ip) = self.starter(&head).await?;
            let valid = request.validate().map_err(|e| e.to_string())?;
            let place = self.access.start_place(&who, ip).map_err(public)?;
            self.engine.start(valid, place).await.map_err(public)
        }
        .boxed()
    }

    fn fork(
        &self,
        id: String,
        after_seq: u64,
        changes: app::protocol::run::ForkChanges,
        head: Parts,
    ) -> BoxFuture<'_, Result<String, String>> {
        async move {
            let (who, ip) = self.starter(&head).await?;
            if !app::api::is_debate_id(&id) {
                return Err(format!("no debate {id}"));
            }
            let place = self.access.start_place(&who, ip).map_err(public)?;
            self.engine
                .fork(&id, after_seq, changes, place, false)
                .await
                .map_err(public)
        }
        .boxed()
    }

    fn fork_batch(
        &self,
        id: String,
        after_seq: u64,
        seeds: Vec<u64>,
        changes: app::protocol::run::ForkChanges,
        head: Parts,
    ) -> BoxFuture<'_, Result<String, String>> {
        async move {
            let (who, ip) = self.starter(&head).await?;
            if !app::api::is_debate_id(&id) {
                return Err(format!("no debate {id}"));
            }
            let req = crate::http::fork::BatchRequest {
                after_seq,
                seeds,
                changes,
                change_sets: Vec::new(),
            };
            crate::http::fork::batch(&self.engine, &self.access, &who, ip, &id, req)
                .await
                .map(|reply| reply.summary)
                .map_err(public)
        }
        .boxed()
    }

    fn forks(&self, id: String) -> BoxFuture<'_, Result<app::api::Forks, String>> {
        async move {
            crate::http::fork::forks_of(&self.engine, &id)
                .await
                .map_err(public)
        }
        .boxed()
    }

    fn compare(&self, id: String) -> BoxFuture<'_, Result<app::api::Comparison, String>> {
        async move {
            crate::http::compare::comparison(&self.engine, &id, None)
                .await
                .map_err(public)
        }
        .boxed()
    }

    fn stop(&self, id: String, head: Parts) -> BoxFuture<'_, Result<(), String>> {
        async move {
            let who = self.access.caller(&head).await.map_err(public)?;
            let judge = crate::access::judge_of(who).map_err(public)?;
            crate::http::judge::stop_as(&self.engine, &judge, &id)
                .await
                .map_err(public)
        }
        .boxed()
    }

    fn rule(
        &self,
        id: String,
        challenge: String,
        action: app::protocol::escalation::JudgeAction,
        head: Parts,
    ) -> BoxFuture<'_, Result<(), String>> {
        async move {
            let who = self.access.caller(&head).await.map_err(public)?;
            let judge = crate::access::judge_of(who).map_err(public)?;
            crate::http::judge::rule_as(&self.engine, &judge, &id, &challenge, action)
                .await
                .map_err(public)
        }
        .boxed()
    }

    fn decide(
        &self,
        id: String,
        chosen: String,
        rationale: String,
        head: Parts,
    ) -> BoxFuture<'_, Result<(), String>> {
        async move {
            let who = self.access.caller(&head).await.map_err(public)?;
            let judge = crate::access::judge_of(who).map_err(public)?;
            crate::http::judge::decide_as(&self.engine, &judge, &id, &chosen, &rationale)
                .await
                .map_err(public)
        }
        .boxed()
    }

    fn budget(
        &self,
        id: String,
        action: app::protocol::run::BudgetAction,
        head: Parts,
    ) -> BoxFuture<'_, Result<(), String>> {
        async move {
            let who = self.access.caller(&head).await.map_err(public)?;
            let judge = crate::access::judge_of(who).map_err(public)?;
            crate::http::judge::budget_as(&self.engine, &judge, &id, action)
                .await
                .map_err(public)
        }
        .boxed()
    }

    fn desk(
        &self,
        head: Parts,
    ) -> BoxFuture<'_, Result<app::protocol::escalation::DeskView, String>> {
        async move {
            let who = self.access.caller(&head).await.map_err(public)?;
            crate::access::judge_of(who).map_err(public)?;
            self.engine.desk_view().await.map_err(public)
        }
        .boxed()
    }

    fn whoami(&self, head: Parts) -> BoxFuture<'_, Option<(String, String)>> {
        async move {
            match self.access.authenticate(&head.headers).await {
                Ok(Principal::Person { name, role, .. }) => Some((name, role.as_str().to_owned())),
                _ => None,
            }
        }
        .boxed()
    }

    fn agents(&self) -> BoxFuture<'_, Result<Vec<app::track_record::AgentRow>, String>> {
        async move {
            crate::record::agent_rows(&self.engine.store, &crate::drive::now_rfc3339())
                .await
                .map_err(public)
        }
        .boxed()
    }

    fn agent(
        &self,
        identity: String,
    ) -> BoxFuture<'_, Result<Option<app::track_record::AgentDetail>, String>> {
        async move {
            if app::protocol::credibility::identity::check_identity(&identity).is_err() {
                return Ok(None);
            }
            crate::record::agent_detail(
                &self.engine.store,
                &identity,
                &crate::drive::now_rfc3339(),
                &app::protocol::credibility::ContextTags::default(),
            )
            .await
            .map_err(public)
        }
        .boxed()
    }

    fn predictions(
        &self,
        id: String,
    ) -> BoxFuture<'_, Result<Vec<app::track_record::PredictionRow>, String>> {
        async move {
            if !app::api::is_debate_id(&id) {
                return Ok(Vec::new());
            }
            self.engine.store.predictions_in(&id).await.map_err(public)
        }
        .boxed()
    }

    /// The same steps as `POST /api/predictions/{id}/outcome`: a judge (with the CSRF check).
    fn record_outcome(
        &self,
        prediction: String,
        body: app::track_record::RecordOutcome,
        head: Parts,
    ) -> BoxFuture<'_, Result<(), String>> {
        async move {
            let who = self.access.caller(&head).await.map_err(public)?;
            let judge = crate::access::judge_of(who).map_err(public)?;
            crate::http::agents::record(&self.engine, &judge.name, &prediction, body)
                .await
                .map(|_| ())
                .map_err(public)
        }
        .boxed()
    }
}
