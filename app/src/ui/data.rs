//! Server functions: how pages load data during SSR and after client-side navigation. Each has a
//! stable path, `/api/<name>`, under the same guards as the JSON API (Origin, body limit, rate).

use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::SharedService;
use crate::api::{DebateDetail, DebateSummary};
use crate::track_record::{AgentDetail, AgentRow, PredictionRow};

#[cfg(feature = "ssr")]
fn service() -> Result<SharedService, ServerFnError> {
    use_context::<SharedService>()
        .ok_or_else(|| ServerFnError::new("debate service missing from the server context"))
}

/// A page of the home page's list: older than `before`, matching `search`.
#[server(endpoint = "list_debates")]
pub async fn list_debates(
    before: Option<String>,
    search: Option<String>,
) -> Result<Vec<DebateSummary>, ServerFnError> {
    service()?
        .list(before, search)
        .await
        .map_err(ServerFnError::new)
}

/// QL-2: the saved evaluation runs, newest first.
#[server(endpoint = "eval_runs")]
pub async fn eval_runs() -> Result<Vec<crate::api::SavedEval>, ServerFnError> {
    service()?.eval_runs().await.map_err(ServerFnError::new)
}

/// QL-1: how often the debate changed the plain vote's outcome, over every stored debate.
#[server(endpoint = "baseline_counts")]
pub async fn baseline_counts() -> Result<crate::api::BaselineCounts, ServerFnError> {
    service()?
        .baseline_counts()
        .await
        .map_err(ServerFnError::new)
}

/// The signed-in judge (name, role), if any.
#[server(endpoint = "who_am_i")]
pub async fn who_am_i() -> Result<Option<(String, String)>, ServerFnError> {
    Ok(service()?.whoami(head()?).await)
}

/// ES-12: the signed-in judge decides a collapse debate escalated to a human.
#[server(endpoint = "decide_debate")]
pub async fn decide_debate(
    id: String,
    chosen: String,
    rationale: String,
) -> Result<(), ServerFnError> {
    service()?
        .decide(id, chosen, rationale, head()?)
        .await
        .map_err(ServerFnError::new)
}

/// ES-11: the signed-in judge grants `tokens` more (or, with `None`, closes the debate).
#[server(endpoint = "budget_debate")]
pub async fn budget_debate(id: String, tokens: Option<u64>) -> Result<(), ServerFnError> {
    use crate::protocol::run::BudgetAction;
    let action = match tokens {
        Some(tokens) => BudgetAction::Grant { tokens },
        None => BudgetAction::Close,
    };
    service()?
        .budget(id, action, head()?)
        .await
        .map_err(ServerFnError::new)
}

/// UI-4: the judges' desk (signed-in judges only).
#[server(endpoint = "judge_desk")]
pub async fn judge_desk() -> Result<crate::protocol::escalation::DeskView, ServerFnError> {
    service()?.desk(head()?).await.map_err(ServerFnError::new)
}

/// SV-7: the signed-in judge stops a running debate (the log names them).
#[server(endpoint = "stop_debate")]
pub async fn stop_debate(id: String) -> Result<(), ServerFnError> {
    service()?
        .stop(id, head()?)
        .await
        .map_err(ServerFnError::new)
}

/// ES-5/ES-7: the signed-in judge rules on a challenge: `action` is `override` (with `value` and
/// `text` as the rationale), `confirm`, or `redebate` (with `text` as the context to add).
#[server(endpoint = "rule_challenge")]
pub async fn rule_challenge(
    id: String,
    challenge: String,
    action: String,
    value: Option<f64>,
    text: String,
) -> Result<(), ServerFnError> {
    use crate::protocol::escalation::JudgeAction;
    let action = match (action.as_str(), value) {
        ("override", Some(value)) => JudgeAction::Override {
            value,
            rationale: text,
        },
        ("override", None) => return Err(ServerFnError::new("an override needs a value")),
        ("confirm", _) => JudgeAction::Confirm,
        ("redebate", _) => JudgeAction::Redebate { context: text },
        (other, _) => return Err(ServerFnError::new(format!("unknown action '{other}'"))),
    };
    service()?
        .rule(id, challenge, action, head()?)
        .await
        .map_err(ServerFnError::new)
}

#[cfg(feature = "ssr")]
fn head() -> Result<http::request::Parts, ServerFnError> {
    use_context::<http::request::Parts>()
        .ok_or_else(|| ServerFnError::new("request missing from the server context"))
}

#[server(endpoint = "get_debate")]
pub async fn get_debate(id: String) -> Result<Option<DebateDetail>, ServerFnError> {
    service()?.get(id).await.map_err(ServerFnError::new)
}

pub use start::{start_debate, StartDebate};

/// Apart so that one allowance covers the code the server macro writes for the browser too.
mod start {
    // A server function takes the form's fields one by one.
    #![allow(clippy::too_many_arguments)]
    use super::*;

    /// Starts a debate; the error message names what is wrong with the request. `config` and `cards`
    /// are JSON text as typed in the form.
    #[server(endpoint = "start_debate")]
    pub async fn start_debate(
        query: String,
        protocol: String,
        seed: Option<u64>,
        config: Option<String>,
        cards: Option<String>,
        backend: String,
        token_budget: Option<u64>,
        agents: Option<String>,
        observations: Option<String>,
    ) -> Result<String, ServerFnError> {
        let mut request = crate::api::CreateDebate::from_form(query, protocol, seed, config, cards)
            .map_err(ServerFnError::new)?;
        request.backend = Some(backend);
        request.token_budget = token_budget;
        // RC-1: the observations arrive as JSON text.
        request.observations =
            match observations.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(text) => Some(serde_json::from_str(text).map_err(|e| {
                    ServerFnError::new(format!("observations: not valid JSON: {e}"))
                })?),
            };
        // QL-3: the per-agent choices arrive as JSON text.
        request.agents = match agents.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(text) => Some(
                serde_json::from_str(text)
                    .map_err(|e| ServerFnError::new(format!("agents: not valid JSON: {e}")))?,
            ),
        };
        service()?
            .start(request, head()?)
            .await
            .map_err(ServerFnError::new)
    }
}

/// FK-1: forks debate `id` after its event `after_seq` with `changes` (another seed, another
/// model for one agent, a note for every agent); the fork's id.
// JSON, not a URL-encoded form: the changes nest (lists of agents), and a form cannot say "none".
#[server(endpoint = "fork_debate", input = leptos::server_fn::codec::Json)]
pub async fn fork_debate(
    id: String,
    after_seq: u64,
    changes: crate::protocol::run::ForkChanges,
) -> Result<String, ServerFnError> {
    service()?
        .fork(id, after_seq, changes, head()?)
        .await
        .map_err(ServerFnError::new)
}

/// FK-4: forks decided debate `id` after `after_seq` once per seed, each with `changes`; how
/// often its decision held.
#[server(endpoint = "fork_batch", input = leptos::server_fn::codec::Json)]
pub async fn fork_batch(
    id: String,
    after_seq: u64,
    seeds: Vec<u64>,
    changes: crate::protocol::run::ForkChanges,
) -> Result<String, ServerFnError> {
    service()?
        .fork_batch(id, after_seq, seeds, changes, head()?)
        .await
        .map_err(ServerFnError::new)
}

/// FK-3: debate `id`'s forks.
#[server(endpoint = "debate_forks")]
pub async fn debate_forks(id: String) -> Result<crate::api::Forks, ServerFnError> {
    service()?.forks(id).await.map_err(ServerFnError::new)
}

/// FK-3: debate `id` beside its newest forks.
#[server(endpoint = "debate_compare")]
pub async fn debate_compare(id: String) -> Result<crate::api::Comparison, ServerFnError> {
    service()?.compare(id).await.map_err(ServerFnError::new)
}

/// CR-2: every agent with a track record and its credibility now.
#[server(endpoint = "list_agents")]
pub async fn list_agents() -> Result<Vec<AgentRow>, ServerFnError> {
    service()?.agents().await.map_err(ServerFnError::new)
}

/// CR-2: one agent's credibility breakdown and recent predictions.
#[server(endpoint = "get_agent")]
pub async fn get_agent(identity: String) -> Result<Option<AgentDetail>, ServerFnError> {
    service()?.agent(identity).await.map_err(ServerFnError::new)
}

/// What each agent of a debate held when it ended, with outcomes.
#[server(endpoint = "debate_predictions")]
pub async fn debate_predictions(id: String) -> Result<Vec<PredictionRow>, ServerFnError> {
    service()?.predictions(id).await.map_err(ServerFnError::new)
}

/// A signed-in judge appends an outcome: `right`, `wrong`, `upheld` or `overridden`.
#[server(endpoint = "record_outcome")]
pub async fn record_outcome(prediction: String, verdict: String) -> Result<(), ServerFnError> {
    let body = match verdict.as_str() {
        "right" => crate::track_record::RecordOutcome {
            correct: Some(true),
            ..Default::default()
        },
        "wrong" => crate::track_record::RecordOutcome {
            correct: Some(false),
            ..Default::default()
        },
        "upheld" | "overridden" => crate::track_record::RecordOutcome {
            ruling: Some(verdict),
            ..Default::default()
        },
        other => {
            return Err(ServerFnError::new(format!(
                "unknown verdict '{other}': expected right, wrong, upheld or overridden"
            )))
        }
    };
    service()?
        .record_outcome(prediction, body, head()?)
        .await
        .map_err(ServerFnError::new)
}
