//! The server side of the UI's server functions.

#[cfg(feature = "ssr")]
use super::{BaselineCounts, CreateDebate, DebateDetail, DebateSummary, Forks, SavedEval};

/// What the server gives the UI's server functions (provided as context during SSR).
#[cfg(feature = "ssr")]
pub trait DebateService: Send + Sync + 'static {
    /// A page of debates, newest first: those older than `before` whose query contains `search`.
    fn list(
        &self,
        before: Option<String>,
        search: Option<String>,
    ) -> futures::future::BoxFuture<'_, Result<Vec<DebateSummary>, String>>;
    fn get(
        &self,
        id: String,
    ) -> futures::future::BoxFuture<'_, Result<Option<DebateDetail>, String>>;
    /// Returns the new debate's id, or an error message naming the problem.
    /// The request's head decides who asks (SV-7) and from which address (limits).
    fn start(
        &self,
        request: CreateDebate,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<String, String>>;
    /// FK-1: forks debate `id` after its event `after_seq` with `changes`; returns the fork's
    /// id. Who may fork is who may start.
    fn fork(
        &self,
        id: String,
        after_seq: u64,
        changes: crate::protocol::run::ForkChanges,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<String, String>>;
    /// FK-4: forks decided debate `id` after `after_seq` once per seed, each with `changes`;
    /// returns how often its decision held ("4 of 5 forks reached the same decision (ACT); …").
    fn fork_batch(
        &self,
        id: String,
        after_seq: u64,
        seeds: Vec<u64>,
        changes: crate::protocol::run::ForkChanges,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<String, String>>;
    /// FK-3: debate `id`'s forks and how many reached its decision.
    fn forks(&self, id: String) -> futures::future::BoxFuture<'_, Result<Forks, String>>;
    /// FK-3: debate `id` beside its newest forks, a column each.
    fn compare(
        &self,
        id: String,
    ) -> futures::future::BoxFuture<'_, Result<super::Comparison, String>>;
    /// SV-7: a signed-in judge stops a running debate; the error names why not.
    fn stop(
        &self,
        id: String,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<(), String>>;
    /// ES-5/ES-7: the signed-in judge rules on a challenge of a running escalation debate.
    fn rule(
        &self,
        id: String,
        challenge: String,
        action: crate::protocol::escalation::JudgeAction,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<(), String>>;
    /// ES-12: the signed-in judge decides a collapse debate escalated to a human.
    fn decide(
        &self,
        id: String,
        chosen: String,
        rationale: String,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<(), String>>;
    /// ES-11: the signed-in judge grants tokens to, or closes, a debate paused on its budget.
    fn budget(
        &self,
        id: String,
        action: crate::protocol::run::BudgetAction,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<(), String>>;
    /// UI-4: the judges' desk, for a signed-in judge; the error names why not.
    fn desk(
        &self,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<crate::protocol::escalation::DeskView, String>>;
    /// The signed-in judge or viewer (name, role) the request's session cookie belongs to.
    fn whoami(
        &self,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Option<(String, String)>>;
    /// QL-2: the evaluation runs saved in the server's eval directory, newest first.
    fn eval_runs(&self) -> futures::future::BoxFuture<'_, Result<Vec<SavedEval>, String>>;
    /// QL-1: how often the debate changed the plain vote's outcome.
    fn baseline_counts(&self) -> futures::future::BoxFuture<'_, Result<BaselineCounts, String>>;
    /// CR-2: every agent with a record.
    fn agents(
        &self,
    ) -> futures::future::BoxFuture<'_, Result<Vec<crate::track_record::AgentRow>, String>>;
    /// CR-2: one agent's breakdown; `None` without a record.
    fn agent(
        &self,
        identity: String,
    ) -> futures::future::BoxFuture<'_, Result<Option<crate::track_record::AgentDetail>, String>>;
    /// The predictions debate `id` recorded.
    fn predictions(
        &self,
        id: String,
    ) -> futures::future::BoxFuture<'_, Result<Vec<crate::track_record::PredictionRow>, String>>;
    /// SV-7: a signed-in judge appends an outcome; the error names why not.
    fn record_outcome(
        &self,
        prediction: String,
        body: crate::track_record::RecordOutcome,
        head: http::request::Parts,
    ) -> futures::future::BoxFuture<'_, Result<(), String>>;
}

/// Debates the home page shows per "load more".
pub const HOME_PAGE_SIZE: u32 = 30;

#[cfg(feature = "ssr")]
pub type SharedService = std::sync::Arc<dyn DebateService>;
